#pragma once
// simrun --export-chakra: the trace directory, the file prefix, staging one Chakra trace per device
// as outputs (written all or none with the run's other files), and the summary lines, including
// what the traces take under ASTRA-sim's execution rules (sim/export/astra_rules.hpp) with
// partsim's own uncontended message times: the part of a difference with ASTRA-sim that its rules
// make, apart from its network (docs/chakra-export.md).

#include <string>

#include "sim/cli/command_line.hpp"
#include "sim/export/chakra_trace.hpp"
#include "sim/plan/plan.hpp"
#include "sim/program/evaluation.hpp"
#include "sim/program/program.hpp"
#include "topology/system_spec.hpp"
#include "topology/topology_graph.hpp"
#include "workloads/graph.hpp"

namespace partsim::cli {

/// The directory of --export-chakra: created when missing, and removed again (if still empty)
/// unless the run gets as far as writing its traces (keep()), so a failed run leaves nothing behind.
class TraceDirectory {
 public:
  explicit TraceDirectory(const std::string& dir);
  ~TraceDirectory();
  TraceDirectory(const TraceDirectory&) = delete;
  TraceDirectory& operator=(const TraceDirectory&) = delete;
  void keep() { kept_ = true; }

 private:
  std::string dir_;
  bool created_ = false;
  bool kept_ = false;
};

/// The default file prefix of the traces: the plan's workload as a file-name word ("tiny_resnet"
/// for workloads/examples/tiny_resnet.yaml, "gpt" for gpt:layers=12,...).
std::string default_chakra_prefix(const std::string& workload);

/// Exports `program` and stages one trace per device, DIR/<prefix>.<rank>.et, in `outputs`. With
/// `schedule` (the closed form's evaluation of `program`) compute is written as busy spans.
chakra_export::ChakraExport stage_chakra_traces(const std::string& dir, const std::string& prefix,
                                                const program::Program& program, const plan::Plan& plan,
                                                const topology::SystemSpec& spec, const workloads::Graph& workload,
                                                const program::Evaluation* schedule, OutputSet& outputs);

/// The export's summary lines on stdout; replays the traces under ASTRA-sim's rules, and again with a
/// device's SENDs allowed to overlap.
void print_chakra_summary(const std::string& dir, const std::string& prefix, const chakra_export::ChakraExport& traces,
                          const topology::TopologyGraph& graph, double closed_form_s);

}  // namespace partsim::cli
