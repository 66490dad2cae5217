#include "sim/cli/simrun_chakra.hpp"

#include <cctype>
#include <cstdio>
#include <filesystem>

#include "sim/common/error.hpp"
#include "sim/export/astra_rules.hpp"

namespace partsim::cli {

TraceDirectory::TraceDirectory(const std::string& dir) : dir_(dir) {
  if (dir.empty()) return;
  std::error_code ec;
  if (std::filesystem::exists(dir, ec)) {
    if (!std::filesystem::is_directory(dir, ec)) throw InputError("--export-chakra " + dir + ": not a directory");
    return;
  }
  created_ = std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError("--export-chakra " + dir + ": cannot create the directory: " + ec.message());
}

TraceDirectory::~TraceDirectory() {
  std::error_code ignored;
  if (created_ && !kept_ && std::filesystem::is_empty(dir_, ignored)) std::filesystem::remove(dir_, ignored);
}

std::string default_chakra_prefix(const std::string& workload) {
  std::string word = std::filesystem::path(workload).stem().string();
  word = word.substr(0, word.find(':'));
  for (char& c : word)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  return word.empty() ? "trace" : word;
}

chakra_export::ChakraExport stage_chakra_traces(const std::string& dir, const std::string& prefix,
                                                const program::Program& program, const plan::Plan& plan,
                                                const topology::SystemSpec& spec, const workloads::Graph& workload,
                                                const program::Evaluation* schedule, OutputSet& outputs) {
  const chakra_export::TraceContext context{plan.workload.name, plan.strategy, spec.name,
                                            plan::to_string(plan.workload.mode)};
  chakra_export::ChakraExport traces = chakra_export::export_chakra(program, spec.device_count(), workload, context, schedule);
  for (const auto& trace : traces.ranks)
    outputs.add((std::filesystem::path(dir) / chakra_export::trace_file_name(prefix, trace.rank)).string(),
                trace.bytes);
  return traces;
}

void print_chakra_summary(const std::string& dir, const std::string& prefix, const chakra_export::ChakraExport& traces,
                          const topology::TopologyGraph& graph, double closed_form_s) {
  std::size_t compute = 0, send = 0, recv = 0;
  for (const auto& t : traces.ranks) {
    compute += t.compute_nodes;
    send += t.send_nodes;
    recv += t.recv_nodes;
  }
  std::printf("chakra: %zu traces %s/%s.<rank>.et: %zu compute, %zu send, %zu receive nodes", traces.ranks.size(),
              dir.c_str(), prefix.c_str(), compute, send, recv);
  if (traces.folded_compute > 0) std::printf("; %zu concurrent compute tasks folded into siblings", traces.folded_compute);
  if (traces.spans.spans > 0)
    std::printf("; %zu compute tasks written as %zu busy spans of the closed form's schedule", traces.spans.compute_tasks,
                traces.spans.spans);
  if (traces.split_transfers > 0) std::printf("; %zu merged collective transfers written one message per step", traces.split_transfers);
  if (traces.dropped_delays > 0) std::printf("; %zu delays on no device left out", traces.dropped_delays);
  std::printf("\n");
  const auto message_time = chakra_export::platform_message_time(graph);
  const auto from_closed_form = [&](double s) { return closed_form_s > 0 ? 100.0 * (s / closed_form_s - 1) : 0.0; };
  const double rules_s = chakra_export::replay_astra_rules(traces, message_time).makespan_s;
  // The same with a rank's SENDs overlapping: what is left of the difference is the export's, not
  // ASTRA-sim's one SEND in flight per NPU (which no SEND/RECV trace can undo).
  chakra_export::AstraRulesOptions sends_overlap;
  sends_overlap.one_send_in_flight = false;
  const double overlap_s = chakra_export::replay_astra_rules(traces, message_time, sends_overlap).makespan_s;
  std::printf("chakra: under ASTRA-sim's execution rules with partsim's message times the traces take %.6g s, %+.2f %% "
              "from the closed form %.6g s; %.6g s (%+.2f %%) if a device's messages could overlap, as in partsim "
              "(docs/chakra-export.md)\n",
              rules_s, from_closed_form(rules_s), closed_form_s, overlap_s, from_closed_form(overlap_s));
}

}  // namespace partsim::cli
