// Models exported from PyTorch by scripts/export_test_models.py (the onnx_export_models fixture):
// imported, they must count what the zoo counts for the same networks, and plan like them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "tests/support/run_command.hpp"
#include "tests/support/text_file.hpp"
#include "workloads/net_builder.hpp"
#include "workloads/op_graphs.hpp"
#include "workloads/workload_file.hpp"
#include "workloads/zoo.hpp"

namespace partsim::workloads {
namespace {

std::string model(const std::string& name) { return std::string(PARTSIM_ONNX_MODELS) + "/" + name + ".onnx"; }

std::map<std::string, int> kind_counts(const Graph& g) {
  std::map<std::string, int> counts;
  for (const Layer& l : g.layers()) ++counts[std::string(to_string(l.kind))];
  return counts;
}

// Parameters exactly; MACs and FLOP of every pass to double rounding; the imported graph's
// activations may hold `extra_activations` more elements (nodes the reference does not write).
void expect_same_totals(const Graph& imported, const Graph& reference, double extra_activations = 0) {
  const GraphTotals a = imported.totals();
  const GraphTotals b = reference.totals();
  EXPECT_EQ(a.params, b.params);
  for (auto [x, y] : {std::pair{a.macs, b.macs}, std::pair{a.flops, b.flops}}) {
    EXPECT_NEAR(x.fwd, y.fwd, 1e-12 * y.fwd);
    EXPECT_NEAR(x.bwd, y.bwd, 1e-12 * y.bwd);
    EXPECT_NEAR(x.upd, y.upd, 1e-12 * y.upd);
  }
  EXPECT_NEAR(a.activation_elements, b.activation_elements + extra_activations, 1e-12 * b.activation_elements);
}

// The exported torchvision model `name` against the zoo's model of the same name, at `batch`.
void expect_equals_zoo(const std::string& name, std::int64_t batch, std::int64_t params) {
  const Graph imported = load_workload(model(name), batch);
  const Graph zoo = build_zoo(name, batch);
  EXPECT_EQ(imported.totals().params, params);
  expect_same_totals(imported, zoo);
  EXPECT_EQ(kind_counts(imported), kind_counts(zoo));
}

TEST(OnnxTorchModels, Resnet18EqualsTheZoo) {
  // torchvision resnet18 + softmax, batch norm kept: 11,689,512 parameters (torchvision's count).
  expect_equals_zoo("resnet18", 8, 11689512);
}

TEST(OnnxTorchModels, Vgg16EqualsTheZoo) {
  // Exported without weights: their shapes come from the Conv and Gemm slots (138,357,544 params).
  // torchvision's 7x7 adaptive pool is a 1x1 AveragePool here, a copy: dropped.
  expect_equals_zoo("vgg16", 4, 138357544);
}

TEST(OnnxTorchModels, BertMiniAtOperationGranularityEqualsBertOps) {
  // bert_ops with 2 layers of width 128 and 4 heads is the same network (workloads/op_graphs.hpp).
  const Graph imported = load_workload(model("bert_mini") + "#ops", 2);
  // Extra nodes, each 128 x 128 per sample (x batch 2): PyTorch adds the three embeddings with two
  // Adds (bert_ops: one of three inputs), and per layer writes q, k, v as Reshape + Transpose and the
  // context as Transpose + Reshape (bert_ops: one reshape each): 1 + 2 x 4 = 9 tensors.
  expect_same_totals(imported, bert_ops("bert_mini_ops", 2, 128, 4, 2), 9.0 * 128 * 128 * 2);
  const auto counts = kind_counts(imported);
  EXPECT_EQ(counts.at("matmul"), 4);      // scores and context, per layer
  EXPECT_EQ(counts.at("softmax"), 2);
  EXPECT_EQ(counts.at("fc"), 12);         // q, k, v, out, ffn1, ffn2
  EXPECT_EQ(counts.at("layer_norm"), 5);  // decomposed at opset 16, folded back
  EXPECT_EQ(counts.at("embedding"), 3);
  EXPECT_EQ(counts.count("attention"), 0u);
  // The 128 x 128 scores of 4 heads: q (d x S x heads) times k transposed (S x d x heads).
  for (const Layer& l : imported.layers())
    if (l.kind == LayerKind::matmul && l.input_shapes[1] == (Shape{128, 32, 4})) {
      EXPECT_EQ(l.input_shapes[0], (Shape{32, 128, 4}));
      EXPECT_EQ(l.output_shape, (Shape{128, 128, 4}));
    }
}

TEST(OnnxTorchModels, BertMiniAtLayerGranularityFoldsAttention) {
  // The zoo's layer-level BERT (zoo.cpp) at 2 layers, width 128, 4 heads: written out here.
  NetBuilder b("bert_mini_reference", "");
  std::string x = bert_embeddings(b, 128);
  for (int l = 1; l <= 2; ++l) {
    const std::string p = "layer" + std::to_string(l);
    x = b.layer_norm(p + "_attention_norm", b.add(p + "_attention_res", {b.attention(p + "_attention", {x}, 4), x}));
    const std::string f = b.fc(p + "_ffn2", b.activation(p + "_gelu", b.fc(p + "_ffn1", x, 512), ActivationFn::gelu), 128);
    x = b.layer_norm(p + "_ffn_norm", b.add(p + "_ffn_res", {f, x}));
  }
  const Graph imported = load_workload(model("bert_mini"), 2);
  expect_same_totals(imported, b.build(2), 128.0 * 128 * 2);  // the second embedding Add (see above)
  int attention = 0;
  for (const Layer& l : imported.layers())
    if (l.kind == LayerKind::attention) {
      ++attention;
      EXPECT_EQ(l.attr.heads, 4);
      EXPECT_EQ(l.q.params, 4 * 128 * 128 + 4 * 128);
    }
  EXPECT_EQ(attention, 2);
}

// A transformer encoder layer written with the kinds of the layer vocabulary: self-attention of 4
// heads over 128 x 64 x 1, residual, norm, feed-forward 128 -> 512 -> 128 with `fn`, residual, norm;
// `pre_norm` puts the norms before the attention and the feed-forward (GPT-2) instead of after.
Graph encoder_reference(const std::string& name, ActivationFn fn, bool pre_norm, std::int64_t batch) {
  NetBuilder b(name, "");
  std::string x = b.input("x", {128, 64, 1});
  const std::string attention_in = pre_norm ? b.layer_norm("ln1", x) : x;
  x = b.add("attention_res", {b.attention("attention", {attention_in}, 4), x});
  if (!pre_norm) x = b.layer_norm("norm1", x);
  const std::string ffn_in = pre_norm ? b.layer_norm("ln2", x) : x;
  x = b.add("ffn_res", {b.fc("ffn2", b.activation("act", b.fc("ffn1", ffn_in, 512), fn), 128), x});
  if (!pre_norm) x = b.layer_norm("norm2", x);
  return b.build(batch);
}

// Every layer of `kind` in `g`.
std::vector<const Layer*> layers_of(const Graph& g, LayerKind kind) {
  std::vector<const Layer*> found;
  for (const Layer& l : g.layers())
    if (l.kind == kind) found.push_back(&l);
  return found;
}

TEST(OnnxTorchModels, MultiheadAttentionIsOneAttentionLayer) {
  // torch's nn.MultiheadAttention(128, 4): 4 x 128 x 128 weights + 4 x 128 biases = 66,048, as one
  // fused 384-wide in-projection cut by three Slices whose ends are shape arithmetic (128, 256).
  const Graph imported = load_workload(model("mha"), 2);
  NetBuilder b("mha_reference", "");
  b.attention("attention", {b.input("x", {128, 64, 1})}, 4);
  expect_same_totals(imported, b.build(2));
  ASSERT_EQ(imported.size(), 2u);  // the batch-second transposes before and after joined the block
  const Layer& attention = imported.layers()[1];
  EXPECT_EQ(attention.kind, LayerKind::attention);
  EXPECT_EQ(attention.name, "/attention/attention");
  EXPECT_EQ(attention.attr.heads, 4);
  EXPECT_EQ(attention.q.params, 66048);
}

TEST(OnnxTorchModels, MultiheadAttentionAtOperationGranularityCutsTheFusedProjection) {
  const Graph g = load_workload(model("mha") + "#ops", 2);
  const auto slices = layers_of(g, LayerKind::slice);
  ASSERT_EQ(slices.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {  // q, k, v: channels [0, 128), [128, 256), [256, 384)
    EXPECT_EQ(slices[k]->attr.axis, ShapeAxis::channels);
    EXPECT_EQ(slices[k]->attr.begin, 128 * static_cast<std::int64_t>(k));
    EXPECT_EQ(slices[k]->attr.end, 128 * static_cast<std::int64_t>(k + 1));
    EXPECT_EQ(slices[k]->input_shapes[0].c, 384);
  }
  const auto fc = layers_of(g, LayerKind::fc);
  ASSERT_EQ(fc.size(), 2u);
  EXPECT_EQ(fc[0]->attr.out_channels, 384);
  EXPECT_EQ(g.totals().params, 66048);
  // Forward MACs per sample: projections 64 x 128 x (384 + 128), scores and context 4 heads x 64 x
  // 64 x 32 each: 4,194,304 + 1,048,576 = 5,242,880; batch 2.
  EXPECT_DOUBLE_EQ(g.totals().macs.fwd, 2.0 * 5242880);
  EXPECT_EQ(layers_of(g, LayerKind::matmul).size(), 2u);
  EXPECT_EQ(layers_of(g, LayerKind::softmax).size(), 1u);
}

TEST(OnnxTorchModels, TransformerEncoderLayerEqualsItsLayers) {
  // nn.TransformerEncoderLayer(128, 4, 512): 66,048 + 128 x 512 + 512 + 512 x 128 + 128 + 2 x 256 =
  // 198,272 parameters (torch's sum of numel()).
  const Graph imported = load_workload(model("encoder_layer"), 2);
  expect_same_totals(imported, encoder_reference("encoder_reference", ActivationFn::relu, false, 2));
  EXPECT_EQ(imported.totals().params, 198272);
  EXPECT_EQ(layers_of(imported, LayerKind::attention).size(), 1u);
}

TEST(OnnxTorchModels, GptBlockWithSplitAndCausalMaskEqualsItsLayers) {
  const Graph imported = load_workload(model("gpt_block"), 2);
  expect_same_totals(imported, encoder_reference("gpt_reference", ActivationFn::gelu, true, 2));
  EXPECT_EQ(imported.totals().params, 198272);
  // At operation level: Split -> three slices, the mask's Where and the scale -> element-wise.
  const Graph ops = load_workload(model("gpt_block") + "#ops", 2);
  EXPECT_EQ(layers_of(ops, LayerKind::slice).size(), 3u);
  EXPECT_EQ(layers_of(ops, LayerKind::attention).size(), 0u);
  EXPECT_EQ(ops.layer("/Where").kind, LayerKind::activation);
  EXPECT_EQ(ops.layer("/Where").output_shape, (Shape{64, 64, 4}));
}

TEST(OnnxTorchModels, TransposeBeforeConv1dKeepsTheChannels) {
  // x: 32 positions x 64 features, transposed to 64 channels x 32 for Conv1d(64, 128, 3, padding 1).
  const Graph g = load_workload(model("transpose_pool"), 2);
  const Layer& conv = *layers_of(g, LayerKind::conv).at(0);
  EXPECT_EQ(conv.input_shapes[0], (Shape{64, 32, 1}));
  EXPECT_EQ(conv.output_shape, (Shape{128, 32, 1}));
  EXPECT_EQ(conv.attr.kernel_h, 3);
  EXPECT_EQ(conv.attr.kernel_w, 1);
  const Layer& fc = *layers_of(g, LayerKind::fc).at(0);
  EXPECT_EQ(fc.input_shapes[0], (Shape{128, 1, 1}));
  EXPECT_EQ(g.totals().params, 64 * 128 * 3 + 128 + 128 * 10 + 10);  // 25,994
}

TEST(OnnxTorchModels, TransformerImportsPlanAndReplay) {
  // Slices go through the planners and the sharding lowering like any layer.
  const std::string dir = std::string(PARTSIM_ONNX_MODELS) + "/";
  const std::string bin = std::string(PARTSIM_BIN_DIR) + "/";
  const std::string config = std::string(" --config ") + PARTSIM_SOURCE_DIR + "/configs/torus_8pf.yaml";
  for (const std::string strategy : {"dp", "accpar", "owt"}) {
    const std::string command = bin + "simplan" + config + " -q --batch 16 --strategy " + strategy + " --workload '" +
                                model("gpt_block") + "#ops' -o " + dir + "plan_gpt.json && " + bin + "simrun" + config +
                                " -q --plan " + dir + "plan_gpt.json --out " + dir + "results_gpt.json";
    ASSERT_EQ(test::run_command(command), 0) << command;
    const auto results = nlohmann::json::parse(test::read_text_file(dir + "results_gpt.json"));
    EXPECT_GT(results.at("simulated_iteration_s").get<double>(), 0) << strategy;
  }
}

TEST(OnnxTorchModels, DynamicDimensionNeedsItsSize) {
  const std::string file = model("dynamic_seq");
  std::string out;
  EXPECT_EQ(test::run_command(std::string(PARTSIM_BIN_DIR) + "/simplan --describe --workload " + file, &out), 2);
  EXPECT_EQ(out, "simplan: error: " + file + ": input 'x' dimension 1 is dynamic ('seq'): give its size as " + file +
                     "#seq=N\n");
  // nn.Linear(8, 16) over 10 positions: 8*16 + 16 parameters, 3 x 10 x 16 x 8 MACs.
  const Graph g = load_workload(file + "#seq=10", 3);
  ASSERT_EQ(g.size(), 2u);
  const Layer& fc = g.layers()[1];
  EXPECT_EQ(fc.kind, LayerKind::fc);
  EXPECT_EQ(fc.output_shape, (Shape{16, 10, 1}));
  EXPECT_EQ(fc.q.params, 144);
  EXPECT_DOUBLE_EQ(fc.q.macs.fwd, 3840);
}

double predicted_iteration(const std::string& workload, const std::string& strategy, const std::string& plan) {
  const std::string command = std::string(PARTSIM_BIN_DIR) + "/simplan --config " + PARTSIM_SOURCE_DIR +
                              "/configs/tpu_v2v3_256.yaml --batch 256 --strategy " + strategy + " --workload '" +
                              workload + "' -o " + plan;
  EXPECT_EQ(test::run_command(command), 0) << command;
  return nlohmann::json::parse(test::read_text_file(plan)).at("predicted").at("iteration_s").get<double>();
}

TEST(OnnxTorchModels, PlansEqualTheZoos) {
  const std::string dir = std::string(PARTSIM_ONNX_MODELS) + "/";
  for (const std::string strategy : {"dp", "accpar"}) {
    const double imported = predicted_iteration(model("resnet18"), strategy, dir + "plan_onnx.json");
    const double zoo = predicted_iteration("resnet18", strategy, dir + "plan_zoo.json");
    EXPECT_NEAR(imported, zoo, 1e-12 * zoo) << strategy;
  }
  // The plan names the .onnx file as it was given (here without a directory), so simrun imports the
  // same graph again to replay it.
  const std::string bin = std::string(PARTSIM_BIN_DIR) + "/";
  const std::string config = std::string(" --config ") + PARTSIM_SOURCE_DIR + "/configs/tpu_v2v3_256.yaml";
  const std::string replay = "cd " + dir + " && " + bin + "simplan" + config +
                             " --workload resnet18.onnx --batch 256 --strategy accpar -o plan_here.json && " + bin +
                             "simrun" + config + " --plan plan_here.json --out results.json";
  ASSERT_EQ(test::run_command(replay), 0) << replay;
  const auto results = nlohmann::json::parse(test::read_text_file(dir + "results.json"));
  EXPECT_EQ(results.at("workload"), "resnet18.onnx");
  EXPECT_GT(results.at("simulated_iteration_s").get<double>(), 0);
}

TEST(OnnxTorchModels, OperationGraphIsPlacedOnChiplets) {
  // Seed 002's placement takes the op-level graph: every node of bert_mini#ops gets a chip.
  const std::string plan = std::string(PARTSIM_ONNX_MODELS) + "/plan_mcm.json";
  const std::string command = std::string(PARTSIM_BIN_DIR) + "/simplan --config " + PARTSIM_SOURCE_DIR +
                              "/configs/mcm_ring36.yaml --batch 1 --mode inference --strategy mcm_random --seed 1 "
                              "--option samples=3 --workload '" + model("bert_mini") + "#ops' -o " + plan;
  ASSERT_EQ(test::run_command(command), 0) << command;
  const auto json = nlohmann::json::parse(test::read_text_file(plan));
  EXPECT_EQ(json.at("layers").size(), load_workload(model("bert_mini") + "#ops", 1).size());
}

TEST(OnnxTorchModels, SimplanRefusesABadModelWithoutWritingAPlan) {
  const std::string dir = std::string(PARTSIM_ONNX_MODELS) + "/";
  const std::string model_bytes = test::read_text_file(model("resnet18"));
  const std::string truncated = dir + "truncated.onnx";
  std::ofstream(truncated, std::ios::binary) << model_bytes.substr(0, 1000);
  std::filesystem::remove(dir + "never.json");
  std::string out;
  EXPECT_EQ(test::run_command(std::string(PARTSIM_BIN_DIR) + "/simplan --config " + PARTSIM_SOURCE_DIR +
                                  "/configs/tpu_v2v3_256.yaml --strategy dp --workload " + truncated + " -o " + dir +
                                  "never.json",
                              &out),
            2);
  EXPECT_EQ(out, "simplan: error: " + truncated +
                     ": not an ONNX model (the protobuf does not parse: a truncated file or another format)\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "never.json"));
}

}  // namespace
}  // namespace partsim::workloads
