// DeePa's eq. 1 terms on a platform small enough to work out by hand: 4 roofline devices on a star
// (every device one 10 GB/s link pair to a switch, no latency), fp32.

#include <gtest/gtest.h>

#include "sim/common/error.hpp"
#include "sim/planners/deepa/cost_model.hpp"
#include "sim/planners/deepa/registration.hpp"
#include "tests/support/platform_yaml.hpp"
#include "workloads/net_builder.hpp"

using namespace partsim;
using namespace partsim::deepa;

namespace {

const char* kStar = R"(
system:
  name: star4
  precision: fp32
  device_types:
    dev: {kind: roofline, peak: 1TFLOP/s, memory: 1GB, memory_bandwidth: 1000000TB/s, network_bandwidth: 10GB/s}
  devices:
    - {type: dev, count: 4}
  star:
    latency: 0s
)";

workloads::Graph tiny(std::int64_t batch) {
  workloads::NetBuilder b("tiny", "");
  std::string x = b.input("data", {2, 8, 8});
  x = b.conv("conv1", x, 4, 3, 1, 1);   // 2 -> 4 channels, 3x3, pad 1: 8x8 out, 2*4*9 + 4 = 76 params
  x = b.conv("conv2", x, 4, 3, 1, 1);
  x = b.flatten("flatten", x);           // 256 features
  b.fc("fc", x, 16);
  return b.build(batch);
}

int index_of(const CostModel& m, std::size_t layer, Configuration c) {
  const auto& configs = m.configurations(layer);
  for (std::size_t i = 0; i < configs.size(); ++i)
    if (configs[i] == c) return static_cast<int>(i);
  ADD_FAILURE() << "no configuration " << to_string(c);
  return 0;
}

std::size_t edge_of(const CostModel& m, std::size_t from, std::size_t to) {
  for (std::size_t e = 0; e < m.edges().size(); ++e)
    if (m.edges()[e].from == from && m.edges()[e].to == to) return e;
  ADD_FAILURE() << "no edge";
  return 0;
}

struct Fixture {
  topology::SystemSpec spec = test::platform_from_yaml(kStar);
  workloads::Graph graph = tiny(8);
  ModelOptions options = [] {
    ModelOptions o;
    o.kernel_efficiency = false;
    return o;
  }();
  CostModel model{spec, graph, plan::Mode::training, options};
};

}  // namespace

TEST(DeepaCostModel, ConfigurationsOfConvAndFc) {
  Fixture f;
  // Worker counts 1, 2, 4. conv (4 channels, 8x8): ordered factorisations of 1 (1), 2 (4), 4 (10) = 15.
  EXPECT_EQ(f.model.configurations(1).size(), 15u);
  // fc: n and c only: 1 + 2 + 3 = 6.
  EXPECT_EQ(f.model.configurations(4).size(), 6u);
  for (const auto& c : f.model.configurations(4)) EXPECT_EQ(c.h * c.w, 1);
}

TEST(DeepaCostModel, XferGathersTheInputOnFewerWorkers) {
  Fixture f;
  // data {n=4} on devices 0..3 -> conv1 {1,1,1,1} on device 0: devices 1, 2, 3 each send their
  // quarter, 8/4 images x 2 x 8 x 8 x 4 B = 1024 B; the switch -> device 0 link carries 3072 B:
  // 3072 / 10e9 = 3.072e-7 s. The producer is a graph input: no error flows back.
  const XferCost x = f.model.xfer(edge_of(f.model, 0, 1), index_of(f.model, 0, {4, 1, 1, 1}), index_of(f.model, 1, {1, 1, 1, 1}));
  EXPECT_DOUBLE_EQ(x.bytes, 3072);
  EXPECT_NEAR(x.time_s, 3.072e-7, 1e-15);
  // The same configuration on both sides, split by n only: each worker already holds its input.
  EXPECT_DOUBLE_EQ(f.model.xfer(edge_of(f.model, 1, 2), index_of(f.model, 1, {4, 1, 1, 1}), index_of(f.model, 2, {4, 1, 1, 1})).time_s, 0);
}

TEST(DeepaCostModel, XferOfAHeightSplitIsTheHalo) {
  Fixture f;
  // conv1 {h=2} -> conv2 {h=2} on devices 0, 1 (rows 0-3, 4-7). conv2's worker 0 reads input rows
  // [0, 5) (3x3, pad 1), so row 4 from device 1: 8 images x 4 channels x 1 row x 8 = 256 elements
  // = 1024 B; worker 1 reads row 3 from device 0, 1024 B. Forward: each link carries 1024 B ->
  // 1.024e-7 s; backward the errors of those rows go back: 1.024e-7 s. Total 2.048e-7 s, 4096 B.
  const int h2 = index_of(f.model, 1, {1, 1, 2, 1});
  const XferCost x = f.model.xfer(edge_of(f.model, 1, 2), h2, index_of(f.model, 2, {1, 1, 2, 1}));
  EXPECT_DOUBLE_EQ(x.bytes, 4096);
  EXPECT_NEAR(x.time_s, 2.048e-7, 1e-15);
}

TEST(DeepaCostModel, UpdateIsARingAllReduceOfTheReplicas) {
  Fixture f;
  ASSERT_EQ(f.graph.layer(1).q.params, 76);
  // conv1 {n=4}: 4 replicas of 76 x 4 B = 304 B. Ring: each sends 2 (4-1)/4 x 304 = 456 B to the
  // next; on the star every up and down link carries 456 B -> 4.56e-8 s. Bytes: 4 x 456 = 1824.
  const NodeCost& n4 = f.model.node(1, index_of(f.model, 1, {4, 1, 1, 1}));
  EXPECT_NEAR(n4.update_s, 4.56e-8, 1e-16);
  EXPECT_DOUBLE_EQ(n4.update_bytes, 1824);
  // {n=2, c=2}: two replica groups of 2, each of half the weights (152 B): each member sends
  // 2 (2-1)/2 x 152 = 152 B; every link carries 152 B -> 1.52e-8 s.
  EXPECT_NEAR(f.model.node(1, index_of(f.model, 1, {2, 2, 1, 1})).update_s, 1.52e-8, 1e-16);
  // {c=4}: no replicas, no update (Table 2's OWT row).
  EXPECT_DOUBLE_EQ(f.model.node(1, index_of(f.model, 1, {1, 4, 1, 1})).update_s, 0);
}

TEST(DeepaCostModel, UpdateThroughAParameterServer) {
  Fixture f;
  f.options.update = plan::GradientSyncAlgorithm::parameter_server;
  const CostModel model{f.spec, f.graph, plan::Mode::training, f.options};
  // conv1 {n=4}: device 0 serves 304 B of weights. Phase 1: devices 1-3 send it 304 B each, the
  // switch -> device 0 link carries 912 B: 9.12e-8 s; phase 2 the same out of device 0: 9.12e-8 s.
  // Bytes 6 x 304 = 1824 (the ring's too, in 2x its time: the server's link carries it all).
  const NodeCost& n4 = model.node(1, index_of(model, 1, {4, 1, 1, 1}));
  EXPECT_NEAR(n4.update_s, 2 * 9.12e-8, 1e-16);
  EXPECT_DOUBLE_EQ(n4.update_bytes, 1824);
  // {n=2, c=2}: two groups of 2, servers on different devices, 152 B each way: 2 x 1.52e-8 s.
  EXPECT_NEAR(model.node(1, index_of(model, 1, {2, 2, 1, 1})).update_s, 2 * 1.52e-8, 1e-16);
  EXPECT_DOUBLE_EQ(model.node(1, index_of(model, 1, {1, 4, 1, 1})).update_s, 0);
}

TEST(DeepaCostModel, ComputeIsTheDeviceModelOverTheShard) {
  Fixture f;
  // fc on one worker: every FLOP of its three passes at 1 TFLOP/s (memory is effectively free);
  // on c=2 each worker does half.
  const auto& q = f.graph.layer(4).q;
  const double all = q.flops().total() / 1e12;
  EXPECT_NEAR(f.model.node(4, index_of(f.model, 4, {1, 1, 1, 1})).compute_s, all, all * 1e-12);
  EXPECT_NEAR(f.model.node(4, index_of(f.model, 4, {1, 2, 1, 1})).compute_s, all / 2, all * 1e-12);
  // conv1 is fed by the graph input: no backward pass of its input error (the lowering skips it).
  const auto& q1 = f.graph.layer(1).q;
  const double conv1 = (q1.flops().fwd + q1.flops().upd) / 1e12;
  EXPECT_NEAR(f.model.node(1, index_of(f.model, 1, {1, 1, 1, 1})).compute_s, conv1, conv1 * 1e-12);
}

TEST(DeepaCostModel, KernelEfficiencyIsHalfPerformancePerGemmDimensionTimesThePlaneTerm) {
  workloads::Graph g = tiny(8);
  const workloads::Layer& fc = g.layer(4);
  // The whole fc: M = 8 images x 1 position, N = 16, K = 256 x 1, plane of 1 position:
  // 8/(8+64) x 16/(16+64) x 256/(256+16) x (1 - 0.314 x 1/(1 + 196^2))
  // = 0.111111 x 0.2 x 0.941176 x 0.999992 = 0.0209149
  plan::LoopBox box{{0, 8}, {0, 16}, {0, 256}, {0, 1}, {0, 1}};
  EXPECT_NEAR(kernel_efficiency(fc, box), 8.0 / 72 * 16.0 / 80 * 256.0 / 272 * (1 - 0.314 / 38417), 1e-12);
  EXPECT_NEAR(kernel_efficiency(fc, box), 0.0209149, 1e-7);
  // conv1 shard of 2 images, all 4 channels, 4 x 8 positions: M = 64, N = 4, K = 2 x 9 = 18,
  // plane 32: 64/128 x 4/68 x 18/34 x (1 - 0.314 x 1024/(1024 + 38416)) = 0.5 x 0.0588235 x 0.529412
  // x 0.991847 = 0.0154440
  plan::LoopBox conv{{0, 2}, {0, 4}, {0, 2}, {0, 4}, {0, 8}};
  EXPECT_NEAR(kernel_efficiency(g.layer(1), conv), 0.0154440, 1e-7);
  // Without the plane term (kernel_efficiency=gemm): 0.5 x 0.0588235 x 0.529412 = 0.0155709.
  EXPECT_NEAR(kernel_efficiency(g.layer(1), conv, false), 0.0155709, 1e-7);
  // Layers without matrix products run at the device model's rate.
  EXPECT_DOUBLE_EQ(kernel_efficiency(g.layer(3), box), 1.0);
}

TEST(DeepaCostModel, HeightWidthSplitOfVggConv5BeatsAnImageSplitAsInTable3) {
  // VGG-16's conv5_x (Table 1's C2 family: 512 -> 512 channels, 3x3, pad 1) on a 14 x 14 plane,
  // minibatch 512, on 4 workers (seed 001 Table 3).
  workloads::NetBuilder b("conv5", "");
  const std::string x = b.input("data", {512, 14, 14});
  b.conv("conv5_1", x, 512, 3, 1, 1);
  const workloads::Graph g = b.build(512);
  const workloads::Layer& conv = g.layer(1);
  // {n=4}: 128 images x 14 x 14 per worker. M = 25088 -> 25088/25152 = 0.997455; N = 512 ->
  // 512/576 = 0.888889; K = 512 x 9 = 4608 -> 4608/4624 = 0.996540; plane 196 -> 1 - 0.314 x 196^2/(2 x 196^2)
  // = 0.843. Product 0.997455 x 0.888889 x 0.996540 x 0.843 = 0.744840.
  const plan::LoopBox n4{{0, 128}, {0, 512}, {0, 512}, {0, 14}, {0, 14}};
  EXPECT_NEAR(kernel_efficiency(conv, n4), 0.744840, 2e-6);
  // {h=2, w=2}: 512 images x 7 x 7. Same M, N, K; plane 49 -> 1 - 0.314 x 2401/(2401 + 38416)
  // = 0.981529. Product 0.997455 x 0.888889 x 0.996540 x 0.981529 = 0.867239.
  const plan::LoopBox hw{{0, 512}, {0, 512}, {0, 512}, {0, 7}, {0, 7}};
  EXPECT_NEAR(kernel_efficiency(conv, hw), 0.867239, 2e-6);
  // The same FLOPs, so compute {n=4} / {h=2,w=2} = 0.981529 / 0.843 = 1.16433 (Table 3: 63.7 / 54.7 = 1.1645).
  EXPECT_NEAR(kernel_efficiency(conv, hw) / kernel_efficiency(conv, n4), 1.16433, 1e-5);
  // {n=16}: 32 images x 14 x 14: M = 6272 -> 6272/6336 = 0.989899, the rest as {n=4}:
  // 0.989899 x 0.888889 x 0.996540 x 0.843 = 0.739198. Image rows stay near linear in the workers, as
  // Table 3's 15.9 / 31.8 / 63.7 / 127.4 ms are: {n=16} does 1/4 of {n=4}'s work at 0.99242 x its rate.
  const plan::LoopBox n16{{0, 32}, {0, 512}, {0, 512}, {0, 14}, {0, 14}};
  EXPECT_NEAR(kernel_efficiency(conv, n16), 0.739198, 2e-6);
  // Large planes run alike: 56 x 56 = 3136 -> 1 - 0.314 x 3136^2/(3136^2 + 196^2) = 0.687222;
  // 224 x 224 = 50176 -> 0.686005 (ratio 1.0018).
  EXPECT_NEAR(plane_efficiency(3136), 0.687222, 1e-6);
  EXPECT_NEAR(plane_efficiency(50176), 0.686005, 1e-6);
}

namespace {

// kStar with `memory` per device.
topology::SystemSpec star_with_memory(const std::string& memory) {
  std::string yaml = kStar;
  yaml.replace(yaml.find("memory: 1GB"), 11, "memory: " + memory);
  return test::platform_from_yaml(yaml);
}

}  // namespace

TEST(DeepaCostModel, ShardMemoryHoldsWeightsGradientsAndActivations) {
  // conv1 of tiny(8) on one worker: weights 76 x 4 B = 304 B, output 8 x 4 x 8 x 8 x 4 B = 8192 B.
  // Training holds 2 x 304 + 8192 = 8800 B and needs the output's error, 8192 B, while back-propagating.
  const ShardMemory m = shard_memory(304, 8192, plan::Mode::training);
  EXPECT_DOUBLE_EQ(m.held, 8800);
  EXPECT_DOUBLE_EQ(m.transient, 8192);
  EXPECT_DOUBLE_EQ(m.total(), 16992);
  // Inference: weights and activations only.
  EXPECT_DOUBLE_EQ(shard_memory(304, 8192, plan::Mode::inference).total(), 8496);
}

TEST(DeepaCostModel, ConfigurationsWhoseShardExceedsDeviceMemoryAreRefused) {
  // Devices of 10000 B, tiny(8), training.
  // conv1 on 1 worker: 16992 B > 10000 -> refused. On 2 workers, e.g. {n=2}: 2 x 304 + 4096 + 4096
  // = 8800 B; {c=2}: 2 x 152 + 4096 + 4096 = 8496 B: kept. 15 - 1 = 14 configurations.
  // fc (params 256 x 16 + 16 = 4112, 16448 B; output 8 x 16 x 4 B = 512 B): {c=4} holds a quarter of
  // the weights, 2 x 4112 + 128 + 128 = 8480 B, kept; every other configuration replicates at least half
  // of them: {c=2} 2 x 8224 + 256 + 256 = 16960 B, {n=4} 2 x 16448 + 128 + 128 = 33152 B: refused.
  const topology::SystemSpec spec = star_with_memory("10000B");
  const workloads::Graph graph = tiny(8);
  ModelOptions options;
  options.kernel_efficiency = false;
  const CostModel model{spec, graph, plan::Mode::training, options};
  EXPECT_EQ(model.configurations(1).size(), 14u);
  for (const auto& c : model.configurations(1)) EXPECT_GT(c.workers(), 1);
  ASSERT_EQ(model.configurations(4).size(), 1u);
  EXPECT_EQ(model.configurations(4)[0], (Configuration{1, 4, 1, 1}));
  EXPECT_GE(model.refused_configurations(), 6u);
  // memory=ignore keeps them all.
  options.check_memory = false;
  EXPECT_EQ((CostModel{spec, graph, plan::Mode::training, options}).configurations(1).size(), 15u);
}

TEST(DeepaCostModel, XferWorkCountsConfigurationPairsConsumerWorkersAndNodes) {
  // Images only (dims n): every layer of tiny(8) has K = 3 configurations, n = 1, 2, 4, with
  // 1 + 2 + 4 = 7 workers over them. Four edges (data-conv1, conv1-conv2, conv2-flatten, flatten-fc),
  // four different geometries, so four tables of 3 producer configurations x 7 consumer workers, each
  // gather walking the star's 5 nodes (4 devices and the switch): 4 x 3 x 7 x 5 = 420.
  const topology::SystemSpec spec = test::platform_from_yaml(kStar);
  const workloads::Graph graph = tiny(8);
  ModelOptions options;
  options.dims = {true, false, false, false};
  const CostModel model{spec, graph, plan::Mode::training, options};
  for (std::size_t v = 0; v < graph.size(); ++v) EXPECT_EQ(model.configurations(v).size(), 3u) << v;
  EXPECT_DOUBLE_EQ(model.xfer_work(), 420);
  // run_deepa refuses a precomputation over option xfer_limit before doing it, naming the option.
  options.xfer_limit = 419;
  try {
    run_deepa(spec, graph, plan::Mode::training, options);
    ADD_FAILURE() << "no refusal over xfer_limit";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("xfer_limit"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("420 link-load updates"), std::string::npos) << e.what();
  }
  options.xfer_limit = 420;
  EXPECT_NO_THROW(run_deepa(spec, graph, plan::Mode::training, options));
  options.xfer_limit = 0;  // no limit
  EXPECT_NO_THROW(run_deepa(spec, graph, plan::Mode::training, options));
}

TEST(DeepaCostModel, PlanMemoryIsTheHeldShardsPlusTheLargestError) {
  // Every layer on 4 workers, fc as {c=4}: per device
  //   data {n=4}: 2 images x 2 x 8 x 8 x 4 B = 1024 B (an input: no error)
  //   conv1 {n=4}: 2 x 304 + 2 x 4 x 64 x 4 B = 608 + 2048 = 2656 B, error 2048 B
  //   conv2 {n=4}: 2 x 592 + 2048 = 3232 B (148 params), error 2048 B
  //   flatten {n=4}: 2 x 256 x 4 B = 2048 B, error 2048 B
  //   fc {c=4}: 2 x 4112 + 8 x 4 x 4 B = 8224 + 128 = 8352 B, error 128 B
  // held 1024 + 2656 + 3232 + 2048 + 8352 = 17312 B, + the largest error 2048 = 19360 B.
  const workloads::Graph graph = tiny(8);
  ModelOptions options;
  options.kernel_efficiency = false;
  for (const char* memory : {"19360B", "19359B"}) {
    const topology::SystemSpec spec = star_with_memory(memory);
    const CostModel model{spec, graph, plan::Mode::training, options};
    const std::vector<int> choice{index_of(model, 0, {4, 1, 1, 1}), index_of(model, 1, {4, 1, 1, 1}), index_of(model, 2, {4, 1, 1, 1}),
                                  index_of(model, 3, {4, 1, 1, 1}), index_of(model, 4, {1, 4, 1, 1})};
    for (double bytes : model.plan_memory_bytes(choice)) EXPECT_DOUBLE_EQ(bytes, 19360);
    if (std::string(memory) == "19360B")
      EXPECT_NO_THROW(model.check_memory(choice));
    else
      EXPECT_THROW(model.check_memory(choice), InputError);
  }
}

namespace {

const char* kTorus4x4 = R"(
system:
  name: torus4x4
  precision: fp32
  device_types:
    dev: {kind: roofline, peak: 1TFLOP/s, memory: 1GB, memory_bandwidth: 1000TB/s, network_bandwidth: 10GB/s}
  devices:
    - {type: dev, count: 16}
  torus:
    dims: [4, 4]
    bandwidth: [10GB/s, 5GB/s]
    latency: [1us, 1us]
)";

}  // namespace

TEST(DeepaLinkLoads, GatherThroughTheInTreeByHand) {
  // A 4 x 4 torus (x at 10 GB/s, y at 5 GB/s, 1 us per hop), dimension-order routing (x, then y),
  // ties towards +. Every other device sends 1000 B to device 0 = (0, 0): 32 links to walk route by
  // route, 15 tree nodes, so add_gather goes through the in-tree. Each row y reaches column 0 along
  // x, then column 0 carries it to row 0: rows 1 (the - way, 1 hop) and 2, 3 (2 -> 3 -> 0, a tie
  // taken +; 3 -> 0) each bring 4 x 1000 B, so the y link (0, 3) -> (0, 0) carries 8000 B:
  // 8000 / 5 GB/s = 1.6 us (an x link carries at most 2000 B: 0.2 us). The longest route, from
  // (2, 2), is 4 hops: 4 us of latency.
  const topology::SystemSpec spec = test::platform_from_yaml(kTorus4x4);
  const topology::TopologyGraph topology(spec, topology::Granularity::chip);
  ASSERT_EQ(topology.coordinates(0), (std::vector<int>{0, 0}));
  LinkLoads loads(topology);
  std::vector<std::pair<int, double>> sources;
  for (int d = 1; d < 16; ++d) sources.emplace_back(d, 1000);
  loads.add_gather(0, sources);
  EXPECT_DOUBLE_EQ(loads.bytes(), 15000);
  EXPECT_NEAR(loads.time_s(), 1.6e-6 + 4e-6, 1e-15);
}

TEST(DeepaLinkLoads, GatherEqualsRouteByRouteOnATorusAndAStar) {
  // Whichever way add_gather goes (the in-tree or route by route), the loads are add()'s to the bit.
  for (const char* yaml : {kTorus4x4, kStar}) {
    const topology::SystemSpec spec = test::platform_from_yaml(yaml);
    const topology::TopologyGraph topology(spec, topology::Granularity::chip);
    const int n = spec.device_count();
    LinkLoads gathered(topology), walked(topology);
    std::uint64_t state = 12345;
    const auto next = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL, static_cast<int>(state >> 33); };
    for (int round = 0; round < 50; ++round) {
      gathered.clear();
      walked.clear();
      for (int dst = 0; dst < n; ++dst) {
        std::vector<std::pair<int, double>> sources;
        for (int k = next() % (n + 1); k > 0; --k) sources.emplace_back(next() % n, 4.0 * (next() % 1000));
        gathered.add_gather(dst, sources);
        for (const auto& [src, bytes] : sources) walked.add(src, dst, bytes);
      }
      EXPECT_EQ(gathered.bytes(), walked.bytes());
      EXPECT_EQ(gathered.time_s(), walked.time_s());
      EXPECT_EQ(gathered.reverse_time_s(), walked.reverse_time_s());
    }
  }
}
