// The zoo against PUBLISHED numbers: parameter counts (torchvision model cards, the BERT paper)
// within 0.5 %, and forward MACs per image (seed 004 Table III, column "FLOPs", which counts
// multiply-accumulates) within 2 %.
#include <gtest/gtest.h>

#include "workloads/zoo.hpp"

using namespace partsim::workloads;

namespace {

void expect_within(double value, double published, double tolerance, const std::string& what) {
  EXPECT_NEAR(value, published, published * tolerance) << what << ": " << value << " vs published " << published;
}

}  // namespace

TEST(Zoo, ParameterCountsMatchPublished) {
  const std::vector<std::pair<std::string, double>> published = {
      {"lenet", 61'706},           {"alexnet", 61.10e6},   {"vgg11", 132.86e6},   {"vgg13", 133.05e6},
      {"vgg16", 138.36e6},         {"vgg19", 143.67e6},    {"resnet18", 11.69e6}, {"resnet34", 21.80e6},
      {"resnet50", 25.56e6},       {"resnet101", 44.55e6}, {"wrn50_2", 68.88e6},  {"inception_v3", 23.83e6},
      {"bert_large", 335e6},
  };
  for (const auto& [name, params] : published)
    expect_within(static_cast<double>(build_zoo(name, 1).totals().params), params, 0.005, name);
}

TEST(Zoo, ForwardMacsMatchSeed004TableIII) {
  const std::vector<std::pair<std::string, double>> published = {
      {"alexnet", 727e6}, {"vgg16", 15.5e9}, {"resnet34", 3.68e9}, {"resnet101", 7.85e9}, {"wrn50_2", 11.4e9},
  };
  for (const auto& [name, macs] : published) expect_within(build_zoo(name, 1).totals().macs.fwd, macs, 0.02, name);
}

TEST(Zoo, RegistryListsEveryModel) {
  const std::vector<std::string> expected = {"lenet",    "alexnet",  "vgg11",    "vgg13",     "vgg16",
                                             "vgg19",    "resnet18", "resnet34", "resnet50",  "resnet101",
                                             "wrn50_2",  "inception_v3", "gnmt", "bert_base", "bert_large",
                                             "bert_base_ops", "bert_large_ops", "gpt2_small", "gpt3_175b",
                                             "llama_7b", "llama2_70b"};
  ASSERT_EQ(zoo().size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(zoo()[i].name, expected[i]);
    EXPECT_FALSE(zoo()[i].description.empty());
    const Graph g = build_zoo(expected[i], 2);
    EXPECT_EQ(g.name(), expected[i]);
    EXPECT_EQ(g.batch(), 2);
    EXPECT_GT(g.totals().macs.fwd, 0.0);
  }
}

TEST(Zoo, UnknownNameListsValidOnes) {
  try {
    build_zoo("resnet51", 1);
    FAIL() << "no error";
  } catch (const partsim::UnknownNameError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unknown workload 'resnet51'"), std::string::npos) << what;
    EXPECT_NE(what.find("resnet50"), std::string::npos) << what;
    EXPECT_NE(what.find("bert_large"), std::string::npos) << what;
  }
}

// GNMT (seed 003): 8 + 8 LSTM layers of 1024, the first encoder layer bidirectional.
// Encoder layer 1: 2 directions * (4*1024*(1024+1024) + 4096) = 16,785,408 params.
TEST(Zoo, GnmtFirstEncoderLayer) {
  const Graph g = build_zoo("gnmt", 1);
  EXPECT_EQ(g.layer("enc_lstm1").q.params, 16'785'408);
  EXPECT_TRUE(g.layer("enc_lstm1").attr.bidirectional);
  EXPECT_FALSE(g.layer("enc_lstm2").attr.bidirectional);
}
