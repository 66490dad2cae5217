// The DeepSpatialMatrix design-space search and optimizations (seed 003 §II-E, §III) on the tiny
// system of tests/dsm/tiny_system.hpp (2x2 torus, 2 cores, 4x4 array, 1 KiB scratchpad).
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/planners/dsm/search.hpp"
#include "tiny_system.hpp"
#include "topology/system_parser.hpp"
#include "workloads/zoo.hpp"

namespace partsim::dsm {
namespace {

using testing::kSys;

DsmLayer matmul(const std::string& name, long long in, long long out, long long ij, long long mb) {
  DsmLayer L;
  L.name = name;
  L.in = in; L.out = out; L.ij = ij; L.ij_in = ij; L.kij = 1; L.mb = mb;
  L.out_elements = static_cast<double>(out * ij * mb);
  return L;
}

GroupChain chain(std::vector<DsmLayer> layers) {
  GroupChain net;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    ChainGroup g;
    g.layer = layers[i];
    g.members = {layers[i].name};
    if (i > 0) {
      g.producers = {i - 1};
      g.primary_producer = static_cast<std::ptrdiff_t>(i - 1);
    }
    net.groups.push_back(g);
  }
  return net;
}

TEST(DsmOptions, ParsesWordsAndRejectsUnknownOnes) {
  DsmOptions o = parse_dsm_options({"hybrid,memreuse", "tpipe"});
  EXPECT_TRUE(o.hybrid && o.memreuse && o.tpipe && !o.dysm);
  EXPECT_EQ(option_words(parse_dsm_options({"none"})), std::vector<std::string>{"none"});
  EXPECT_EQ(option_words(parse_dsm_options({"all"})).size(), 4u);
  EXPECT_THROW(parse_dsm_options({"hybird"}), UnknownNameError);
}

TEST(DsmSearch, CoreSplitsMultiplyToTheCoreCount) {
  // 2 cores: one factor of 2 on one of five dimensions.
  EXPECT_EQ(factorizations(2).size(), 5u);
  // 32 = 2^5 over five dimensions: C(5 + 4, 4) = 126 ordered factorizations.
  EXPECT_EQ(factorizations(32).size(), 126u);
  for (const Split5& f : factorizations(12)) EXPECT_EQ(product(f), 12);
}

TEST(DsmDysm, ReuseFitsOnlyAfterSplittingTheMinibatch) {
  // Two 8 -> 8 layers on 4x4 positions, minibatch 16: each output is 8*16*16 = 2048 elements.
  DsmLayer a = matmul("a", 8, 8, 16, 16);
  DsmLayer b = matmul("b", 8, 8, 16, 16);
  // Scratchpad 1024 B, reserve 4 * 4*4*1 * 2 B = 128 B -> 896 B usable.
  EXPECT_DOUBLE_EQ(scratchpad_reserve(kSys), 128);
  // Held per core: (2048 + 2048) / (4 chips * 2 cores) * 2 B = 1024 B > 896: does not fit ...
  EXPECT_DOUBLE_EQ(reuse_held_bytes(a, b, 0, 1, kSys), 1024);
  // ... with S_mb = 8 (DySM factor 2) it is 512 B and fits.
  EXPECT_DOUBLE_EQ(reuse_held_bytes(a, b, 0, 2, kSys), 512);

  const GroupChain net = chain({a, b});
  DsmOptions reuse_only = parse_dsm_options({"memreuse"});
  const DsmResult without = search_network(net, kSys, reuse_only);
  EXPECT_FALSE(without.layers[1].reuse_in);
  DsmOptions with = parse_dsm_options({"memreuse,dysm"});
  const DsmResult r = search_network(net, kSys, with);
  EXPECT_TRUE(r.layers[1].reuse_in);
  EXPECT_GE(r.layers[1].dysm_factor, 2);
  EXPECT_EQ(r.layers[0].dysm_factor, r.layers[1].dysm_factor);
  EXPECT_LT(r.iteration_s, without.iteration_s);
  // The consumer's FWD no longer fetches its input; the producer's BWD reads the error in place.
  EXPECT_TRUE(r.layers[1].passes[0].memory_reuse);
}

// Per pass, the cheapest configuration of a layer with a given split, from explain_layer().
double best_for(const GroupChain& net, std::size_t g, Pass pass, ChipSplit split) {
  double best = 1e300;
  for (const ExplainRow& row : explain_layer(net, g, pass, kSys, DsmOptions{}, 100000))
    if (row.split == split) best = std::min(best, row.total_s);
  return best;
}

TEST(DsmSearch, DynamicProgrammeMatchesBruteForceWithRelayout) {
  // fc 8 -> 64 (first layer: no BWD), then fc 64 -> 8, minibatch 16; ChipD over {data, model}.
  DsmLayer l1 = matmul("l1", 8, 64, 1, 16);
  l1.first = true;
  DsmLayer l2 = matmul("l2", 64, 8, 1, 16);
  const GroupChain net = chain({l1, l2});
  double brute = 1e300;
  for (ChipSplit k1 : {ChipSplit::data, ChipSplit::model})
    for (ChipSplit k2 : {ChipSplit::data, ChipSplit::model}) {
      double t = best_for(net, 0, Pass::fwd, k1) + best_for(net, 0, Pass::upd, k1);
      t += best_for(net, 1, Pass::fwd, k2) + best_for(net, 1, Pass::bwd, k2) + best_for(net, 1, Pass::upd, k2);
      // Relayout of l1's output (64*16 el = 2048 B) in FWD and of the error in BWD.
      if (k1 != k2) t += 2 * group_time(relayout(64.0 * 16 * 2, k1, k2, kSys), kSys);
      brute = std::min(brute, t);
    }
  const DsmResult r = search_network(net, kSys, DsmOptions{});
  EXPECT_NEAR(r.iteration_s, brute, 1e-15);
  // The per-layer totals add up to the iteration, and the passes to the layer.
  double sum = 0;
  for (const auto& lc : r.layers) {
    double passes = 0;
    for (const auto& pc : lc.passes) {
      passes += pc.total_s;
      double terms = 0;
      const auto bd = pc.breakdown();
      for (const char* k : {"mac_busy_s", "array_underuse_s", "overlap_not_hidden_s", "non_overlapped_s", "auxiliary_s"})
        terms += bd.at(k);
      EXPECT_NEAR(terms, pc.total_s, 1e-15);  // Fig. 13 terms add up
    }
    EXPECT_NEAR(passes, lc.total_s, 1e-15);
    sum += lc.total_s;
  }
  EXPECT_NEAR(sum, r.iteration_s, 1e-15);
  EXPECT_EQ(r.layers[0].passes.size(), 2u);  // FWD, UPD
}

TEST(DsmSearch, HybridSplitsOnlyWithTheOption) {
  const GroupChain net = chain({matmul("a", 64, 64, 1, 16), matmul("b", 64, 64, 1, 16)});
  for (const auto& lc : search_network(net, kSys, DsmOptions{}).layers)
    EXPECT_TRUE(lc.split == ChipSplit::data || lc.split == ChipSplit::model);
  const DsmResult h = search_network(net, kSys, parse_dsm_options({"hybrid"}));
  EXPECT_LE(h.iteration_s, search_network(net, kSys, DsmOptions{}).iteration_s);
}

TEST(DsmWeightReuse, LstmKeepsWeightsAcrossTimesteps) {
  // LSTM step: in 4 + hidden 4 = 8, out 4*4 = 16 gates, minibatch 8, 4 timesteps.
  DsmLayer l = matmul("lstm", 8, 16, 1, 8);
  l.lstm = true;
  l.ts = 4;
  l.out_elements = 4 * 8;
  const GroupChain net = chain({l});
  const DsmResult r = search_network(net, kSys, parse_dsm_options({"memreuse"}));
  const PassChoice& fwd = r.layers[0].passes[0];
  ASSERT_EQ(fwd.iterations, 4);
  if (r.layers[0].split == ChipSplit::data) {
    EXPECT_TRUE(fwd.weight_reuse);
    // Kernel per chip 8*16 = 128 el = 256 B fetched in the first timestep only.
    EXPECT_NEAR(fwd.first.overlapped.memory - fwd.rest.overlapped.memory, 256, 1e-9);
  }
  EXPECT_NEAR(fwd.total_s, fwd.first.total + 3 * fwd.rest.total, 1e-15);
  const DsmResult none = search_network(net, kSys, DsmOptions{});
  EXPECT_FALSE(none.layers[0].passes[0].weight_reuse);
  EXPECT_LE(r.iteration_s, none.iteration_s);
}

TEST(DsmWeightReuse, BidirectionalLstmFetchesEachDirectionsWeightsOnce) {
  // A bidirectional LSTM as build_group_chain makes it (docs/model.md "Bidirectional LSTMs"): the two
  // directions one after the other, each step in 4 + hidden 4 = 8, out 4*4 = 16 gates of one
  // direction, minibatch 8, 4 timesteps per direction = 8 iterations.
  DsmLayer l = matmul("bilstm", 8, 16, 1, 8);
  l.lstm = true;
  l.bidirectional = true;
  l.directions = 2;
  l.ts = 2 * 4;
  l.out_elements = 4 * 8;
  const GroupChain net = chain({l});
  DsmOptions data_only = parse_dsm_options({"memreuse"});
  const DsmResult r = search_network(net, kSys, data_only);
  ASSERT_EQ(r.layers[0].split, ChipSplit::data);  // no hybrid option; model parallelism rotates
  const PassChoice& fwd = r.layers[0].passes[0];
  ASSERT_EQ(fwd.iterations, 8);
  ASSERT_TRUE(fwd.weight_reuse);
  // Each direction's kernel, 8*16 = 128 el = 256 B per chip, is fetched at that direction's first
  // step: two fresh iterations, six that reuse, total = 2 first + 6 rest.
  EXPECT_EQ(fwd.fresh_iterations, 2);
  EXPECT_NEAR(fwd.first.overlapped.memory - fwd.rest.overlapped.memory, 256, 1e-9);
  EXPECT_NEAR(fwd.total_s, 2 * fwd.first.total + 6 * fwd.rest.total, 1e-15);
  // The gradient reduction carries both directions' weights, G = 2 x 8 x 16 el x 2 B = 512 B per
  // chip. Data parallel on the 2 x 2 tiny torus, the slowest part is Y: ring all-reduce of G / px =
  // 256 B over 2 chips at 1 GB/s = 2 x 1/2 x 256 B / 1e9 = 256 ns (X: 2 x 1/2 x 512 / 4e9 = 128 ns;
  // memory 2 x 512 / 8e9 = 128 ns; on chip 512 / 8e9 = 64 ns). One direction alone would be 128 ns.
  const auto upd = std::find_if(r.layers[0].passes.begin(), r.layers[0].passes.end(),
                                [](const PassChoice& pc) { return pc.pass == Pass::upd; });
  ASSERT_NE(upd, r.layers[0].passes.end());
  EXPECT_NEAR(upd->grad_reduction_s, 256e-9, 1e-15);
}

TEST(DsmWeightReuse, GnmtBidirectionalLayerHoldsOneDirectionPerCore) {
  // seed 003 §V-A2 on one chip: enc_lstm1's weights, (1024 + 1024) x 4096 x 2 B = 16 MiB per
  // direction, split over 32 cores by out are 0.5 MiB per core and fit the 1 MiB - 8 KiB reserve
  // (4 x 8 x 8 x 16 lanes x 2 B) of the scratchpad; both directions fused (32 MiB, 1 MiB per core)
  // would not, and would refetch 32 MiB in each of the 128 steps.
  const DsmSystem chip = single_chip(make_dsm_system(topology::load_system(PARTSIM_TEST_DATA_DIR "/platforms/torus_8pf.yaml")));
  const GroupChain net = build_group_chain(workloads::build_zoo("gnmt", 1));
  DsmOptions o = parse_dsm_options({"memreuse"});
  o.mode = plan::Mode::inference;
  o.preload = true;
  const DsmResult r = search_network(net, chip, o);
  bool found = false;
  for (const auto& lc : r.layers)
    if (lc.name == "enc_lstm1") {
      found = true;
      EXPECT_TRUE(lc.passes.at(0).weight_reuse);
      EXPECT_EQ(lc.passes.at(0).fresh_iterations, 2);
    }
  EXPECT_TRUE(found);
}

TEST(DsmTimestepPipelining, ChipsByOpsInWholeRows) {
  // A 1 x 4 torus (4 rows of one chip); two LSTM layers, the second with 3x the MACs of the first.
  DsmSystem s = kSys;
  s.M = 1;
  s.N = 4;
  s.bw_y = 16e9;  // handing a 32-element output on takes 64 B / 16 GB/s = 4 ns per timestep
  DsmLayer a = matmul("a", 8, 16, 1, 8);
  a.lstm = true;
  a.ts = 32;
  a.out_elements = 4 * 8;
  DsmLayer b = matmul("b", 8, 48, 1, 8);
  b.lstm = true;
  b.ts = 32;
  b.out_elements = 12 * 8;
  const GroupChain net = chain({a, b});
  const DsmResult plain = search_network(net, s, parse_dsm_options({"memreuse"}));
  const DsmResult r = search_network(net, s, parse_dsm_options({"memreuse,tpipe"}));
  EXPECT_LE(r.iteration_s, plain.iteration_s);
  if (r.layers[0].pipe_group) {
    // OPS 1 : 3 over 4 rows -> 1 row and 3 rows.
    EXPECT_EQ(r.layers[0].chips, (std::vector<int>{0}));
    EXPECT_EQ(r.layers[1].chips, (std::vector<int>{1, 2, 3}));
  } else {
    ADD_FAILURE() << "pipelining not chosen: " << r.iteration_s << " vs " << plain.iteration_s << " "
                  << r.layers[0].total_s << " " << r.layers[1].total_s;
  }
}

TEST(DsmTimestepPipelining, NeverSlowerThanWithoutIt) {
  // GNMT at N_mb 512 on the asymmetric torus without link latency (the reproduction's platform):
  // pipelining each group where that beats the group's sequential plan made the whole iteration
  // 0.3 % slower (0.029691 s against 0.029591 s) through the edges around the groups; the search
  // keeps the faster plan.
  const DsmSystem s = make_dsm_system(topology::load_system(
      PARTSIM_TEST_DATA_DIR "/platforms/torus_8pf_asym.yaml",
      {"system.torus.latency[0]=0s", "system.torus.latency[1]=0s", "system.device_types.dsm_chip.chip.on_chip_latency=0s"}));
  const GroupChain net = build_group_chain(workloads::build_zoo("gnmt", 512));
  const double without = search_network(net, s, parse_dsm_options({"hybrid,memreuse"})).iteration_s;
  const double with = search_network(net, s, parse_dsm_options({"hybrid,memreuse,tpipe"})).iteration_s;
  EXPECT_LE(with, without);
}

TEST(DsmWeightPreload, InferencePreloadsWeightsThatFit) {
  // One chip of the tiny system, inference, fc 8 -> 8 at batch 1: memory-bound by its 64-element
  // (128 B) kernel. FWD without preloading: input 8 + kernel 64 + output 8 el = 160 B / 8 GB/s = 20 ns
  // against PriComp <= 2 + 8 cycles; preloaded (kernel tile <= 896 B usable): 32 B -> 4 ns.
  const DsmSystem chip = single_chip(kSys);
  const GroupChain net = chain({matmul("fc", 8, 8, 1, 1)});
  DsmOptions feat = parse_dsm_options({"memreuse"});
  feat.mode = plan::Mode::inference;
  feat.preload = false;
  DsmOptions pre = feat;
  pre.preload = true;
  const DsmResult a = search_network(net, chip, feat);
  const DsmResult b = search_network(net, chip, pre);
  ASSERT_EQ(a.layers[0].passes.size(), 1u);  // inference: FWD only
  EXPECT_FALSE(a.layers[0].passes[0].weight_reuse);
  EXPECT_NEAR(a.layers[0].passes[0].first.overlapped.memory, 160, 1e-9);
  EXPECT_TRUE(b.layers[0].passes[0].weight_reuse);
  EXPECT_NEAR(b.layers[0].passes[0].first.overlapped.memory, 32, 1e-9);
  EXPECT_LT(b.iteration_s, a.iteration_s);
}

TEST(DsmSystemView, RejectsPlatformsThatAreNotTemplateTori) {
  EXPECT_THROW(make_dsm_system(topology::load_system(PARTSIM_TEST_DATA_DIR "/platforms/f1_16xlarge.yaml")), InputError);
  const DsmSystem s = make_dsm_system(topology::load_system(PARTSIM_TEST_DATA_DIR "/platforms/torus_8pf_asym.yaml"));
  EXPECT_EQ(s.M, 4);
  EXPECT_EQ(s.N, 16);
  EXPECT_DOUBLE_EQ(s.bw_x, 120e9);
  EXPECT_DOUBLE_EQ(s.bw_y, 40e9);
  EXPECT_EQ(s.cores(), 32);
  // seed 003 §IV: 8 PFLOP/s = 2 x 64 x 32 x 1024 MAC x 2 GHz.
  EXPECT_DOUBLE_EQ(2 * s.peak_macs_per_s(), 2.0 * 64 * 32 * 1024 * 2e9);
}

}  // namespace
}  // namespace partsim::dsm
