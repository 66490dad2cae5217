#include "sim/export/astra_rules.hpp"

#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <algorithm>
#include <deque>
#include <map>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "chakra_et.pb.h"
#include "sim/program/platform_binding.hpp"

namespace partsim::chakra_export {
namespace {

using ChakraProtoMsg::NodeType;

// One node as the rules need it.
struct RuleNode {
  std::uint64_t id = 0;
  std::string name;
  NodeType type = ChakraProtoMsg::INVALID_NODE;
  std::vector<std::size_t> children;  // indices of the nodes that depend on this one
  std::size_t waiting_for = 0;        // dependencies not completed yet
  double seconds = 0;                 // COMP: its duration
  int peer = -1;                      // SEND: comm_dst; RECV: comm_src
  std::int64_t tag = 0;
  double bytes = 0;
  bool ready = false;
  bool done = false;
  double start_s = 0;
  double finish_s = 0;
};

// A ready node waiting for its slot, ordered by (when it became ready, id), or by id alone.
using QueueKey = std::tuple<double, std::uint64_t, std::size_t>;

struct Rank {
  std::vector<RuleNode> nodes;
  std::set<QueueKey> comp_queue, comm_queue;
  bool comp_busy = false, comm_busy = false;
  std::size_t completed = 0;
  double finish_s = 0;
};

// A message is named as ASTRA-sim matches it: (source rank, destination rank, tag).
using MessageKey = std::tuple<int, int, std::int64_t>;

enum class EventKind : std::uint8_t { node_done, message_delivered };

struct Event {
  double time = 0;
  std::uint64_t seq = 0;  // insertion order, so equal times run in a fixed order
  EventKind kind = EventKind::node_done;
  int rank = 0;
  std::size_t node = 0;   // node_done: the node; message_delivered: the SEND's node on `rank`
  bool operator>(const Event& o) const { return std::tie(time, seq) > std::tie(o.time, o.seq); }
};

const char* type_name(NodeType type) {
  switch (type) {
    case ChakraProtoMsg::COMP_NODE: return "COMP_NODE";
    case ChakraProtoMsg::COMM_SEND_NODE: return "COMM_SEND_NODE";
    case ChakraProtoMsg::COMM_RECV_NODE: return "COMM_RECV_NODE";
    default: return "unsupported";
  }
}

std::string where(int rank, const RuleNode& n) {
  return "rank " + std::to_string(rank) + " node " + std::to_string(n.id) + " '" + n.name + "' (" + type_name(n.type) + ")";
}

// An attribute's value as a double, whichever numeric field the writer used; nullopt-like: `found` false.
bool numeric_attr(const ChakraProtoMsg::Node& node, const std::string& name, double& value) {
  for (const auto& a : node.attr()) {
    if (a.name() != name) continue;
    switch (a.value_case()) {
      case ChakraProtoMsg::AttributeProto::kDoubleVal: value = a.double_val(); return true;
      case ChakraProtoMsg::AttributeProto::kInt32Val: value = a.int32_val(); return true;
      case ChakraProtoMsg::AttributeProto::kInt64Val: value = static_cast<double>(a.int64_val()); return true;
      case ChakraProtoMsg::AttributeProto::kUint64Val: value = static_cast<double>(a.uint64_val()); return true;
      default: return false;
    }
  }
  return false;
}

double required_attr(const ChakraProtoMsg::Node& node, const std::string& name, int rank) {
  double value = 0;
  if (!numeric_attr(node, name, value))
    throw InputError("Chakra replay: rank " + std::to_string(rank) + " node " + std::to_string(node.id()) + " '" +
                     node.name() + "' has no numeric " + name + " attribute");
  return value;
}

// One rank's stream -> its nodes, dependencies resolved to indices.
Rank read_rank(const RankTrace& trace, int rank_count, const AstraRulesOptions& options) {
  const int rank = trace.rank;
  const std::string at = "Chakra replay: rank " + std::to_string(rank) + ": ";
  google::protobuf::io::ArrayInputStream input(trace.bytes.data(), static_cast<int>(trace.bytes.size()));
  bool clean_eof = false;
  ChakraProtoMsg::GlobalMetadata metadata;
  if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&metadata, &input, &clean_eof))
    throw InputError(at + "no GlobalMetadata at the start of the trace");
  std::vector<ChakraProtoMsg::Node> raw;
  while (true) {
    ChakraProtoMsg::Node node;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&node, &input, &clean_eof)) {
      if (!clean_eof) throw InputError(at + "the trace is cut short after " + std::to_string(raw.size()) + " nodes");
      break;
    }
    raw.push_back(std::move(node));
  }

  Rank r;
  r.nodes.resize(raw.size());
  std::unordered_map<std::uint64_t, std::size_t> index;
  for (std::size_t i = 0; i < raw.size(); ++i)
    if (!index.emplace(raw[i].id(), i).second) throw InputError(at + "two nodes have id " + std::to_string(raw[i].id()));
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const ChakraProtoMsg::Node& in = raw[i];
    RuleNode& n = r.nodes[i];
    n.id = in.id();
    n.name = in.name();
    n.type = in.type();
    for (std::uint64_t dep : in.data_deps()) {
      const auto found = index.find(dep);
      if (found == index.end())
        throw InputError(at + "node " + std::to_string(n.id) + " '" + n.name + "' depends on node " + std::to_string(dep) +
                         ", which the trace does not have");
      r.nodes[found->second].children.push_back(i);
      ++n.waiting_for;
    }
    switch (n.type) {
      case ChakraProtoMsg::COMP_NODE: {
        double exact = 0;
        const bool has_exact = options.duration == CompDuration::exact_seconds && numeric_attr(in, "duration_s", exact);
        n.seconds = has_exact ? exact : static_cast<double>(in.duration_micros()) * 1e-6;
        break;
      }
      case ChakraProtoMsg::COMM_SEND_NODE:
      case ChakraProtoMsg::COMM_RECV_NODE: {
        const bool send = n.type == ChakraProtoMsg::COMM_SEND_NODE;
        const double peer = required_attr(in, send ? "comm_dst" : "comm_src", rank);
        if (!(peer >= 0 && peer < rank_count))
          throw InputError(at + "node " + std::to_string(n.id) + " '" + n.name + "' names rank " + std::to_string(peer) +
                           " of " + std::to_string(rank_count) + " traces");
        n.peer = static_cast<int>(peer);
        n.tag = static_cast<std::int64_t>(required_attr(in, "comm_tag", rank));
        n.bytes = required_attr(in, "comm_size", rank);
        break;
      }
      default:
        throw InputError(at + "node " + std::to_string(n.id) + " '" + n.name + "' is of type " + std::to_string(n.type) +
                         ": the replay runs COMP_NODE, COMM_SEND_NODE and COMM_RECV_NODE only");
    }
  }
  return r;
}

class Replay {
 public:
  Replay(std::vector<Rank> ranks, const MessageTime& message_time, const AstraRulesOptions& options)
      : ranks_(std::move(ranks)), message_time_(message_time), options_(options) {}

  void run() {
    for (std::size_t r = 0; r < ranks_.size(); ++r)
      for (std::size_t i = 0; i < ranks_[r].nodes.size(); ++i)
        if (ranks_[r].nodes[i].waiting_for == 0) make_ready(static_cast<int>(r), i, 0.0);
    issue_all(0.0);
    // One batch per distinct time: every event at that time first, then the slots are filled, so
    // nodes that became ready at the same time queue in id order, whatever order their events ran in.
    while (!events_.empty()) {
      const double now = events_.top().time;
      while (!events_.empty() && events_.top().time == now) {
        const Event e = events_.top();
        events_.pop();
        if (e.kind == EventKind::node_done) complete(e.rank, e.node, now);
        else deliver(e.rank, e.node, now);
      }
      issue_all(now);
    }
  }

  std::vector<Rank>& ranks() { return ranks_; }

 private:
  void schedule(double time, EventKind kind, int rank, std::size_t node) {
    events_.push({time, next_seq_++, kind, rank, node});
  }

  Rank& rank(int r) { return ranks_[static_cast<std::size_t>(r)]; }

  QueueKey key(const RuleNode& n, std::size_t index, double now) const {
    return {options_.order == ReadyOrder::fifo ? now : 0.0, n.id, index};
  }

  void make_ready(int r, std::size_t i, double now) {
    RuleNode& n = rank(r).nodes[i];
    n.ready = true;
    n.start_s = now;
    switch (n.type) {
      case ChakraProtoMsg::COMP_NODE: rank(r).comp_queue.insert(key(n, i, now)); break;
      case ChakraProtoMsg::COMM_SEND_NODE: rank(r).comm_queue.insert(key(n, i, now)); break;
      default:  // RECV
        if (options_.recv_takes_comm_slot) rank(r).comm_queue.insert(key(n, i, now));
        else post_recv(r, i, now);
    }
  }

  // A RECV is posted: it completes now if its message is already here, else when it arrives.
  void post_recv(int r, std::size_t i, double now) {
    const RuleNode& n = rank(r).nodes[i];
    const MessageKey m{n.peer, r, n.tag};
    auto arrived = arrived_.find(m);
    if (arrived != arrived_.end() && arrived->second > 0) {
      if (--arrived->second == 0) arrived_.erase(arrived);
      complete(r, i, now);
    } else {
      posted_[m].push_back(i);
    }
  }

  // Fills the free slots of every rank from the heads of their queues, until none is left to
  // fill: a SEND completed at issue, or a RECV whose message is already here, frees its slot at once.
  void issue_all(double now) {
    for (std::size_t ri = 0; ri < ranks_.size(); ++ri)
      while (issue(static_cast<int>(ri), now)) {
      }
  }

  // Fills rank r's free slots once; false when it started nothing.
  bool issue(int r, double now) {
    Rank& k = rank(r);
    bool started = false;
    if (!k.comp_busy && !k.comp_queue.empty()) {
      started = true;
      const std::size_t i = std::get<2>(*k.comp_queue.begin());
      k.comp_queue.erase(k.comp_queue.begin());
      k.comp_busy = true;
      k.nodes[i].start_s = now;
      schedule(now + k.nodes[i].seconds, EventKind::node_done, r, i);
    }
    if (!k.comm_busy && !k.comm_queue.empty()) {
      started = true;
      const std::size_t i = std::get<2>(*k.comm_queue.begin());
      k.comm_queue.erase(k.comm_queue.begin());
      RuleNode& n = k.nodes[i];
      n.start_s = now;
      if (n.type == ChakraProtoMsg::COMM_RECV_NODE) {
        k.comm_busy = true;  // held until the message comes (recv_takes_comm_slot)
        post_recv(r, i, now);
        return started;
      }
      const double delivery = now + message_time_(r, n.peer, n.bytes);
      schedule(delivery, EventKind::message_delivered, r, i);
      if (options_.send_completes == SendCompletion::at_issue) {
        complete(r, i, now);
      } else {
        k.comm_busy = options_.one_send_in_flight;
        schedule(delivery, EventKind::node_done, r, i);
      }
    }
    return started;
  }

  // The message of SEND `i` of rank `src` arrives at its destination.
  void deliver(int src, std::size_t i, double now) {
    const RuleNode& send = rank(src).nodes[i];
    const MessageKey m{src, send.peer, send.tag};
    auto posted = posted_.find(m);
    if (posted != posted_.end() && !posted->second.empty()) {
      const std::size_t recv = posted->second.front();
      posted->second.pop_front();
      if (posted->second.empty()) posted_.erase(posted);
      complete(send.peer, recv, now);
    } else {
      ++arrived_[m];
    }
  }

  void complete(int r, std::size_t i, double now) {
    Rank& k = rank(r);
    RuleNode& n = k.nodes[i];
    if (n.done) return;  // a SEND completed at issue gets no second completion
    n.done = true;
    n.finish_s = now;
    if (n.type == ChakraProtoMsg::COMP_NODE) k.comp_busy = false;
    else if ((n.type == ChakraProtoMsg::COMM_SEND_NODE && options_.one_send_in_flight) || options_.recv_takes_comm_slot)
      k.comm_busy = false;
    ++k.completed;
    k.finish_s = std::max(k.finish_s, now);
    for (std::size_t c : n.children)
      if (--k.nodes[c].waiting_for == 0) make_ready(r, c, now);
  }

  std::vector<Rank> ranks_;
  const MessageTime& message_time_;
  AstraRulesOptions options_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t next_seq_ = 0;
  std::map<MessageKey, std::size_t> arrived_;              // delivered messages no RECV has taken yet
  std::map<MessageKey, std::deque<std::size_t>> posted_;   // RECVs waiting for their message
};

// The node that explains why rank `r` stopped: a ready RECV still waiting for its message, else
// the first node (trace order) that never became ready.
[[noreturn]] void throw_stuck(int r, const Rank& k) {
  for (const RuleNode& n : k.nodes)
    if (n.ready && !n.done && n.type == ChakraProtoMsg::COMM_RECV_NODE)
      throw AstraRulesError(r, static_cast<std::int64_t>(n.id),
                            "Chakra replay: deadlock: " + where(r, n) + " waits for a message from rank " +
                                std::to_string(n.peer) + " with tag " + std::to_string(n.tag) + " that is never sent (" +
                                std::to_string(k.nodes.size() - k.completed) + " of " + std::to_string(k.nodes.size()) +
                                " nodes of the rank never ran)");
  for (const RuleNode& n : k.nodes)
    if (!n.done)
      throw AstraRulesError(r, static_cast<std::int64_t>(n.id),
                            "Chakra replay: deadlock: " + where(r, n) + " never runs: " +
                                std::to_string(n.waiting_for) + " of its dependencies never complete (" +
                                std::to_string(k.nodes.size() - k.completed) + " of " + std::to_string(k.nodes.size()) +
                                " nodes of the rank never ran)");
  throw Error("Chakra replay: rank " + std::to_string(r) + " stopped with every node done");  // not reached
}

}  // namespace

AstraReplay replay_astra_rules(const ChakraExport& traces, const MessageTime& message_time,
                               const AstraRulesOptions& options) {
  const int rank_count = static_cast<int>(traces.ranks.size());
  std::vector<Rank> ranks;
  ranks.reserve(traces.ranks.size());
  for (int r = 0; r < rank_count; ++r) {
    const RankTrace& trace = traces.ranks[static_cast<std::size_t>(r)];
    if (trace.rank != r)
      throw InputError("Chakra replay: trace " + std::to_string(r) + " is of rank " + std::to_string(trace.rank) +
                       ": ranks must be 0, 1, 2, ... in order");
    ranks.push_back(read_rank(trace, rank_count, options));
    if (ranks.back().nodes.empty() && !options.allow_empty_ranks)
      throw AstraRulesError(r, -1,
                            "Chakra replay: rank " + std::to_string(r) +
                                " has no nodes (ASTRA-sim's feeder stops on such a rank: \"No dependancy free nodes found\")");
  }

  Replay replay(std::move(ranks), message_time, options);
  replay.run();

  AstraReplay out;
  for (int r = 0; r < rank_count; ++r) {
    const Rank& k = replay.ranks()[static_cast<std::size_t>(r)];
    if (k.completed != k.nodes.size()) throw_stuck(r, k);
    out.rank_finish_s.push_back(k.finish_s);
    out.makespan_s = std::max(out.makespan_s, k.finish_s);
    out.nodes_executed += k.completed;
    std::vector<ReplayedNode> done;
    done.reserve(k.nodes.size());
    for (const RuleNode& n : k.nodes) done.push_back({n.id, n.name, static_cast<int>(n.type), n.start_s, n.finish_s});
    out.nodes.push_back(std::move(done));
  }
  return out;
}

MessageTime platform_message_time(const topology::TopologyGraph& graph) {
  // The closed form's own function, so the two agree to the last bit on every transfer.
  program::TransferTime transfer = program::uncontended_transfer_time(graph);
  return [transfer = std::move(transfer)](int src, int dst, double bytes) {
    if (src == dst) return 0.0;
    return transfer(program::Endpoint{src, -1, false}, program::Endpoint{dst, -1, false}, bytes);
  };
}

}  // namespace partsim::chakra_export
