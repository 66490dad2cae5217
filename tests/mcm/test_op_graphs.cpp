// Operation-level graphs (seed 002 §5): BERT at op granularity and the random DAG generator.
#include <gtest/gtest.h>

#include "workloads/net_builder.hpp"
#include "workloads/random_dag.hpp"
#include "workloads/zoo.hpp"

namespace partsim::workloads {
namespace {

TEST(OpGraphs, BertNodeCounts) {
  // 8 embedding nodes (3 inputs, 3 embeddings, add, layer norm) + 18 per encoder layer.
  EXPECT_EQ(build_zoo("bert_base_ops", 1).size(), 8u + 12u * 18u);   // 224
  EXPECT_EQ(build_zoo("bert_large_ops", 1).size(), 8u + 24u * 18u);  // 440
}

TEST(OpGraphs, BertBaseParametersByHand) {
  // Embeddings (30522 + 512 + 2) * 768 = 23,835,648, embedding norm 2 * 768 = 1,536.
  // Per layer: q, k, v, out: 4 * (768*768 + 768) = 2,362,368; ffn1 768*3072 + 3072 = 2,362,368;
  // ffn2 3072*768 + 768 = 2,360,064; two norms 3,072: 7,087,872; times 12 = 85,054,464.
  const Graph g = build_zoo("bert_base_ops", 1);
  EXPECT_EQ(g.totals().params, 23835648 + 1536 + 85054464);  // 108,891,648
  // BERT-large: (30522+512+2)*1024 = 31,780,864 + 2,048 + 24 * (4,198,400 + 4,198,400 + 4,195,328 + 4,096).
  EXPECT_EQ(build_zoo("bert_large_ops", 1).totals().params, 31780864 + 2048 + 24LL * 12596224);  // 334,092,288
}

TEST(OpGraphs, BertBaseForwardMacsByHand) {
  // Per layer, S = 128, E = 768: projections q, k, v, out 4*S*E*E, feed-forward 8*S*E*E, scores and
  // context S*S*E each: 12*128*589,824 + 2*16,384*768 = 905,969,664 + 25,165,824 = 931,135,488.
  const Graph g = build_zoo("bert_base_ops", 1);
  EXPECT_DOUBLE_EQ(g.totals().macs.fwd, 12.0 * 931135488.0);
  // The same work as the layer-level BERT (attention as one node).
  EXPECT_DOUBLE_EQ(g.totals().macs.fwd, build_zoo("bert_base", 1).totals().macs.fwd);
  EXPECT_EQ(g.totals().params, build_zoo("bert_base", 1).totals().params);
}

TEST(OpGraphs, AttentionScoresAndContextShapes) {
  const Graph g = build_zoo("bert_base_ops", 2);
  const Layer& scores = g.layer("layer1_scores");
  // S_kv x S_q x heads = 128 x 128 x 12; each element is d = 64 products.
  EXPECT_EQ(scores.output_shape, (Shape{128, 128, 12}));
  EXPECT_DOUBLE_EQ(scores.q.macs.fwd, 2.0 * 128 * 128 * 12 * 64);  // 25,165,824 at batch 2
  // FLOP (Table 6): 2 * MACs - outputs = 50,331,648 - 393,216.
  EXPECT_DOUBLE_EQ(scores.q.primary_flops.fwd, 50331648.0 - 393216.0);
  const Layer& context = g.layer("layer1_context");
  EXPECT_EQ(context.output_shape, (Shape{64, 128, 12}));
  EXPECT_DOUBLE_EQ(context.q.macs.fwd, 2.0 * 64 * 128 * 12 * 128);
  EXPECT_EQ(g.layer("layer1_k_transpose").output_shape, (Shape{128, 64, 12}));
  EXPECT_DOUBLE_EQ(g.layer("layer1_context_merge").q.flops().fwd, 0.0);
}

TEST(OpGraphs, ReshapeMustKeepTheElementCount) {
  NetBuilder b("bad", "");
  b.reshape("r", b.input("x", {6, 4, 1}), {5, 5, 1});
  try {
    (void)b.build(1);
    FAIL() << "expected a LayerError";
  } catch (const LayerError& e) {
    EXPECT_NE(std::string(e.what()).find("must hold as many elements as input 'x' is 6x4x1"), std::string::npos) << e.what();
  }
}

std::vector<std::string> names(const Graph& g) {
  std::vector<std::string> out;
  for (const Layer& l : g.layers()) out.push_back(l.name + ":" + to_string(l.output_shape));
  return out;
}

TEST(RandomDag, SameSeedSameGraphAndBoundsHold) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const Graph g = random_dag({seed, 10, 300, 1});
    EXPECT_GE(g.size(), 10u);
    EXPECT_LE(g.size(), 300u);
    EXPECT_EQ(names(g), names(random_dag({seed, 10, 300, 1}))) << "seed " << seed;
  }
  EXPECT_NE(names(random_dag({1, 10, 300, 1})), names(random_dag({2, 10, 300, 1})));
}

TEST(RandomDag, FamiliesAllOccur) {
  int cnn = 0, mlp = 0, rnn = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const std::string d = random_dag({seed, 10, 300, 1}).description();
    cnn += d.find("cnn") != std::string::npos;
    mlp += d.find("mlp") != std::string::npos;
    rnn += d.find("rnn") != std::string::npos;
  }
  EXPECT_GT(cnn, 0);
  EXPECT_GT(mlp, 0);
  EXPECT_GT(rnn, 0);
}

TEST(RandomDag, BadBoundsAreInputErrors) {
  EXPECT_THROW(random_dag({1, 0, 10, 1}), InputError);
  EXPECT_THROW(random_dag({1, 20, 10, 1}), InputError);
  EXPECT_THROW(random_dag({1, 5000, 6000, 1}), InputError);  // no family is that large
}

}  // namespace
}  // namespace partsim::workloads
