// Chakra export of a Program (sim/export/chakra_trace.hpp): a hand-built Program whose every node,
// dependency, tag and size is counted by hand, and a lowered data-parallel plan checked against
// its Program.
#include <gtest/gtest.h>

#include <map>

#include "sim/common/error.hpp"
#include "sim/export/astra_rules.hpp"
#include "sim/export/chakra_trace.hpp"
#include "sim/lowering/sharding_lowering.hpp"
#include "sim/program/closed_form.hpp"
#include "tests/export/chakra_reader.hpp"
#include "tests/lowering_sharding/two_fc.hpp"
#include "topology/topology_graph.hpp"

using namespace partsim;
using partsim::test::attributes;
using partsim::test::deps;
using partsim::test::read_chakra;
using NodeIds = std::vector<std::uint64_t>;

namespace {

const chakra_export::TraceContext kContext{"two_fc", "hand", "star", "training"};

program::Endpoint device(int d) { return {d, -1, false}; }

// Three devices; fc1 and fc2 of fixtures::two_fc() (FWD 134,152,192 FLOP each).
//   t0 compute fc1 fwd d0 2 us            t5 compute fc2 fwd d1 4 us, after t4
//   t1 compute fc1 fwd d1 6 us            t6 transfer d1 -> d1 500 B, after t5 (inside a device)
//   t2 transfer d0 -> d1 1000 B, after t0 t7 compute fc2 fwd d2 1 us, after t0 (another rank)
//   t3 latency delay 3 us, after t2       t8 transfer d1 -> d0 2048 B, after t6
//   t4 join (0 s), after t1 t3
program::Program hand_program() {
  program::Program p;
  const int fc1 = p.add_layer("fc1"), fc2 = p.add_layer("fc2");
  using plan::Pass;
  p.add_compute(fc1, Pass::fwd, "compute", device(0), 2e-6, {});
  p.add_compute(fc1, Pass::fwd, "compute", device(1), 6e-6, {});
  p.add_transfer(fc1, Pass::fwd, "activations", device(0), device(1), 1000, {0});
  p.add_delay(fc1, Pass::fwd, "activations latency", 3e-6, {2});
  p.add_delay(fc1, Pass::fwd, "join", 0.0, {1, 3});
  p.add_compute(fc2, Pass::fwd, "compute", device(1), 4e-6, {4});
  p.add_transfer(fc2, Pass::fwd, "local copy", device(1), device(1), 500, {5});
  p.add_compute(fc2, Pass::fwd, "compute", device(2), 1e-6, {0});
  p.add_transfer(fc2, Pass::bwd, "gradient", device(1), device(0), 2048, {6});
  return p;
}

}  // namespace

// Expected, rank by rank (ids in task order):
//   d0: 0 = t0 COMP; 1 = t2 SEND (deps 0); 2 = t8 RECV, no deps: t8 waited for t2's send only
//       through d1's work (t6, t5), and its message carries that wait
//   d1: 0 = t1 COMP; 1 = t2 RECV; 2 = t3 COMP (the latency, on the transfer's destination; deps 1);
//       3 = t5 COMP (deps 0, 2 through the join); 4 = t8 SEND (deps 3; t6 has no node)
//   d2: 0 = t7 COMP, no deps (t0 is on d0: the wait crosses ranks without a transfer)
// num_ops: fc1 FWD shared 2:6 -> 33,538,048 and 100,614,144; fc2 FWD 4:1 -> 107,321,753.6 and
// 26,830,438.4, rounded.
TEST(ChakraTrace, HandProgramNodesDependenciesAndSizes) {
  const auto out = chakra_export::export_chakra(hand_program(), 3, fixtures::two_fc(), kContext);
  ASSERT_EQ(out.ranks.size(), 3u);
  EXPECT_EQ(out.dropped_delays, 0u);
  const auto d0 = read_chakra(out.ranks[0].bytes);
  const auto d1 = read_chakra(out.ranks[1].bytes);
  const auto d2 = read_chakra(out.ranks[2].bytes);
  EXPECT_EQ(d0.metadata.version(), "0.0.4");
  ASSERT_EQ(d0.nodes.size(), 3u);
  ASSERT_EQ(d1.nodes.size(), 5u);
  ASSERT_EQ(d2.nodes.size(), 1u);
  using ChakraProtoMsg::COMM_RECV_NODE;
  using ChakraProtoMsg::COMM_SEND_NODE;
  using ChakraProtoMsg::COMP_NODE;

  EXPECT_EQ(d0.nodes[0].type(), COMP_NODE);
  EXPECT_EQ(d0.nodes[0].name(), "fc1:fwd:compute");
  EXPECT_EQ(d0.nodes[0].duration_micros(), 2u);
  EXPECT_EQ(attributes(d0.nodes[0]).i64("num_ops"), 33'538'048);
  EXPECT_FALSE(attributes(d0.nodes[0]).flag("is_cpu_op"));
  EXPECT_EQ(d0.nodes[1].type(), COMM_SEND_NODE);
  EXPECT_EQ(deps(d0.nodes[1]), NodeIds{0});
  EXPECT_EQ(d0.nodes[2].type(), COMM_RECV_NODE);
  EXPECT_TRUE(deps(d0.nodes[2]).empty());

  EXPECT_EQ(attributes(d1.nodes[0]).i64("num_ops"), 100'614'144);
  EXPECT_EQ(d1.nodes[1].type(), COMM_RECV_NODE);
  EXPECT_TRUE(deps(d1.nodes[1]).empty());
  EXPECT_EQ(d1.nodes[2].type(), COMP_NODE);
  EXPECT_EQ(d1.nodes[2].name(), "fc1:fwd:activations latency");
  EXPECT_EQ(d1.nodes[2].duration_micros(), 3u);
  EXPECT_EQ(attributes(d1.nodes[2]).i64("num_ops"), 0);
  EXPECT_EQ(deps(d1.nodes[2]), NodeIds{1});
  EXPECT_EQ(deps(d1.nodes[3]), (NodeIds{0, 2}));
  EXPECT_EQ(attributes(d1.nodes[3]).i64("num_ops"), 107'321'754);
  EXPECT_EQ(d1.nodes[4].type(), COMM_SEND_NODE);
  EXPECT_EQ(deps(d1.nodes[4]), NodeIds{3});

  EXPECT_TRUE(deps(d2.nodes[0]).empty());
  EXPECT_EQ(attributes(d2.nodes[0]).i64("num_ops"), 26'830'438);

  // The pairs: t2 (the first message: tag 0, 1000 B, 0 -> 1) and t8 (tag 1, 2048 B, 1 -> 0), the
  // same on both sides.
  for (const auto* node : {&d0.nodes[1], &d1.nodes[1]}) {
    const auto a = attributes(*node);
    EXPECT_EQ(a.i32("comm_tag"), 0);
    EXPECT_EQ(a.i64("comm_size"), 1000);
    EXPECT_EQ(a.i32("comm_src"), 0);
    EXPECT_EQ(a.i32("comm_dst"), 1);
  }
  for (const auto* node : {&d1.nodes[4], &d0.nodes[2]}) {
    const auto a = attributes(*node);
    EXPECT_EQ(a.i32("comm_tag"), 1);
    EXPECT_EQ(a.i64("comm_size"), 2048);
    EXPECT_EQ(a.i32("comm_src"), 1);
    EXPECT_EQ(a.i32("comm_dst"), 0);
  }
  EXPECT_EQ(out.ranks[1].compute_nodes, 3u);
  EXPECT_EQ(out.ranks[1].send_nodes, 1u);
  EXPECT_EQ(out.ranks[1].recv_nodes, 1u);
}

// The framing by hand, without protobuf's reader: a varint byte count, then exactly that many
// bytes of GlobalMetadata; a rank without work then has one COMP node of no time (ASTRA-sim's
// feeder throws on a trace without nodes: "No dependancy free nodes found").
TEST(ChakraTrace, DeviceWithoutWorkHasOneIdleNode) {
  const auto out = chakra_export::export_chakra(hand_program(), 4, fixtures::two_fc(), kContext);
  const std::string& bytes = out.ranks[3].bytes;
  std::size_t length = 0, pos = 0;
  for (int shift = 0; pos < bytes.size(); shift += 7) {
    const auto b = static_cast<unsigned char>(bytes[pos++]);
    length |= static_cast<std::size_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) break;
  }
  ChakraProtoMsg::GlobalMetadata meta;
  ASSERT_TRUE(meta.ParseFromString(bytes.substr(pos, length)));
  EXPECT_EQ(meta.version(), "0.0.4");
  const auto d3 = read_chakra(bytes);
  ASSERT_EQ(d3.nodes.size(), 1u);
  EXPECT_EQ(d3.nodes[0].type(), ChakraProtoMsg::COMP_NODE);
  EXPECT_EQ(d3.nodes[0].name(), "idle");
  EXPECT_EQ(d3.nodes[0].duration_micros(), 0u);
  EXPECT_TRUE(deps(d3.nodes[0]).empty());
  EXPECT_EQ(chakra_export::trace_file_name("gpt", 3), "gpt.3.et");
}

// Concurrent work of one device becomes one COMP node of the longest duration (ASTRA-sim runs one
// COMP at a time per NPU); a ring's merged steps become one message per step, each after the
// previous step's receive, and the delay that adds back their latencies has no node.
//   d0: t0 compute 2 us; t1 memory traffic 5 us (a delay at d0), both after nothing -> one node 5 us
//   t2: transfer d0 -> d1, 3 steps of 300 B merged; t3: transfer d1 -> d0, the same (one run)
//   t4: latency delay 2 us after t2, t3 (merged latency)      t5: compute d1 1 us after t4
TEST(ChakraTrace, SiblingsFoldAndMergedStepsSplit) {
  program::Program p;
  const int fc1 = p.add_layer("fc1");
  using plan::Pass;
  p.add_compute(fc1, Pass::fwd, "compute", device(0), 2e-6, {});
  p.add_delay(fc1, Pass::fwd, "memory", 5e-6, {}, device(0));
  const int a = p.add_transfer(fc1, Pass::fwd, "ring", device(0), device(1), 900, {0, 1});
  const int b = p.add_transfer(fc1, Pass::fwd, "ring", device(1), device(0), 900, {});
  p.add_merged_run({a, b}, 3);
  const int latency = p.add_delay(fc1, Pass::fwd, "ring latency", 2e-6, {a, b});
  p.add_merged_latency(latency);
  p.add_compute(fc1, Pass::fwd, "compute", device(1), 1e-6, {latency});
  const auto out = chakra_export::export_chakra(p, 2, fixtures::two_fc(), kContext);
  EXPECT_EQ(out.folded_compute, 1u);
  EXPECT_EQ(out.split_transfers, 2u);
  EXPECT_EQ(out.carried_latencies, 1u);
  const auto d0 = read_chakra(out.ranks[0].bytes);
  const auto d1 = read_chakra(out.ranks[1].bytes);
  // d0: 0 COMP 5 us; step 1: 1 SEND (after 0), 2 RECV; step 2: 3 SEND (after 1 and 2), 4 RECV
  // (after 2); step 3: 5 SEND (after 3, 4), 6 RECV (after 4).
  ASSERT_EQ(d0.nodes.size(), 7u);
  EXPECT_EQ(d0.nodes[0].duration_micros(), 5u);
  EXPECT_DOUBLE_EQ(attributes(d0.nodes[0]).real("duration_s"), 5e-6);
  EXPECT_EQ(deps(d0.nodes[1]), NodeIds{0});
  EXPECT_TRUE(deps(d0.nodes[2]).empty());
  EXPECT_EQ(deps(d0.nodes[3]), (NodeIds{1, 2}));
  EXPECT_EQ(deps(d0.nodes[4]), NodeIds{2});
  EXPECT_EQ(deps(d0.nodes[5]), (NodeIds{3, 4}));
  for (std::size_t k = 1; k < 7; ++k) EXPECT_EQ(attributes(d0.nodes[k]).i64("comm_size"), 300) << k;
  // Tags: a's messages 0, 1, 2, b's 3, 4, 5; the send of step 2 on d0 is a's second message.
  EXPECT_EQ(attributes(d0.nodes[3]).i32("comm_tag"), 1);
  EXPECT_EQ(attributes(d0.nodes[4]).i32("comm_tag"), 4);
  // d1: step 1: 0 RECV (a), 1 SEND (b); ...; then the compute after the last receive (4), not after
  // a latency node.
  ASSERT_EQ(d1.nodes.size(), 7u);
  EXPECT_EQ(d1.nodes[0].type(), ChakraProtoMsg::COMM_RECV_NODE);
  EXPECT_EQ(d1.nodes[6].type(), ChakraProtoMsg::COMP_NODE);
  EXPECT_EQ(deps(d1.nodes[6]), (NodeIds{4, 5}));
}

// Compute written as the busy spans of a schedule (sim/export/compute_spans.hpp). Two devices,
// every transfer 1 us (the closed form's transfer time here), fc1 FWD (134,152,192 FLOP) shared
// by duration over its compute tasks t0, t2, t4 (2, 3, 1 us of 6):
//   t0 compute d0 2 us               [0, 2)    t5 compute d0 0 s, after t1   [1, 1)
//   t1 transfer d1 -> d0, 1000 B     [0, 1)    t6 transfer d0 -> d1, after t5 [1, 2)
//   t2 compute d0 3 us, after t1     [1, 4)    t7 compute d1 0.4 us           [0, 0.4)
//   t3 transfer d0 -> d1, after t0   [2, 3)    t8 compute d1 0.4 us, after t7 [0.4, 0.8)
//   t4 compute d0 1 us, after t0 t2  [4, 5)
// d0 is busy in [0,1) (t0), [1,2) (t0 and t2), [2,4) (t2), [4,5) (t4); numbered by start (ties:
// Program order): 0 span [0,1); 1 RECV t1; 2 span [1,2) after 0 and the RECV (t2 waited for it);
// 3 SEND t6 after the RECV (through t5, which has no time); 4 span [2,4) after 2; 5 SEND t3 after
// 2 (t0 ends in [1,2)); 6 span [4,5) after 4 (its waits for t0 and t2 implied by the chain).
// num_ops: [0,1) half of t0's third = F/6, [1,2) F/6 + a third of t2's half = F/3, [2,4) F/3,
// [4,5) F/6. d1: 0 SEND t1 (time 0, before t7 in Program order), 1 span [0,0.4), 2 span
// [0.4,0.8), 3 RECV t6, 4 RECV t3; the spans' whole microseconds are round(0.4) - round(0) = 0
// and round(0.8) - round(0.4) = 1, so the pair keeps its 1 us total.
TEST(ChakraTrace, ComputeWrittenAsBusySpansOfTheSchedule) {
  program::Program p;
  const int fc1 = p.add_layer("fc1");
  using plan::Pass;
  p.add_compute(fc1, Pass::fwd, "compute", device(0), 2e-6, {});
  p.add_transfer(fc1, Pass::fwd, "in", device(1), device(0), 1000, {});
  p.add_compute(fc1, Pass::fwd, "compute", device(0), 3e-6, {1});
  p.add_transfer(fc1, Pass::fwd, "out", device(0), device(1), 500, {0});
  p.add_compute(fc1, Pass::fwd, "compute", device(0), 1e-6, {0, 2});
  p.add_compute(fc1, Pass::fwd, "compute", device(0), 0.0, {1});
  p.add_transfer(fc1, Pass::fwd, "signal", device(0), device(1), 8, {5});
  p.add_compute(-1, Pass::fwd, "setup", device(1), 0.4e-6, {});
  p.add_compute(-1, Pass::fwd, "setup", device(1), 0.4e-6, {7});
  const auto one_us = [](const program::Endpoint&, const program::Endpoint&, double) { return 1e-6; };
  const program::Evaluation schedule = program::ClosedFormEvaluator(one_us).evaluate(p);
  ASSERT_DOUBLE_EQ(schedule.makespan_s, 5e-6);
  const auto out = chakra_export::export_chakra(p, 2, fixtures::two_fc(), kContext, &schedule);
  EXPECT_EQ(out.spans.spans, 6u);
  EXPECT_EQ(out.spans.compute_tasks, 5u);
  EXPECT_EQ(out.folded_compute, 0u);
  const auto d0 = read_chakra(out.ranks[0].bytes);
  ASSERT_EQ(d0.nodes.size(), 7u);
  const std::vector<ChakraProtoMsg::NodeType> types{ChakraProtoMsg::COMP_NODE, ChakraProtoMsg::COMM_RECV_NODE,
                                                    ChakraProtoMsg::COMP_NODE, ChakraProtoMsg::COMM_SEND_NODE,
                                                    ChakraProtoMsg::COMP_NODE, ChakraProtoMsg::COMM_SEND_NODE,
                                                    ChakraProtoMsg::COMP_NODE};
  const std::vector<NodeIds> want_deps{{}, {}, {0, 1}, {1}, {2}, {2}, {4}};
  for (std::size_t k = 0; k < 7; ++k) {
    EXPECT_EQ(d0.nodes[k].type(), types[k]) << k;
    EXPECT_EQ(deps(d0.nodes[k]), want_deps[k]) << k;
  }
  const std::vector<std::uint64_t> micros{1, 1, 2, 1};
  const std::vector<std::int64_t> ops{22'358'699, 44'717'397, 44'717'397, 22'358'699};
  const std::vector<std::size_t> spans{0, 2, 4, 6};
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(d0.nodes[spans[k]].duration_micros(), micros[k]) << k;
    EXPECT_EQ(attributes(d0.nodes[spans[k]]).i64("num_ops"), ops[k]) << k;
  }
  EXPECT_DOUBLE_EQ(attributes(d0.nodes[4]).real("duration_s"), 2e-6);
  EXPECT_EQ(d0.nodes[2].name(), "fc1:fwd:compute (busy span of 2 tasks)");
  EXPECT_EQ(attributes(d0.nodes[3]).i64("comm_size"), 8);
  EXPECT_EQ(attributes(d0.nodes[5]).i64("comm_size"), 500);
  const auto d1 = read_chakra(out.ranks[1].bytes);
  ASSERT_EQ(d1.nodes.size(), 5u);
  EXPECT_EQ(d1.nodes[0].type(), ChakraProtoMsg::COMM_SEND_NODE);
  EXPECT_EQ(d1.nodes[1].duration_micros(), 0u);
  EXPECT_EQ(d1.nodes[2].duration_micros(), 1u);
  EXPECT_EQ(deps(d1.nodes[2]), NodeIds{1});
  EXPECT_EQ(attributes(d1.nodes[3]).i64("comm_size"), 8);
  EXPECT_EQ(attributes(d1.nodes[4]).i64("comm_size"), 500);
  // Under ASTRA-sim's rules d0 computes when the schedule has it compute: 5 us, where the same
  // Program written task by task (t0 and t2 wait for each other) takes 6 us.
  const auto message = [](int, int, double) { return 1e-6; };
  EXPECT_NEAR(chakra_export::replay_astra_rules(out, message).makespan_s, 5e-6, 1e-15);
  const auto by_task = chakra_export::export_chakra(p, 2, fixtures::two_fc(), kContext);
  EXPECT_NEAR(chakra_export::replay_astra_rules(by_task, message).makespan_s, 6e-6, 1e-15);
}

TEST(ChakraTrace, CoreGranularityIsRefused) {
  program::Program p;
  p.add_compute(p.add_layer("fc1"), plan::Pass::fwd, "compute", {0, 2, false}, 1e-6, {});
  EXPECT_THROW(chakra_export::export_chakra(p, 1, fixtures::two_fc(), kContext), InputError);
}

// Data parallelism of two_fc on a star of 2 devices: every node of the traces against the Program
// it came from, and the FLOP of the workload conserved over the compute nodes.
TEST(ChakraTrace, DataParallelPlanMatchesItsProgram) {
  const workloads::Graph g = fixtures::two_fc();
  const topology::SystemSpec spec = fixtures::star(2);
  const topology::TopologyGraph topo(spec);
  const plan::Sharding dp = plan::mesh_sharding({}, {{plan::ShardDim::batch, 2}});
  const plan::Plan p = fixtures::plan_of(g, std::vector<plan::Sharding>(g.size(), dp));
  const program::Program program = lowering::lower_sharding({p, spec, g, topo});
  const auto out = chakra_export::export_chakra(program, 2, g, kContext);

  std::map<int, std::size_t> computes, sends, recvs;
  std::map<int, double> sent_bytes;
  double transfers = 0;
  std::map<int, double> steps_of;  // merged transfers: their steps, each one message
  for (const auto& run : program.merged_steps().runs)
    for (int task : run.transfers) steps_of[task] = run.steps;
  for (std::size_t i = 0; i < program.tasks().size(); ++i) {
    const auto& t = program.tasks()[i];
    const auto messages = static_cast<std::size_t>(steps_of.count(static_cast<int>(i)) ? steps_of[static_cast<int>(i)] : 1);
    if (t.kind == program::TaskKind::compute) ++computes[t.at.device];
    // The star has no latency: no latency delays to place (they are tested on the hand Programs).
    if (t.kind == program::TaskKind::delay && t.at.device < 0) {
      EXPECT_EQ(t.seconds, 0.0) << t.label.str();
    }
    if (t.kind == program::TaskKind::delay && t.at.device >= 0 && t.seconds > 0) ++computes[t.at.device];
    if (t.kind == program::TaskKind::transfer && t.src.device != t.dst.device) {
      sends[t.src.device] += messages;
      recvs[t.dst.device] += messages;
      sent_bytes[t.src.device] += t.bytes;
      ++transfers;
    }
  }
  ASSERT_GT(transfers, 0);  // the gradient all-reduce
  std::map<std::int32_t, std::int64_t> send_size_by_tag, recv_size_by_tag;
  std::size_t compute_nodes = 0;
  double ops = 0;
  for (int rank = 0; rank < 2; ++rank) {
    const auto trace = read_chakra(out.ranks[static_cast<std::size_t>(rank)].bytes);
    std::size_t c = 0, s = 0, r = 0;
    double bytes = 0;
    for (std::size_t i = 0; i < trace.nodes.size(); ++i) {
      const auto& node = trace.nodes[i];
      EXPECT_EQ(node.id(), i);
      for (auto d : node.data_deps()) EXPECT_LT(d, node.id()) << "dependencies point back";
      const auto a = attributes(node);
      if (node.type() == ChakraProtoMsg::COMP_NODE) {
        ops += static_cast<double>(a.i64("num_ops"));
        ++c;
      } else if (node.type() == ChakraProtoMsg::COMM_SEND_NODE) {
        ++s;
        bytes += static_cast<double>(a.i64("comm_size"));
        EXPECT_EQ(a.i32("comm_src"), rank);
        send_size_by_tag[a.i32("comm_tag")] = a.i64("comm_size");
      } else {
        ASSERT_EQ(node.type(), ChakraProtoMsg::COMM_RECV_NODE);
        ++r;
        EXPECT_EQ(a.i32("comm_dst"), rank);
        recv_size_by_tag[a.i32("comm_tag")] = a.i64("comm_size");
      }
    }
    compute_nodes += c;
    EXPECT_EQ(s, sends[rank]) << rank;
    EXPECT_EQ(r, recvs[rank]) << rank;
    EXPECT_DOUBLE_EQ(bytes, sent_bytes[rank]) << rank;
  }
  EXPECT_EQ(send_size_by_tag, recv_size_by_tag);  // every send has its receive, same size
  EXPECT_EQ(compute_nodes + out.folded_compute, computes[0] + computes[1]);  // folded siblings aside
  // Training FLOP of the two layers (two_fc.hpp): FWD 65536 * 2047 = 134,152,192 each, BWD the
  // same but for fc2 only (fc1's input is the graph input: no gradient is computed for it), UPD
  // 1048576 * 127 = 133,169,152 each: 3 * 134,152,192 + 2 * 133,169,152 = 668,794,880, up to one
  // rounding per node.
  EXPECT_NEAR(ops, 3 * fixtures::kFwdFlops + 2 * fixtures::kUpdFlops, 8.0);
}
