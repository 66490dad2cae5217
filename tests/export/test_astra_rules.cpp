// Chakra traces replayed under ASTRA-sim's execution rules (sim/export/astra_rules.hpp): hand-made
// traces whose every time is computed by hand, then a lowered data-parallel plan exported and
// replayed against partsim's closed form (issue 42: the check that needs no ASTRA-sim in CI).
#include <gtest/gtest.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "chakra_et.pb.h"
#include "sim/common/error.hpp"
#include "sim/export/astra_rules.hpp"
#include "sim/lowering/sharding_lowering.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/platform_binding.hpp"
#include "tests/lowering_sharding/two_fc.hpp"
#include "topology/topology_graph.hpp"

using namespace partsim;
using chakra_export::AstraRulesError;
using chakra_export::AstraRulesOptions;
using chakra_export::replay_astra_rules;

namespace {

constexpr double kUs = 1e-6;  // seconds per microsecond

// One rank's trace written node by node, as the exporter writes it (duration_s exact, comm_*
// attributes int32, comm_size int64).
class TraceBuilder {
 public:
  TraceBuilder& comp(std::uint64_t id, double seconds, std::vector<std::uint64_t> deps = {}) {
    auto& n = add(id, ChakraProtoMsg::COMP_NODE, deps);
    n.set_duration_micros(static_cast<std::uint64_t>(std::llround(seconds / kUs)));
    auto* a = n.add_attr();
    a->set_name("duration_s");
    a->set_double_val(seconds);
    return *this;
  }
  TraceBuilder& send(std::uint64_t id, int src, int dst, int tag, std::int64_t bytes, std::vector<std::uint64_t> deps = {}) {
    comm(add(id, ChakraProtoMsg::COMM_SEND_NODE, deps), src, dst, tag, bytes);
    return *this;
  }
  TraceBuilder& recv(std::uint64_t id, int src, int dst, int tag, std::int64_t bytes, std::vector<std::uint64_t> deps = {}) {
    comm(add(id, ChakraProtoMsg::COMM_RECV_NODE, deps), src, dst, tag, bytes);
    return *this;
  }
  chakra_export::RankTrace trace(int rank) const {
    std::ostringstream stream;
    ChakraProtoMsg::GlobalMetadata meta;
    meta.set_version(chakra_export::kChakraVersion);
    google::protobuf::util::SerializeDelimitedToOstream(meta, &stream);
    for (const auto& n : nodes_) google::protobuf::util::SerializeDelimitedToOstream(n, &stream);
    chakra_export::RankTrace t;
    t.rank = rank;
    t.bytes = std::move(stream).str();
    return t;
  }

 private:
  ChakraProtoMsg::Node& add(std::uint64_t id, ChakraProtoMsg::NodeType type, const std::vector<std::uint64_t>& deps) {
    auto& n = nodes_.emplace_back();
    n.set_id(id);
    n.set_name("n" + std::to_string(id));
    n.set_type(type);
    for (auto d : deps) n.add_data_deps(d);
    return n;
  }
  static void comm(ChakraProtoMsg::Node& n, int src, int dst, int tag, std::int64_t bytes) {
    for (const auto& [name, value] : {std::pair{"comm_src", src}, {"comm_dst", dst}, {"comm_tag", tag}}) {
      auto* a = n.add_attr();
      a->set_name(name);
      a->set_int32_val(value);
    }
    auto* a = n.add_attr();
    a->set_name("comm_size");
    a->set_int64_val(bytes);
  }
  std::vector<ChakraProtoMsg::Node> nodes_;
};

chakra_export::ChakraExport traces(const std::vector<TraceBuilder>& ranks) {
  chakra_export::ChakraExport out;
  for (std::size_t r = 0; r < ranks.size(); ++r) out.ranks.push_back(ranks[r].trace(static_cast<int>(r)));
  return out;
}

// Every message takes 2 us, whatever its size and route.
const chakra_export::MessageTime kTwoUs = [](int, int, double) { return 2 * kUs; };

}  // namespace

// Two independent COMPs of one rank take the compute slot in turn: 3 + 5 = 8 us, not max(3, 5).
TEST(AstraRules, ComputesOfARankSerialise) {
  TraceBuilder r0;
  r0.comp(0, 3 * kUs).comp(1, 5 * kUs);
  const auto out = replay_astra_rules(traces({r0}), kTwoUs);
  EXPECT_NEAR(out.makespan_s, 8 * kUs, 1e-18);
  EXPECT_EQ(out.nodes_executed, 2u);
  EXPECT_NEAR(out.nodes[0][1].start_s, 3 * kUs, 1e-18);  // ready at 0, started when node 0 ended
}

// duration_s is exact; duration_micros is what ASTRA-sim reads (2.6 us -> 3 us).
TEST(AstraRules, ComputeDurationExactOrWholeMicroseconds) {
  TraceBuilder r0;
  r0.comp(0, 2.6 * kUs).comp(1, 1.2 * kUs, {0});
  EXPECT_NEAR(replay_astra_rules(traces({r0}), kTwoUs).makespan_s, 3.8 * kUs, 1e-18);
  AstraRulesOptions micros;
  micros.duration = chakra_export::CompDuration::whole_micros;
  EXPECT_NEAR(replay_astra_rules(traces({r0}), kTwoUs, micros).makespan_s, 4 * kUs, 1e-18);
}

// A 3 us COMP, then a SEND of 2 us to rank 1: the RECV completes at 3 + 2 = 5 us. The sender's
// SEND completes at delivery too (5 us), or at its start (3 us) with SendCompletion::at_issue.
TEST(AstraRules, SendAndReceiveAfterACompute) {
  TraceBuilder r0, r1;
  r0.comp(0, 3 * kUs).send(1, 0, 1, 7, 1000, {0});
  r1.recv(0, 0, 1, 7, 1000);
  const auto out = replay_astra_rules(traces({r0, r1}), kTwoUs);
  EXPECT_NEAR(out.rank_finish_s[1], 5 * kUs, 1e-18);
  EXPECT_NEAR(out.rank_finish_s[0], 5 * kUs, 1e-18);
  EXPECT_NEAR(out.makespan_s, 5 * kUs, 1e-18);
  EXPECT_EQ(out.nodes_executed, 3u);
  AstraRulesOptions at_issue;
  at_issue.send_completes = chakra_export::SendCompletion::at_issue;
  const auto early = replay_astra_rules(traces({r0, r1}), kTwoUs, at_issue);
  EXPECT_NEAR(early.rank_finish_s[0], 3 * kUs, 1e-18);
  EXPECT_NEAR(early.rank_finish_s[1], 5 * kUs, 1e-18);
}

// A message that arrives (at 2 us) before its RECV is ready (after a 10 us COMP) waits for it.
TEST(AstraRules, EarlyMessageWaitsForItsReceive) {
  TraceBuilder r0, r1;
  r0.send(0, 0, 1, 4, 64);
  r1.comp(0, 10 * kUs).recv(1, 0, 1, 4, 64, {0});
  const auto out = replay_astra_rules(traces({r0, r1}), kTwoUs);
  EXPECT_NEAR(out.rank_finish_s[0], 2 * kUs, 1e-18);
  EXPECT_NEAR(out.rank_finish_s[1], 10 * kUs, 1e-18);
}

// Two SENDs of a rank, both ready at 0: one in flight at a time, so the second message arrives at
// 2 + 2 = 4 us; with SENDs that complete at issue both leave at 0 and arrive at 2 us.
TEST(AstraRules, SendsOfARankSerialise) {
  TraceBuilder r0, r1;
  r0.send(0, 0, 1, 1, 100).send(1, 0, 1, 2, 100);
  r1.recv(0, 0, 1, 1, 100).recv(1, 0, 1, 2, 100);
  const auto out = replay_astra_rules(traces({r0, r1}), kTwoUs);
  EXPECT_NEAR(out.nodes[1][0].finish_s, 2 * kUs, 1e-18);
  EXPECT_NEAR(out.nodes[1][1].finish_s, 4 * kUs, 1e-18);
  EXPECT_NEAR(out.makespan_s, 4 * kUs, 1e-18);
  AstraRulesOptions at_issue;
  at_issue.send_completes = chakra_export::SendCompletion::at_issue;
  EXPECT_NEAR(replay_astra_rules(traces({r0, r1}), kTwoUs, at_issue).makespan_s, 2 * kUs, 1e-18);
}

// one_send_in_flight false: SENDs of a rank overlap but each completes on delivery. Rank 0 sends
// A and B at 0 (both arrive at 2 us) and C after A: C leaves at 2 and arrives at 4 us (with
// SENDs completing at issue C would leave at 0; with one SEND in flight, A 0-2, B 2-4, C 4-6).
TEST(AstraRules, SendsOverlapButCompleteOnDelivery) {
  TraceBuilder r0, r1;
  r0.send(0, 0, 1, 1, 100).send(1, 0, 1, 2, 100).send(2, 0, 1, 3, 100, {0});
  r1.recv(0, 0, 1, 1, 100).recv(1, 0, 1, 2, 100).recv(2, 0, 1, 3, 100);
  AstraRulesOptions overlap;
  overlap.one_send_in_flight = false;
  const auto out = replay_astra_rules(traces({r0, r1}), kTwoUs, overlap);
  EXPECT_NEAR(out.nodes[1][1].finish_s, 2 * kUs, 1e-18);
  EXPECT_NEAR(out.nodes[0][2].start_s, 2 * kUs, 1e-18);
  EXPECT_NEAR(out.makespan_s, 4 * kUs, 1e-18);
  EXPECT_NEAR(replay_astra_rules(traces({r0, r1}), kTwoUs).makespan_s, 6 * kUs, 1e-18);
}

// Rank 0 posts a RECV (id 0; its message leaves rank 1 after a 5 us COMP) and has a SEND (id 1)
// that rank 1 receives after its own SEND. By default a RECV takes no slot: rank 0's SEND leaves
// at 0 and arrives at 2 us; rank 0's RECV completes at 5 + 2 = 7 us, and so does rank 1's (its
// message waited). When a RECV holds the comm slot (recv_takes_comm_slot, as HardwareResource.cc
// counts it), rank 0's RECV (lower id) holds the slot until 7 us and its SEND arrives at 9 us.
TEST(AstraRules, ReceiveTakesNoSendSlotUnlessAsked) {
  TraceBuilder r0, r1;
  r0.recv(0, 1, 0, 3, 10).send(1, 0, 1, 4, 10);
  r1.comp(0, 5 * kUs).send(1, 1, 0, 3, 10, {0}).recv(2, 0, 1, 4, 10, {1});
  const auto out = replay_astra_rules(traces({r0, r1}), kTwoUs);
  EXPECT_NEAR(out.nodes[0][1].finish_s, 2 * kUs, 1e-18);
  EXPECT_NEAR(out.nodes[0][0].finish_s, 7 * kUs, 1e-18);
  EXPECT_NEAR(out.nodes[1][2].finish_s, 7 * kUs, 1e-18);
  AstraRulesOptions slot;
  slot.recv_takes_comm_slot = true;
  const auto held = replay_astra_rules(traces({r0, r1}), kTwoUs, slot);
  EXPECT_NEAR(held.nodes[0][1].start_s, 7 * kUs, 1e-18);
  EXPECT_NEAR(held.nodes[1][2].finish_s, 9 * kUs, 1e-18);
  EXPECT_NEAR(held.makespan_s, 9 * kUs, 1e-18);
}

// With a RECV holding the comm slot, two ranks that each post a RECV before the SEND the other
// waits for (rank 1's RECV no longer waits for its SEND) deadlock; without, they do not.
TEST(AstraRules, ReceivesHoldingTheSlotCanDeadlock) {
  TraceBuilder r0, r1;
  r0.recv(0, 1, 0, 3, 10).send(1, 0, 1, 4, 10);
  r1.recv(0, 0, 1, 4, 10).send(1, 1, 0, 3, 10);
  EXPECT_NEAR(replay_astra_rules(traces({r0, r1}), kTwoUs).makespan_s, 2 * kUs, 1e-18);
  AstraRulesOptions slot;
  slot.recv_takes_comm_slot = true;
  EXPECT_THROW(replay_astra_rules(traces({r0, r1}), kTwoUs, slot), AstraRulesError);
}

// A RECV whose SEND never comes: the error names rank 1, node 1 (after its COMP).
TEST(AstraRules, ReceiveWithoutSendIsADeadlock) {
  TraceBuilder r0, r1;
  r0.comp(0, 1 * kUs);
  r1.comp(0, 1 * kUs).recv(1, 0, 1, 9, 8, {0});
  try {
    replay_astra_rules(traces({r0, r1}), kTwoUs);
    FAIL() << "no error";
  } catch (const AstraRulesError& e) {
    EXPECT_EQ(e.rank(), 1);
    EXPECT_EQ(e.node(), 1);
    EXPECT_NE(std::string(e.what()).find("rank 1 node 1 'n1' (COMM_RECV_NODE)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tag 9"), std::string::npos) << e.what();
  }
}

// Two nodes that wait for each other never run: the first of them is named.
TEST(AstraRules, DependencyCycleIsADeadlock) {
  TraceBuilder r0;
  r0.comp(0, 1 * kUs).comp(1, 1 * kUs, {2}).comp(2, 1 * kUs, {1});
  try {
    replay_astra_rules(traces({r0}), kTwoUs);
    FAIL() << "no error";
  } catch (const AstraRulesError& e) {
    EXPECT_EQ(e.rank(), 0);
    EXPECT_EQ(e.node(), 1);
  }
}

// A rank with the metadata only: ASTRA-sim's feeder stops on it ("No dependancy free nodes found").
TEST(AstraRules, RankWithoutNodesIsAnError) {
  TraceBuilder r0, r1;
  r0.comp(0, 1 * kUs);
  try {
    replay_astra_rules(traces({r0, r1}), kTwoUs);
    FAIL() << "no error";
  } catch (const AstraRulesError& e) {
    EXPECT_EQ(e.rank(), 1);
    EXPECT_EQ(e.node(), -1);
    EXPECT_NE(std::string(e.what()).find("No dependancy free nodes found"), std::string::npos) << e.what();
  }
  AstraRulesOptions allow;
  allow.allow_empty_ranks = true;
  const auto out = replay_astra_rules(traces({r0, r1}), kTwoUs, allow);
  EXPECT_NEAR(out.makespan_s, 1 * kUs, 1e-18);
  EXPECT_EQ(out.rank_finish_s[1], 0.0);
}

TEST(AstraRules, MalformedTracesAreInputErrors) {
  TraceBuilder r0;
  r0.comp(0, 1 * kUs, {5});  // no node 5
  EXPECT_THROW(replay_astra_rules(traces({r0}), kTwoUs), InputError);
  TraceBuilder r1;
  r1.send(0, 0, 3, 1, 8);  // rank 3 of 1
  EXPECT_THROW(replay_astra_rules(traces({r1}), kTwoUs), InputError);
  auto cut = traces({TraceBuilder().comp(0, 1 * kUs)});
  cut.ranks[0].bytes.pop_back();
  EXPECT_THROW(replay_astra_rules(cut, kTwoUs), InputError);
}

// The platform's message time is the closed form's transfer time: on star(2) with 1 GB/s links
// and 1 us per link, 1e6 B from device 0 to 1 crosses two links: 2 us + 1e6 / 1e9 s = 1.002 ms.
TEST(AstraRules, PlatformMessageTimeIsTheClosedFormTransferTime) {
  const topology::SystemSpec spec = fixtures::star(2, "1000GB/s", "1us");
  const topology::TopologyGraph topo(spec);
  const auto message_time = chakra_export::platform_message_time(topo);
  const auto transfer = program::uncontended_transfer_time(topo);
  EXPECT_EQ(message_time(0, 1, 1e6), transfer({0, -1, false}, {1, -1, false}, 1e6));
  EXPECT_NEAR(message_time(0, 1, 1e6), 2e-6 + 1e-3, 1e-15);
  EXPECT_EQ(message_time(1, 1, 1e6), 0.0);
}

namespace {

// Data parallelism of two_fc on a star of 2 devices (as test_chakra_trace.cpp builds it): the
// makespan under ASTRA-sim's rules against partsim's closed form of the same Program.
struct DataParallelRun {
  double closed_form_s = 0;
  chakra_export::AstraReplay replay;
};

DataParallelRun data_parallel_run(const std::string& latency, const AstraRulesOptions& options = {},
                                  plan::GradientSyncOrder order = plan::GradientSyncOrder::concurrent,
                                  bool spans = false) {
  const workloads::Graph g = fixtures::two_fc();
  const topology::SystemSpec spec = fixtures::star(2, "1000GB/s", latency);
  const topology::TopologyGraph topo(spec);
  const plan::Sharding dp = plan::mesh_sharding({}, {{plan::ShardDim::batch, 2}});
  plan::Plan p = fixtures::plan_of(g, std::vector<plan::Sharding>(g.size(), dp));
  p.schedule.gradient_sync_order = order;
  const program::Program program = lowering::lower_sharding({p, spec, g, topo});
  const program::Evaluation closed = program::ClosedFormEvaluator(program::uncontended_transfer_time(topo)).evaluate(program);
  const auto exported =
      chakra_export::export_chakra(program, 2, g, {"two_fc", "dp", "star", "training"}, spans ? &closed : nullptr);
  DataParallelRun run;
  run.closed_form_s = closed.makespan_s;
  run.replay = replay_astra_rules(exported, chakra_export::platform_message_time(topo), options);
  return run;
}

}  // namespace

// Every node of both ranks runs, whatever the makespans say.
TEST(AstraRules, DataParallelPlanRunsToTheEnd) {
  for (const char* latency : {"0s", "1us"}) {
    const DataParallelRun run = data_parallel_run(latency);
    std::size_t nodes = 0;
    for (const auto& rank : run.replay.nodes) nodes += rank.size();
    EXPECT_EQ(run.replay.nodes_executed, nodes) << latency;
    EXPECT_GT(run.replay.makespan_s, 0.0) << latency;
    // The rules only ever delay a node relative to the closed form's dependency-only schedule.
    EXPECT_GE(run.replay.makespan_s, run.closed_form_s * (1 - 1e-9)) << latency;
  }
}

// Issue 42: the export replayed under ASTRA-sim's rules takes partsim's closed-form time when the
// plan, like ASTRA-sim, gives a device one communication stream (gradient_sync_order in_order:
// one gradient all-reduce at a time, NCCL's single stream): the merged ring steps written one
// message per step, their latencies carried by the messages, the compute folded, nothing lost.
TEST(AstraRules, DataParallelPlanWithOneStreamEqualsClosedForm) {
  for (const bool spans : {false, true})
    for (const char* latency : {"0s", "1us"}) {
      const DataParallelRun run = data_parallel_run(latency, {}, plan::GradientSyncOrder::in_order, spans);
      EXPECT_NEAR(run.replay.makespan_s, run.closed_form_s, 1e-9 * run.closed_form_s)
          << "latency " << latency << (spans ? ", compute as busy spans" : ", compute task by task");
    }
}

// With concurrent gradient all-reduces (the default) a rank has fc2's and fc1's gradient messages
// (2,097,152 B each) on the wire at once in partsim's closed form; ASTRA-sim's one SEND at a time
// sends fc1's only after fc2's is delivered, so the replay ends later than the closed form.
TEST(AstraRules, ConcurrentAllReducesAreSerialisedByOneSendSlot) {
  const DataParallelRun run = data_parallel_run("0s");
  EXPECT_GT(run.replay.makespan_s, run.closed_form_s * (1 + 1e-6));
}

// The one rule the exported data-parallel plan breaks is one SEND in flight per rank: with a
// rank's SENDs overlapping (completing on delivery or, here equivalently, at issue), as the closed
// form's transfers do, the replay equals the closed form, latency COMP nodes included.
TEST(AstraRules, DataParallelPlanEqualsClosedFormWhenSendsOverlap) {
  AstraRulesOptions at_issue, overlap;
  at_issue.send_completes = chakra_export::SendCompletion::at_issue;
  overlap.one_send_in_flight = false;
  for (const auto& options : {at_issue, overlap})
    for (const char* latency : {"0s", "1us"}) {
      const DataParallelRun run = data_parallel_run(latency, options);
      EXPECT_NEAR(run.replay.makespan_s, run.closed_form_s, 1e-9 * run.closed_form_s) << "latency " << latency;
    }
}
