#pragma once
// One rank's Chakra nodes while the export builds them (sim/export/chakra_trace.cpp): before the
// concurrent compute of the rank is folded (siblings or schedule spans) and the nodes numbered.
// Internal to partsim_export.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "chakra_et.pb.h"

namespace partsim::chakra_export {

/// One node of a rank's trace. Ids are positions in RankGraph::nodes, which is topological.
struct ProtoNode {
  ChakraProtoMsg::NodeType type = ChakraProtoMsg::COMP_NODE;
  std::size_t task = 0;            // the Program task it comes from (SIZE_MAX: the idle node)
  int step = 0;                    // SEND, RECV: the message's step in its merged run (0 otherwise)
  int steps = 1;                   // SEND, RECV: the messages its transfer is written as
  double seconds = 0;              // COMP: duration
  std::int64_t micros = -1;        // COMP: duration_micros when set (spans round their ends), else seconds rounded
  double ops = 0;                  // COMP: num_ops
  double bytes = 0;                // SEND, RECV: one message
  std::int64_t tag = 0;            // SEND, RECV
  std::vector<std::uint32_t> deps; // earlier nodes of the rank, transitively reduced
  std::string note;                // COMP: appended to the name (folded siblings, span contents)
};

/// A rank's nodes with the transitive reduction of their dependencies (ASTRA-sim's feeder reads
/// every dependency; one implied by another only costs it time and memory).
class RankGraph {
 public:
  std::vector<ProtoNode> nodes;

  /// Keeps of `ids` only those no other of them depends on (transitively); sorted ascending. The
  /// search for ancestors visits at most kReductionBudget nodes per call: past it a dependency may
  /// be kept although implied (the schedule is the same; the trace only a little larger).
  void reduce(std::vector<std::uint32_t>& ids);

  static constexpr std::size_t kReductionBudget = 1 << 16;

 private:
  std::vector<std::uint64_t> mark_;
  std::uint64_t stamp_ = 0;
  std::vector<std::uint32_t> stack_;
};

}  // namespace partsim::chakra_export
