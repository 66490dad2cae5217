#include "sim/export/chakra_trace.hpp"

#include <google/protobuf/util/delimited_message_util.h>

#include <algorithm>
#include <functional>
#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

#include "chakra_et.pb.h"
#include "sim/common/error.hpp"
#include "sim/export/compute_spans.hpp"
#include "sim/export/rank_graph.hpp"

namespace partsim::chakra_export {
namespace {

using program::Program;
using program::Task;
using program::TaskKind;
using NodeId = std::uint64_t;

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

namespace {

// What the export does with each task, decided once for all ranks.
struct TaskPlan {
  std::vector<std::vector<int>> ranks;   // the ranks a task has nodes on
  std::vector<int> messages;             // transfers: messages (merged steps split again)
  std::vector<int> run;                  // transfers: index of their merged run, -1 for none
  std::vector<std::int64_t> first_tag;   // transfers: the first message's comm_tag
  std::vector<bool> carried;             // merged-latency delays: carried by the messages, no node
};

TaskPlan plan_tasks(const Program& program, int device_count, std::size_t& dropped_delays) {
  const auto& tasks = program.tasks();
  TaskPlan plan;
  plan.ranks.resize(tasks.size());
  plan.messages.assign(tasks.size(), 1);
  plan.first_tag.assign(tasks.size(), -1);
  plan.carried.assign(tasks.size(), false);
  plan.run.assign(tasks.size(), -1);
  const auto& runs = program.merged_steps().runs;
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (int task : runs[r].transfers) {
      plan.messages[static_cast<std::size_t>(task)] = std::max(1, static_cast<int>(std::lround(runs[r].steps)));
      plan.run[static_cast<std::size_t>(task)] = static_cast<int>(r);
    }
  for (int delay : program.merged_steps().latency_delays) plan.carried[static_cast<std::size_t>(delay)] = true;
  std::vector<std::vector<int>> finish(tasks.size());
  std::int64_t next_tag = 0;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    std::vector<int> ranks = plan.carried[i] ? std::vector<int>{} : ranks_of(tasks[i], i, finish);
    if (ranks.empty() && !plan.carried[i] && tasks[i].kind == TaskKind::delay && tasks[i].seconds > 0) ++dropped_delays;
    for (int r : ranks)
      if (r < 0 || r >= device_count)
        throw Error("chakra export: task " + std::to_string(i) + " is on device " + std::to_string(r) +
                    " of a platform of " + std::to_string(device_count));
    if (is_cross_device(tasks[i])) {
      plan.first_tag[i] = next_tag;
      next_tag += plan.messages[i];
      if (next_tag > INT32_MAX) throw Error("chakra export: more messages than a 32-bit comm_tag can name");
    }
    finish[i] = finish_ranks(tasks[i], ranks, finish);
    plan.ranks[i] = std::move(ranks);
  }
  return plan;
}

bool on_rank(const std::vector<int>& ranks, int rank) { return std::find(ranks.begin(), ranks.end(), rank) != ranks.end(); }

// The rank's nodes in the Program's order, each depending on the nearest nodes of the rank among
// the tasks it waited for (the "frontier" of each task on this rank), reduced.
class RankBuilder {
 public:
  RankBuilder(const Program& program, const TaskPlan& plan, const std::vector<double>& ops, int rank)
      : program_(program), plan_(plan), ops_(ops), rank_(rank), frontier_(program.tasks().size()),
        emitted_(program.merged_steps().runs.size(), false) {}

  RankGraph build() {
    const auto& tasks = program_.tasks();
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const int run = plan_.run[i];
      if (run >= 0 && on_rank(plan_.ranks[i], rank_)) {
        if (!emitted_[static_cast<std::size_t>(run)]) emit_run(run);
        continue;  // its frontier was set with the run
      }
      if (!on_rank(plan_.ranks[i], rank_)) {
        // A join, a carried latency or a copy inside a device passes the waits through. Another
        // rank's task passes nothing: what it waited for on this rank reaches this rank's later
        // nodes only through a message (a RECV here), and the message carries that wait.
        if (plan_.ranks[i].empty()) frontier_[i] = waits_of(i);
        continue;
      }
      Frontier deps = waits_of(i);
      const Task& t = tasks[i];
      if (t.kind == TaskKind::transfer) {
        add_message(i, 0, ids(deps));
      } else {
        ProtoNode n;
        n.task = i;
        n.seconds = t.seconds;
        n.ops = ops_[i];
        n.deps = ids(deps);
        g_.nodes.push_back(std::move(n));
      }
      frontier_[i] = make({last()});
    }
    return std::move(g_);
  }

 private:
  const Program& program_;
  const TaskPlan& plan_;
  const std::vector<double>& ops_;
  int rank_;
  RankGraph g_;
  // Per task, its frontier on this rank; shared, since most tasks pass one predecessor's on.
  using Frontier = std::shared_ptr<const std::vector<std::uint32_t>>;
  std::vector<Frontier> frontier_;
  std::vector<bool> emitted_;

  static Frontier make(std::vector<std::uint32_t> ids) {
    return ids.empty() ? nullptr : std::make_shared<const std::vector<std::uint32_t>>(std::move(ids));
  }

  std::uint32_t last() const { return static_cast<std::uint32_t>(g_.nodes.size() - 1); }

  Frontier waits_of(std::size_t i) {
    // Most tasks wait for one task, or for tasks with nothing on this rank: no reduction needed.
    Frontier only;
    std::size_t nonempty = 0;
    for (int p : program_.tasks()[i].after) {
      const Frontier& f = frontier_[static_cast<std::size_t>(p)];
      if (!f || f == only || (only && *only == *f)) continue;
      only = f;
      ++nonempty;
    }
    if (nonempty <= 1) return only;
    std::vector<std::uint32_t> deps;
    for (int p : program_.tasks()[i].after)
      if (const Frontier& f = frontier_[static_cast<std::size_t>(p)]) deps.insert(deps.end(), f->begin(), f->end());
    g_.reduce(deps);
    return make(std::move(deps));
  }

  static std::vector<std::uint32_t> ids(const Frontier& f) { return f ? *f : std::vector<std::uint32_t>{}; }

  // Message `j` of transfer `i`: a SEND on its source, a RECV on its destination.
  std::uint32_t add_message(std::size_t i, int j, std::vector<std::uint32_t> deps) {
    const Task& t = program_.tasks()[i];
    ProtoNode n;
    n.type = t.src.device == rank_ ? ChakraProtoMsg::COMM_SEND_NODE : ChakraProtoMsg::COMM_RECV_NODE;
    n.task = i;
    n.bytes = t.bytes / plan_.messages[i];
    n.tag = plan_.first_tag[i] + j;
    n.step = j;
    n.steps = plan_.messages[i];
    g_.reduce(deps);
    n.deps = std::move(deps);
    g_.nodes.push_back(std::move(n));
    return last();
  }

  // A merged run, one message per step again: in step j a member sends after its own step j - 1
  // and after what reached it in step j - 1 (a ring forwards what it received), and receives after
  // its previous receive; so an uncontended run takes k x (latency + bytes / k / bandwidth), what
  // the merged transfer and its latency delay take in partsim.
  void emit_run(int run) {
    emitted_[static_cast<std::size_t>(run)] = true;
    const auto& members = program_.merged_steps().runs[static_cast<std::size_t>(run)].transfers;
    std::vector<std::size_t> mine;
    for (int m : members)
      if (on_rank(plan_.ranks[static_cast<std::size_t>(m)], rank_)) mine.push_back(static_cast<std::size_t>(m));
    std::vector<std::vector<std::uint32_t>> first_deps;
    for (std::size_t m : mine) first_deps.push_back(ids(waits_of(m)));
    std::optional<std::size_t> incoming;  // the member delivering to this rank
    for (std::size_t k = 0; k < mine.size(); ++k)
      if (program_.tasks()[mine[k]].dst.device == rank_) incoming = k;
    std::vector<std::uint32_t> previous(mine.size());
    const int steps = plan_.messages[mine.front()];
    for (int j = 0; j < steps; ++j) {
      std::vector<std::uint32_t> now(mine.size());
      for (std::size_t k = 0; k < mine.size(); ++k) {
        std::vector<std::uint32_t> deps;
        if (j == 0) {
          deps = first_deps[k];
        } else {
          deps = {previous[k]};
          if (program_.tasks()[mine[k]].src.device == rank_ && incoming && *incoming != k)
            deps.push_back(previous[*incoming]);
        }
        now[k] = add_message(mine[k], j, std::move(deps));
      }
      previous = std::move(now);
    }
    for (std::size_t k = 0; k < mine.size(); ++k) frontier_[mine[k]] = make({previous[k]});
  }
};

// ASTRA-sim runs one COMP node at a time per NPU, partsim every task as soon as it may: COMP nodes
// of a rank with the same dependencies (a layer's compute and its memory traffic, started
// together) become one node of the longest duration, their FLOP summed. Nodes that waited for any
// of them wait for the folded node. Returns the folded graph and counts the nodes folded away.
RankGraph fold_siblings(RankGraph in, std::size_t& folded) {
  RankGraph out;
  std::vector<std::uint32_t> rep(in.nodes.size());
  std::map<std::vector<std::uint32_t>, std::uint32_t> comp_with_deps;
  for (std::size_t i = 0; i < in.nodes.size(); ++i) {
    ProtoNode& n = in.nodes[i];
    for (auto& d : n.deps) d = rep[d];
    out.reduce(n.deps);
    if (n.type == ChakraProtoMsg::COMP_NODE) {
      const auto [it, fresh] = comp_with_deps.try_emplace(n.deps, static_cast<std::uint32_t>(out.nodes.size()));
      if (!fresh) {
        ProtoNode& sibling = out.nodes[it->second];
        sibling.seconds = std::max(sibling.seconds, n.seconds);
        sibling.ops += n.ops;
        sibling.note += (sibling.note.empty() ? " (with tasks " : "+") + std::to_string(n.task);
        rep[i] = it->second;
        ++folded;
        continue;
      }
    }
    rep[i] = static_cast<std::uint32_t>(out.nodes.size());
    out.nodes.push_back(std::move(n));
  }
  for (ProtoNode& n : out.nodes)
    if (!n.note.empty()) n.note += ")";
  return out;
}

}  // namespace

ChakraExport export_chakra(const Program& program, int device_count, const workloads::Graph& graph,
                           const TraceContext& context, const program::Evaluation* schedule) {
  if (schedule && schedule->tasks.size() != program.tasks().size())
    throw Error("chakra export: the schedule times " + std::to_string(schedule->tasks.size()) + " tasks, the Program has " +
                std::to_string(program.tasks().size()));
  const auto& tasks = program.tasks();
  ChakraExport out;
  out.ranks.resize(static_cast<std::size_t>(device_count));
  const TaskPlan plan = plan_tasks(program, device_count, out.dropped_delays);
  for (const auto& run : program.merged_steps().runs)
    for (int task : run.transfers)
      if (is_cross_device(tasks[static_cast<std::size_t>(task)])) ++out.split_transfers;
  out.carried_latencies = program.merged_steps().latency_delays.size();
  const std::vector<double> ops = compute_ops(program, graph);

  for (int rank = 0; rank < device_count; ++rank) {
    RankTrace& trace = out.ranks[static_cast<std::size_t>(rank)];
    trace.rank = rank;
    RankGraph built = RankBuilder(program, plan, ops, rank).build();
    RankGraph g = schedule ? fold_compute_spans(std::move(built), schedule->tasks, out.spans)
                           : fold_siblings(std::move(built), out.folded_compute);
    if (g.nodes.empty()) {
      // ASTRA-sim's feeder throws on a trace without nodes ("No dependancy free nodes found"): an
      // idle device gets one COMP node of no time.
      ProtoNode idle;
      idle.task = SIZE_MAX;
      g.nodes.push_back(idle);
    }
    std::ostringstream stream;
    google::protobuf::util::SerializeDelimitedToOstream(metadata(context, rank, device_count), &stream);
    for (std::size_t id = 0; id < g.nodes.size(); ++id) {
      const ProtoNode& n = g.nodes[id];
      ChakraProtoMsg::Node node;
      node.set_id(id);
      node.set_type(n.type);
      if (n.task == SIZE_MAX) {
        node.set_name("idle");
      } else {
        node.set_name(node_name(program, tasks[n.task]) + n.note);
      }
      for (std::uint32_t d : n.deps) node.add_data_deps(d);
      add_bool_attr(node, "is_cpu_op", false);
      if (n.type == ChakraProtoMsg::COMP_NODE) {
        // The time partsim's device model gives, in whole microseconds as the schema has it (and
        // exactly, in seconds, as duration_s).
        node.set_duration_micros(static_cast<std::uint64_t>(n.micros >= 0 ? n.micros : std::llround(n.seconds * 1e6)));
        add_attr(node, "num_ops", std::llround(n.ops));
        add_double_attr(node, "duration_s", n.seconds);
        ++trace.compute_nodes;
      } else {
        const Task& t = tasks[n.task];
        add_int32_attr(node, "comm_src", t.src.device);
        add_int32_attr(node, "comm_dst", t.dst.device);
        add_int32_attr(node, "comm_tag", n.tag);
        add_attr(node, "comm_size", std::llround(n.bytes));
        ++(n.type == ChakraProtoMsg::COMM_SEND_NODE ? trace.send_nodes : trace.recv_nodes);
      }
      google::protobuf::util::SerializeDelimitedToOstream(node, &stream);
    }
    trace.bytes = std::move(stream).str();
  }
  return out;
}

}  // namespace partsim::chakra_export
