// Chakra export of a Program (sim/export/chakra_trace.hpp): a hand-built Program whose every node,
// dependency, tag and size is counted by hand, and a lowered data-parallel plan checked against
// its Program.
#include <gtest/gtest.h>

#include <map>

#include "sim/common/error.hpp"
#include "sim/export/chakra_trace.hpp"
#include "sim/lowering/sharding_lowering.hpp"
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
//   d0: 0 = t0 COMP; 1 = t2 SEND (deps 0); 2 = t8 RECV (deps 1: t8 waited via t6, t5, t4, t3 for
//       t2, whose node on d0 is the send)
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
  EXPECT_EQ(deps(d0.nodes[2]), NodeIds{1});

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

  // The pairs: t2 (tag 2, 1000 B, 0 -> 1) and t8 (tag 8, 2048 B, 1 -> 0), the same on both sides.
  for (const auto* node : {&d0.nodes[1], &d1.nodes[1]}) {
    const auto a = attributes(*node);
    EXPECT_EQ(a.i32("comm_tag"), 2);
    EXPECT_EQ(a.i64("comm_size"), 1000);
    EXPECT_EQ(a.i32("comm_src"), 0);
    EXPECT_EQ(a.i32("comm_dst"), 1);
  }
  for (const auto* node : {&d1.nodes[4], &d0.nodes[2]}) {
    const auto a = attributes(*node);
    EXPECT_EQ(a.i32("comm_tag"), 8);
    EXPECT_EQ(a.i64("comm_size"), 2048);
    EXPECT_EQ(a.i32("comm_src"), 1);
    EXPECT_EQ(a.i32("comm_dst"), 0);
  }
  EXPECT_EQ(out.ranks[1].compute_nodes, 3u);
  EXPECT_EQ(out.ranks[1].send_nodes, 1u);
  EXPECT_EQ(out.ranks[1].recv_nodes, 1u);
}

// The framing by hand, without protobuf's reader: a varint byte count, then exactly that many
// bytes of GlobalMetadata; a rank without work has nothing after it.
TEST(ChakraTrace, DeviceWithoutWorkHasMetadataOnly) {
  const auto out = chakra_export::export_chakra(hand_program(), 4, fixtures::two_fc(), kContext);
  const std::string& bytes = out.ranks[3].bytes;
  std::size_t length = 0, pos = 0;
  for (int shift = 0; pos < bytes.size(); shift += 7) {
    const auto b = static_cast<unsigned char>(bytes[pos++]);
    length |= static_cast<std::size_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) break;
  }
  EXPECT_EQ(pos + length, bytes.size());
  ChakraProtoMsg::GlobalMetadata meta;
  ASSERT_TRUE(meta.ParseFromString(bytes.substr(pos)));
  EXPECT_EQ(meta.version(), "0.0.4");
  const auto d3 = read_chakra(bytes);
  EXPECT_TRUE(d3.nodes.empty());
  EXPECT_EQ(chakra_export::trace_file_name("gpt", 3), "gpt.3.et");
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
  for (const auto& t : program.tasks()) {
    if (t.kind == program::TaskKind::compute) ++computes[t.at.device];
    // The star has no latency: no latency delays to place (they are tested on the hand Program).
    if (t.kind == program::TaskKind::delay && t.at.device < 0) {
      EXPECT_EQ(t.seconds, 0.0) << t.label.str();
    }
    if (t.kind == program::TaskKind::delay && t.at.device >= 0 && t.seconds > 0) ++computes[t.at.device];
    if (t.kind == program::TaskKind::transfer && t.src.device != t.dst.device) {
      ++sends[t.src.device];
      ++recvs[t.dst.device];
      sent_bytes[t.src.device] += t.bytes;
      ++transfers;
    }
  }
  ASSERT_GT(transfers, 0);  // the gradient all-reduce
  std::map<std::int32_t, std::int64_t> send_size_by_tag, recv_size_by_tag;
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
    EXPECT_EQ(c, computes[rank]) << rank;
    EXPECT_EQ(s, sends[rank]) << rank;
    EXPECT_EQ(r, recvs[rank]) << rank;
    EXPECT_DOUBLE_EQ(bytes, sent_bytes[rank]) << rank;
  }
  EXPECT_EQ(send_size_by_tag, recv_size_by_tag);  // every send has its receive, same size
  // Training FLOP of the two layers (two_fc.hpp): FWD 65536 * 2047 = 134,152,192 each, BWD the
  // same but for fc2 only (fc1's input is the graph input: no gradient is computed for it), UPD
  // 1048576 * 127 = 133,169,152 each: 3 * 134,152,192 + 2 * 133,169,152 = 668,794,880, up to one
  // rounding per node.
  EXPECT_NEAR(ops, 3 * fixtures::kFwdFlops + 2 * fixtures::kUpdFlops, 8.0);
}
