#include "sim/export/chakra_trace.hpp"

#include <google/protobuf/util/delimited_message_util.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include "chakra_et.pb.h"
#include "sim/common/error.hpp"

namespace partsim::chakra_export {
namespace {

using program::Program;
using program::Task;
using program::TaskKind;
using NodeId = std::uint64_t;

// Where a task has nodes: (rank, node id on that rank); a transfer has two (send, then receive).
struct Placement {
  std::vector<std::pair<int, NodeId>> nodes;
  std::optional<NodeId> on(int rank) const {
    for (const auto& [r, id] : nodes)
      if (r == rank) return id;
    return std::nullopt;
  }
};

void require_chip_level(const program::Endpoint& e, std::size_t task) {
  if (e.core >= 0)
    throw InputError("--export-chakra: task " + std::to_string(task) +
                     " runs on a core: Chakra ranks are devices, export a chip-granularity replay (--granularity chip)");
}

bool is_cross_device(const Task& t) { return t.kind == TaskKind::transfer && t.src.device != t.dst.device; }

// The ranks on which a task's predecessors finished, ascending, each once.
std::vector<int> predecessor_ranks(const Task& t, const std::vector<std::vector<int>>& finish) {
  std::vector<int> ranks;
  for (int p : t.after) {
    const auto& f = finish[static_cast<std::size_t>(p)];
    ranks.insert(ranks.end(), f.begin(), f.end());
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

// The ranks a task's nodes go on (module comment); `finish` holds, for every earlier task, the
// ranks on which it finishes (a transfer: its destination).
std::vector<int> ranks_of(const Task& t, std::size_t index, const std::vector<std::vector<int>>& finish) {
  switch (t.kind) {
    case TaskKind::compute:
      require_chip_level(t.at, index);
      return {t.at.device};
    case TaskKind::transfer:
      require_chip_level(t.src, index);
      require_chip_level(t.dst, index);
      if (!is_cross_device(t)) return {};
      return {t.src.device, t.dst.device};
    case TaskKind::delay: {
      if (t.seconds <= 0) return {};
      if (t.at.device >= 0) return {t.at.device};
      return predecessor_ranks(t, finish);
    }
  }
  return {};
}

// The ranks a task finishes on, for the latency delays after it.
std::vector<int> finish_ranks(const Task& t, const std::vector<int>& ranks, const std::vector<std::vector<int>>& finish) {
  if (is_cross_device(t)) return {t.dst.device};
  if (!ranks.empty()) return ranks;
  if (t.kind == TaskKind::transfer) return {t.dst.device};
  return predecessor_ranks(t, finish);  // a join: wherever its predecessors finished
}

void add_attr(ChakraProtoMsg::Node& node, const std::string& name, std::int64_t value) {
  auto* a = node.add_attr();
  a->set_name(name);
  a->set_int64_val(value);
}

void add_int32_attr(ChakraProtoMsg::Node& node, const std::string& name, std::int64_t value) {
  if (value < INT32_MIN || value > INT32_MAX) throw Error("chakra export: " + name + " does not fit 32 bits");
  auto* a = node.add_attr();
  a->set_name(name);
  a->set_int32_val(static_cast<std::int32_t>(value));
}

void add_bool_attr(ChakraProtoMsg::Node& node, const std::string& name, bool value) {
  auto* a = node.add_attr();
  a->set_name(name);
  a->set_bool_val(value);
}

void add_double_attr(ChakraProtoMsg::Node& node, const std::string& name, double value) {
  auto* a = node.add_attr();
  a->set_name(name);
  a->set_double_val(value);
}

void add_string_attr(ChakraProtoMsg::GlobalMetadata& meta, const std::string& name, const std::string& value) {
  auto* a = meta.add_attr();
  a->set_name(name);
  a->set_string_val(value);
}

std::string node_name(const Program& program, const Task& t) {
  if (t.layer < 0) return t.label.str();
  return program.layer_names().at(static_cast<std::size_t>(t.layer)) + ":" + plan::to_string(t.pass) + ":" + t.label.str();
}

// num_ops of every compute task: its layer's FLOP of that pass (workloads::LayerQuantities),
// shared over the layer's compute tasks of the pass in proportion to their durations (equal
// shares when they all take no time). Tasks of no layer, or of a layer the graph does not have
// (a fused group), get 0.
std::vector<double> compute_ops(const Program& program, const workloads::Graph& graph) {
  const auto& tasks = program.tasks();
  std::map<std::pair<int, plan::Pass>, std::pair<double, std::size_t>> totals;  // seconds, count
  for (const Task& t : tasks)
    if (t.kind == TaskKind::compute && t.layer >= 0) {
      auto& [seconds, count] = totals[{t.layer, t.pass}];
      seconds += t.seconds;
      ++count;
    }
  std::vector<double> ops(tasks.size(), 0.0);
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = tasks[i];
    if (t.kind != TaskKind::compute || t.layer < 0) continue;
    const auto index = graph.index_of(program.layer_names().at(static_cast<std::size_t>(t.layer)));
    if (!index) continue;
    const workloads::PassCounts flops = graph.layer(*index).q.flops();
    const double layer_ops = t.pass == plan::Pass::fwd ? flops.fwd : t.pass == plan::Pass::bwd ? flops.bwd : flops.upd;
    const auto& [seconds, count] = totals.at({t.layer, t.pass});
    ops[i] = layer_ops * (seconds > 0 ? t.seconds / seconds : 1.0 / static_cast<double>(count));
  }
  return ops;
}

ChakraProtoMsg::GlobalMetadata metadata(const TraceContext& context, int rank, int ranks) {
  ChakraProtoMsg::GlobalMetadata meta;
  meta.set_version(kChakraVersion);
  add_string_attr(meta, "generator", std::string("partsim ") + PARTSIM_VERSION);
  add_string_attr(meta, "workload", context.workload);
  add_string_attr(meta, "strategy", context.strategy);
  add_string_attr(meta, "platform", context.platform);
  add_string_attr(meta, "mode", context.mode);
  add_string_attr(meta, "rank", std::to_string(rank) + " of " + std::to_string(ranks));
  return meta;
}

}  // namespace

std::string trace_file_name(const std::string& prefix, int rank) { return prefix + "." + std::to_string(rank) + ".et"; }

ChakraExport export_chakra(const Program& program, int device_count, const workloads::Graph& graph,
                           const TraceContext& context) {
  const auto& tasks = program.tasks();
  if (tasks.size() > static_cast<std::size_t>(INT32_MAX))
    throw Error("chakra export: more tasks than a 32-bit comm_tag can name");
  ChakraExport out;
  out.ranks.resize(static_cast<std::size_t>(device_count));
  for (int r = 0; r < device_count; ++r) out.ranks[static_cast<std::size_t>(r)].rank = r;

  // Pass 1: which ranks every task has a node on, and the node ids (task order per rank).
  std::vector<Placement> placement(tasks.size());
  std::vector<std::vector<int>> finish(tasks.size());
  std::vector<NodeId> next_id(static_cast<std::size_t>(device_count), 0);
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const std::vector<int> ranks = ranks_of(tasks[i], i, finish);
    if (ranks.empty() && tasks[i].kind == TaskKind::delay && tasks[i].seconds > 0) ++out.dropped_delays;
    for (int r : ranks) {
      if (r < 0 || r >= device_count)
        throw Error("chakra export: task " + std::to_string(i) + " is on device " + std::to_string(r) +
                    " of a platform of " + std::to_string(device_count));
      placement[i].nodes.emplace_back(r, next_id[static_cast<std::size_t>(r)]++);
    }
    finish[i] = finish_ranks(tasks[i], ranks, finish);
  }
  const std::vector<double> ops = compute_ops(program, graph);

  // Pass 2, one rank at a time: a node depends on the nearest nodes of its own rank among the
  // tasks it waited for (the "frontier" of each task on this rank).
  for (int rank = 0; rank < device_count; ++rank) {
    RankTrace& trace = out.ranks[static_cast<std::size_t>(rank)];
    std::ostringstream stream;
    google::protobuf::util::SerializeDelimitedToOstream(metadata(context, rank, device_count), &stream);
    std::vector<std::vector<NodeId>> frontier(tasks.size());
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const Task& t = tasks[i];
      std::vector<NodeId> deps;
      for (int p : t.after) {
        const auto& f = frontier[static_cast<std::size_t>(p)];
        deps.insert(deps.end(), f.begin(), f.end());
      }
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      const std::optional<NodeId> id = placement[i].on(rank);
      if (!id) {
        frontier[i] = std::move(deps);
        continue;
      }
      frontier[i] = {*id};
      ChakraProtoMsg::Node node;
      node.set_id(*id);
      node.set_name(node_name(program, t));
      for (NodeId d : deps) node.add_data_deps(d);
      add_bool_attr(node, "is_cpu_op", false);
      if (t.kind == TaskKind::transfer) {
        const bool send = t.src.device == rank;
        node.set_type(send ? ChakraProtoMsg::COMM_SEND_NODE : ChakraProtoMsg::COMM_RECV_NODE);
        add_int32_attr(node, "comm_src", t.src.device);
        add_int32_attr(node, "comm_dst", t.dst.device);
        add_int32_attr(node, "comm_tag", static_cast<std::int64_t>(i));
        add_attr(node, "comm_size", std::llround(t.bytes));
        ++(send ? trace.send_nodes : trace.recv_nodes);
      } else {
        // Compute and delays: the time partsim's device model gives, in whole microseconds as the
        // schema has it (and exactly, in seconds, as duration_s).
        node.set_type(ChakraProtoMsg::COMP_NODE);
        node.set_duration_micros(static_cast<std::uint64_t>(std::llround(t.seconds * 1e6)));
        add_attr(node, "num_ops", std::llround(ops[i]));
        add_double_attr(node, "duration_s", t.seconds);
        ++trace.compute_nodes;
      }
      google::protobuf::util::SerializeDelimitedToOstream(node, &stream);
    }
    trace.bytes = std::move(stream).str();
  }
  return out;
}

}  // namespace partsim::chakra_export
