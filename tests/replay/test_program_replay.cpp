// The SimGrid evaluator of a Program against the closed form and against hand-computed times.
// One simulation per TEST (one process each).

#include <gtest/gtest.h>

#include <array>
#include <random>

#include "sim/common/error.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/replay/program_replay.hpp"
#include "bench/replay/run_in_child.hpp"
#include "tests/topology_graph/spec_builders.hpp"

using namespace partsim;
using program::Endpoint;
using program::Program;
using plan::Pass;

namespace {

// A unidirectional ring of 4 devices, 10 GB/s and 1 us per link: d0 -> d1 -> d2 -> d3 -> d0.
topology::TopologyGraph ring4() { return topology::TopologyGraph(test::torus_spec({4}, {10e9}, {1e-6}, false)); }

Endpoint dev(int d) { return {d, -1, false}; }

// d0 -> d2 (route d0->d1->d2, 2 us) and d1 -> d2 (d1->d2, 1 us), 10 MB each: they share link d1->d2.
Program two_transfers_sharing_d1_d2() {
  Program p;
  const int layer = p.add_layer("l0");
  p.add_transfer(layer, Pass::fwd, "a", dev(0), dev(2), 10e6, {});
  p.add_transfer(layer, Pass::fwd, "b", dev(1), dev(2), 10e6, {});
  return p;
}

}  // namespace

TEST(ProgramReplay, ComputeTransferComputeEqualsHandAndClosedForm) {
  const auto g = ring4();
  Program p;
  const int layer = p.add_layer("l0");
  const int c0 = p.add_compute(layer, Pass::fwd, "compute", dev(0), 1e-3, {});
  const int t = p.add_transfer(layer, Pass::fwd, "send", dev(0), dev(1), 10e6, {c0});
  p.add_compute(layer, Pass::fwd, "compute", dev(1), 2e-3, {t});
  // 1 ms + (1 us + 10 MB / 10 GB/s = 1.001 ms) + 2 ms = 4.001 ms.
  replay::SimGridEvaluator sim(g);
  const auto s = sim.evaluate(p);
  const auto c = program::ClosedFormEvaluator(program::uncontended_transfer_time(g)).evaluate(p);
  EXPECT_NEAR(c.makespan_s, 4.001e-3, 1e-15);
  EXPECT_NEAR(s.makespan_s, 4.001e-3, 1e-12);
  EXPECT_NEAR(s.tasks[1].start, 1e-3, 1e-12);
  EXPECT_NEAR(s.tasks[1].finish, 2.001e-3, 1e-12);
  EXPECT_EQ(s.activities, 3);
}

TEST(ProgramReplay, SharedLinkIsSlowerThanClosedFormByMaxMinSharing) {
  // d0 -> d2 (route d0->d1->d2, 2 us) and d1 -> d2 (d1->d2, 1 us), 10 MB each, share link d1->d2.
  // Closed form: 2 us + 1 ms and 1 us + 1 ms. SimGrid (CM02: bytes flow after the route latency):
  // B alone from 1 us to 2 us sends 10 kB; then both at 5 GB/s: B's 9.99 MB end at
  // 2 us + 1.998 ms = 2.000 ms, when A has 10 kB left at 10 GB/s: A ends at 2.001 ms.
  const auto g = ring4();
  const Program p = two_transfers_sharing_d1_d2();
  replay::SimGridEvaluator sim(g);
  const auto s = sim.evaluate(p);
  const auto c = program::ClosedFormEvaluator(program::uncontended_transfer_time(g)).evaluate(p);
  EXPECT_NEAR(c.makespan_s, 1.002e-3, 1e-15);
  EXPECT_NEAR(s.tasks[1].finish, 2.000e-3, 1e-9);
  EXPECT_NEAR(s.makespan_s, 2.001e-3, 1e-9);
}

// The same shared link with the routes resolved once (program/platform_binding.hpp TransferRoutes),
// as simrun runs it: the replay installs those routes and its times are the graph's, to the bit
// of the hand computation above; the closed form from the same routes too. Routes resolved for
// another Program are refused before any simulation is built.
TEST(ProgramReplay, BoundRoutesAreTheOnesTheReplayAndTheClosedFormUse) {
  const auto g = ring4();
  Program p = two_transfers_sharing_d1_d2();
  p.add_transfer(0, Pass::fwd, "local", dev(3), dev(3), 10e6, {});
  Program other;
  other.add_layer("l0");
  const program::TransferRoutes routes(p, g);
  replay::SimGridEvaluator sim(g);
  EXPECT_THROW(sim.evaluate(other, routes), Error);
  const auto s = sim.evaluate(p, routes);
  const auto c = program::ClosedFormEvaluator(routes).evaluate(p);
  EXPECT_NEAR(c.makespan_s, 1.002e-3, 1e-15);
  EXPECT_EQ(c.tasks[2].finish, 0.0);  // same node: no time
  EXPECT_NEAR(s.tasks[1].finish, 2.000e-3, 1e-9);
  EXPECT_NEAR(s.makespan_s, 2.001e-3, 1e-9);
  EXPECT_EQ(s.tasks[2].finish, 0.0);
}

TEST(ProgramReplay, IndependentComputeOnOneDeviceDoesNotShare) {
  // The Program says where work overlaps: two compute tasks without a dependency run side by side.
  const auto g = ring4();
  Program p;
  const int layer = p.add_layer("l0");
  p.add_compute(layer, Pass::fwd, "a", dev(0), 1e-3, {});
  p.add_compute(layer, Pass::fwd, "b", dev(0), 1e-3, {});
  p.add_delay(layer, Pass::fwd, "latency", 5e-4, {});
  replay::SimGridEvaluator sim(g);
  const auto s = sim.evaluate(p);
  EXPECT_NEAR(s.makespan_s, 1e-3, 1e-12);
  EXPECT_NEAR(s.tasks[2].finish, 5e-4, 1e-12);
}

TEST(ProgramReplay, LocalTransfersAndJoinsAreFreeEmptyTransfersTakeTheirLatency) {
  // compute 1 ms on d0; a transfer to itself (free); an empty transfer d0 -> d1 (no bytes, but the
  // 1 us hop latency of ring4, as the closed form charges it); a zero-length join; compute 1 ms on d1.
  // Hand: join at 1 ms + 1 us = 1.001 ms, makespan 2.001 ms; both evaluators agree.
  const auto g = ring4();
  Program p;
  const int layer = p.add_layer("l0");
  const int c = p.add_compute(layer, Pass::fwd, "compute", dev(0), 1e-3, {});
  const int self = p.add_transfer(layer, Pass::fwd, "to itself", dev(0), dev(0), 1e9, {c});
  const int empty = p.add_transfer(layer, Pass::fwd, "empty", dev(0), dev(1), 0, {self});
  const int join = p.add_delay(layer, Pass::fwd, "join", 0, {empty});
  p.add_compute(layer, Pass::bwd, "compute", dev(1), 1e-3, {join});
  replay::SimGridEvaluator sim(g);
  const auto s = sim.evaluate(p);
  EXPECT_NEAR(s.tasks[static_cast<size_t>(self)].finish, 1e-3, 1e-12);
  EXPECT_NEAR(s.tasks[static_cast<size_t>(join)].finish, 1.001e-3, 1e-12);
  EXPECT_NEAR(s.makespan_s, 2.001e-3, 1e-12);
  EXPECT_EQ(s.activities, 3);  // two computes and the empty transfer's latency; not the local one
  const auto closed = program::ClosedFormEvaluator(program::uncontended_transfer_time(g)).evaluate(p);
  EXPECT_NEAR(closed.makespan_s, s.makespan_s, 1e-12);
}

TEST(ProgramReplay, CoreGranularityMemoryTransferTakesTheMemoryLinkAndTheRing) {
  // Template chips of 2 cores (spec_builders: memory 256 GB/s x 0.8 = 204.8 GB/s, 100 ns; ring 256 GB/s,
  // 10 ns). Memory -> core 1: memory link then core0 -> core1: 110 ns + 1 MB / 204.8 GB/s
  // = 1.1e-7 + 4.8828125e-6 = 4.9928125e-6 s.
  const topology::TopologyGraph g(test::torus_spec({2}, {10e9}, {1e-6}, false, 2), topology::Granularity::core);
  Program p;
  const int layer = p.add_layer("l0");
  p.add_transfer(layer, Pass::fwd, "fetch", {0, -1, true}, {0, 1, false}, 1e6, {});
  replay::SimGridEvaluator sim(g);
  const auto s = sim.evaluate(p);
  const auto c = program::ClosedFormEvaluator(program::uncontended_transfer_time(g)).evaluate(p);
  EXPECT_NEAR(c.makespan_s, 4.9928125e-6, 1e-18);
  EXPECT_NEAR(s.makespan_s, 4.9928125e-6, 1e-14);
}

TEST(ProgramReplay, MemoryEndpointAtChipGranularityIsAnError) {
  const auto g = ring4();
  Program p;
  p.add_transfer(p.add_layer("l0"), Pass::fwd, "fetch", {0, -1, true}, dev(0), 1e6, {});
  replay::SimGridEvaluator sim(g);
  EXPECT_THROW(sim.evaluate(p), Error);
}

// Lone transfers (replay.hpp LoneTransfers): a transfer that shares no link is timed as SimGrid
// times a lone flow and joins SimGrid, with the bytes it has left, when another starts on its link.
// ring4's link d0->d1: 10 GB/s, 1 us. A: 10 MB from t = 0 (bytes flow from 1 us). B: 10 MB after a
// 0.5 ms delay (bytes from 0.501 ms). By hand: at 0.501 ms A has sent 10 GB/s x 0.5 ms = 5 MB;
// then both at 5 GB/s: A's 5 MB end at 0.501 + 1 = 1.501 ms, when B has sent 5 MB; B's last 5 MB
// alone at 10 GB/s: 2.001 ms. The same whether A was timed or a SimGrid comm from its start.
namespace {

// A: 10 MB d0 -> d1 at once; B: 10 MB d0 -> d1 after a delay of `wait_s`.
Program two_on_one_link(double wait_s) {
  Program p;
  const int layer = p.add_layer("l0");
  p.add_transfer(layer, Pass::fwd, "a", dev(0), dev(1), 10e6, {});
  const int wait = p.add_delay(layer, Pass::fwd, "wait", wait_s, {});
  p.add_transfer(layer, Pass::fwd, "b", dev(0), dev(1), 10e6, {wait});
  return p;
}

// Replays two_on_one_link(wait_s) on ring4: A's and B's finish (s), and how many transfers SimGrid's
// network model ran and how many were timed alone.
void expect_two_on_one_link(double wait_s, replay::LoneTransfers mode, double a_finish, double b_finish,
                            std::size_t simgrid_comms, std::size_t lone_transfers) {
  const auto g = ring4();
  replay::SimGridEvaluator sim(g, {}, mode);
  const auto s = sim.evaluate(two_on_one_link(wait_s));
  EXPECT_NEAR(s.tasks[0].finish, a_finish, 1e-12);
  EXPECT_NEAR(s.tasks[2].finish, b_finish, 1e-12);
  EXPECT_EQ(sim.stats().simgrid_comms, simgrid_comms);
  EXPECT_EQ(sim.stats().lone_transfers, lone_transfers);
}

}  // namespace

TEST(ProgramReplay, LoneTransferJoinsSimGridWhenAnotherStartsOnItsLink) {
  // Both end as SimGrid comms: A from 0.501 ms with its last 5 MB, and B.
  expect_two_on_one_link(0.5e-3, replay::LoneTransfers::timed, 1.501e-3, 2.001e-3, 2, 0);
}

TEST(ProgramReplay, EveryTransferInSimGridGivesTheSameTimes) {
  expect_two_on_one_link(0.5e-3, replay::LoneTransfers::simgrid, 1.501e-3, 2.001e-3, 2, 0);
}

TEST(ProgramReplay, TransfersOnDisjointLinksAreTimedAlone) {
  // d0->d1 and d2->d3 at once, then d1->d2 after the first: no link carries two at a time. Each takes
  // 1 us + 10 MB / 10 GB/s = 1.001 ms; the third ends at 2.002 ms. SimGrid's network model runs none.
  const auto g = ring4();
  Program p;
  const int layer = p.add_layer("l0");
  const int a = p.add_transfer(layer, Pass::fwd, "a", dev(0), dev(1), 10e6, {});
  p.add_transfer(layer, Pass::fwd, "b", dev(2), dev(3), 10e6, {});
  p.add_transfer(layer, Pass::fwd, "c", dev(1), dev(2), 10e6, {a});
  replay::SimGridEvaluator sim(g);
  const auto s = sim.evaluate(p);
  EXPECT_NEAR(s.tasks[0].finish, 1.001e-3, 1e-15);
  EXPECT_NEAR(s.tasks[1].finish, 1.001e-3, 1e-15);
  EXPECT_NEAR(s.tasks[2].finish, 2.002e-3, 1e-15);
  EXPECT_EQ(sim.stats().lone_transfers, 3u);
  EXPECT_EQ(sim.stats().simgrid_comms, 0u);
  EXPECT_EQ(s.activities, 3);
}

TEST(ProgramReplay, LoneTransferEndingAsAnotherStartsLetsGoOfItsLink) {
  // A on d0->d1 ends at 1 us + 1 ms; B waits 1 ms, then its bytes start after the 1 us latency:
  // exactly when A's last byte leaves (1.001 ms). They never share the link: both are timed alone,
  // and B ends at 1.001 + 1 = 2.001 ms.
  expect_two_on_one_link(1e-3, replay::LoneTransfers::timed, 1.001e-3, 2.001e-3, 0, 2);
}

TEST(ProgramReplay, LoneTransfersTimedNeedPartsimsOwnSimGridSettings) {
  // A --simgrid-cfg setting may change what a lone flow gets (LV08's bandwidth factor 0.97, say):
  // with one, every transfer runs in SimGrid's network model, and asking for timed is refused.
  const auto g = ring4();
  EXPECT_THROW(replay::SimGridEvaluator(g, {"network/model:LV08"}, replay::LoneTransfers::timed), InputError);
  EXPECT_EQ(replay::choose_lone_transfers("", {"network/model:LV08"}), replay::LoneTransfers::simgrid);
  EXPECT_EQ(replay::choose_lone_transfers("", {"network/optim:Full", "network/model:LV08"}),
            replay::LoneTransfers::simgrid);
  EXPECT_THROW(replay::choose_lone_transfers("timed", {"network/optim:Full", "network/model:LV08"}), InputError);
  // How SimGrid solves the sharing (network/optim, cpu/optim) gives a lone flow the same rate: timed.
  EXPECT_EQ(replay::choose_lone_transfers("", {"network/optim:Full"}), replay::LoneTransfers::timed);
  EXPECT_EQ(replay::choose_lone_transfers("timed", {"network/optim:Lazy", "cpu/optim:TI"}),
            replay::LoneTransfers::timed);
  EXPECT_EQ(replay::choose_lone_transfers("", {}), replay::LoneTransfers::timed);
  EXPECT_EQ(replay::choose_lone_transfers("simgrid", {}), replay::LoneTransfers::simgrid);
  EXPECT_THROW(replay::choose_lone_transfers("fast", {}), InputError);
}

namespace {

// A random program on a bidirectional 4 x 4 torus (10 GB/s and 1 us along X, 5 GB/s and 2 us along
// Y): kTransfers transfers of 1-11 MB between random devices, each after a delay of 0-1 ms that
// follows a random earlier transfer half of the time. Most transfers meet others on some link,
// some run alone, and some are met halfway.
constexpr int kTransfers = 200;

struct RandomReplay {
  std::array<double, kTransfers> finish{};  // s, of each transfer
  std::size_t simgrid_comms = 0;
  std::size_t lone_transfers = 0;
};

RandomReplay replay_random_program(unsigned seed, replay::LoneTransfers mode) {
  const topology::TopologyGraph g(test::torus_spec({4, 4}, {10e9, 5e9}, {1e-6, 2e-6}, true));
  std::mt19937 rng(seed);
  Program p;
  const int layer = p.add_layer("l0");
  std::vector<int> transfers;
  for (int k = 0; k < kTransfers; ++k) {
    std::vector<int> after;
    if (!transfers.empty() && rng() % 2 == 0) after.push_back(transfers[rng() % transfers.size()]);
    const int wait = p.add_delay(layer, Pass::fwd, "wait", static_cast<double>(rng() % 1000) * 1e-6, after);
    const int src = static_cast<int>(rng() % 16);
    const int dst = (src + 1 + static_cast<int>(rng() % 15)) % 16;
    transfers.push_back(p.add_transfer(layer, Pass::fwd, "t", dev(src), dev(dst),
                                       1e6 + static_cast<double>(rng() % 10000) * 1e3, {wait}));
  }
  replay::SimGridEvaluator sim(g, {}, mode);
  const auto e = sim.evaluate(p);
  RandomReplay r;
  for (int k = 0; k < kTransfers; ++k) r.finish[static_cast<std::size_t>(k)] = e.tasks[static_cast<std::size_t>(transfers[static_cast<std::size_t>(k)])].finish;
  r.simgrid_comms = sim.stats().simgrid_comms;
  r.lone_transfers = sim.stats().lone_transfers;
  return r;
}

}  // namespace

TEST(ProgramReplay, RandomContendedProgramsGiveSimGridsTimes) {
  // Each mode in a child process (one SimGrid simulation per process). Every transfer ends when it
  // does with every transfer in SimGrid, to SimGrid's timing precision (surf/precision, 1 ns).
  for (unsigned seed = 1; seed <= 4; ++seed) {
    bool timed_ok = false, simgrid_ok = false;
    const auto timed = bench::run_in_child<RandomReplay>(
        [&] { return replay_random_program(seed, replay::LoneTransfers::timed); }, timed_ok);
    const auto simgrid = bench::run_in_child<RandomReplay>(
        [&] { return replay_random_program(seed, replay::LoneTransfers::simgrid); }, simgrid_ok);
    ASSERT_TRUE(timed_ok && simgrid_ok) << "seed " << seed;
    EXPECT_GT(timed.simgrid_comms, 0u) << "seed " << seed;
    EXPECT_GT(timed.lone_transfers, 0u) << "seed " << seed;
    EXPECT_EQ(timed.simgrid_comms + timed.lone_transfers, static_cast<std::size_t>(kTransfers)) << "seed " << seed;
    EXPECT_EQ(simgrid.simgrid_comms, static_cast<std::size_t>(kTransfers)) << "seed " << seed;
    for (std::size_t k = 0; k < timed.finish.size(); ++k)
      EXPECT_NEAR(timed.finish[k], simgrid.finish[k], 1e-9) << "seed " << seed << " transfer " << k;
  }
}
