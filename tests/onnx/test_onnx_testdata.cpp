// ONNX import of the models Debian ships in libonnx-testdata: PyTorch-converted modules and ONNX
// node tests, sizes and counts checked by hand; bad files and options give one-line InputErrors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/input_errors.hpp"
#include "tests/support/text_file.hpp"
#include "workloads/onnx/onnx_workload.hpp"
#include "workloads/workload_file.hpp"

namespace partsim::workloads {
namespace {

std::string testdata(const std::string& model) { return std::string(PARTSIM_ONNX_TESTDATA) + "/" + model + "/model.onnx"; }

// A scratch file in the test's temporary directory.
std::string scratch(const std::string& name, const std::string& bytes) {
  const auto path = std::filesystem::temp_directory_path() / ("partsim_onnx_" + name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

TEST(OnnxTestdata, PytorchConv2dParamsAndFlops) {
  // x 2x3x7x5, W 4x3x3x2 + bias 4, no padding, stride 1: output 4 x (7-3+1) x (5-2+1) = 4x5x4.
  const Graph g = load_workload(testdata("pytorch-converted/test_Conv2d"), 2);
  ASSERT_EQ(g.size(), 2u);
  const Layer& conv = g.layer("Conv_0");
  EXPECT_EQ(conv.kind, LayerKind::conv);
  EXPECT_EQ(conv.output_shape, (Shape{4, 5, 4}));
  EXPECT_EQ(conv.q.params, 4 * 3 * 3 * 2 + 4);  // 76
  // MACs: 2 samples x 80 outputs x 18 products = 2880; FWD FLOP = 2*2880 - 160 (AccPar Table 6) + 160 bias.
  EXPECT_DOUBLE_EQ(conv.q.macs.fwd, 2880);
  EXPECT_DOUBLE_EQ(conv.q.flops().fwd, 5760);
  // BWD: 2*2880 - A(X) = 5760 - 2*105; UPD: 2*2880 - A(W) (72) + bias gradient 160.
  EXPECT_DOUBLE_EQ(conv.q.flops().bwd, 5550);
  EXPECT_DOUBLE_EQ(conv.q.flops().upd, 5848);
}

TEST(OnnxTestdata, PytorchConv1dAndGroupedConv) {
  // Conv1d: x 4 x 10 (N C L), W 5x4x3 + bias: 5 x (10-3+1) x 1; 60 + 5 params; 40 outputs x 12 MACs.
  const Graph g1 = load_workload(testdata("pytorch-converted/test_Conv1d"), 1);
  const Layer& conv1 = g1.layer("Conv_0");
  EXPECT_EQ(conv1.input_shapes[0], (Shape{4, 10, 1}));
  EXPECT_EQ(conv1.output_shape, (Shape{5, 8, 1}));
  EXPECT_EQ(conv1.q.params, 65);
  EXPECT_DOUBLE_EQ(conv1.q.macs.fwd, 480);
  // group 2: x 4x6x5, W 6x2x3x2 + bias: 6 x 4 x 4; 72 + 6 params; 96 outputs x (2*3*2) MACs.
  const Graph g2 = load_workload(testdata("pytorch-converted/test_Conv2d_groups"), 1);
  const Layer& conv2 = g2.layer("Conv_0");
  EXPECT_EQ(conv2.attr.groups, 2);
  EXPECT_EQ(conv2.output_shape, (Shape{6, 4, 4}));
  EXPECT_EQ(conv2.q.params, 78);
  EXPECT_DOUBLE_EQ(conv2.q.macs.fwd, 1152);
}

TEST(OnnxTestdata, PytorchLinearIsFcWithBias) {
  // Gemm(x 4x10, W 8x10, transB, bias 8): 80 weights + 8 biases; 4 samples x 8 outputs x 10 MACs.
  const Graph g = load_workload(testdata("pytorch-converted/test_Linear"), 4);
  const Layer& fc = g.layer("Gemm_0");
  EXPECT_EQ(fc.kind, LayerKind::fc);
  EXPECT_EQ(fc.input_shapes[0], (Shape{10, 1, 1}));
  EXPECT_EQ(fc.output_shape, (Shape{8, 1, 1}));
  EXPECT_EQ(fc.q.params, 88);
  EXPECT_DOUBLE_EQ(fc.q.macs.fwd, 320);
  EXPECT_DOUBLE_EQ(fc.q.flops().fwd, 2 * 320 - 32 + 32);
}

TEST(OnnxTestdata, PytorchEmbeddingIsATableLookup) {
  // Gather(table 4x3, ids 1x4 int64): vocab 4, width 3, 4 tokens -> 3x4x1; UPD adds 12 gradients/sample.
  const Graph g = load_workload(testdata("pytorch-converted/test_Embedding"), 1);
  const Layer& e = g.layer("Gather_0");
  EXPECT_EQ(e.kind, LayerKind::embedding);
  EXPECT_EQ(e.input_shapes[0], (Shape{1, 4, 1}));
  EXPECT_EQ(e.output_shape, (Shape{3, 4, 1}));
  EXPECT_EQ(e.q.params, 12);
  EXPECT_DOUBLE_EQ(e.q.flops().upd, 12);
}

TEST(OnnxTestdata, NodeConvWithWeightsAsInputs) {
  // x 1x1x7x5, W 1x1x3x3 given as a graph input (a weight slot), pads 1, strides 2:
  // (7+2-3)/2+1 = 4, (5+2-3)/2+1 = 3; 12 outputs x 9 MACs, no bias.
  const Graph g = load_workload(testdata("node/test_conv_with_strides_padding"), 1);
  ASSERT_EQ(g.size(), 2u);  // x and the conv: W is a parameter, not a layer
  const Layer& conv = g.layer("Conv_0");
  EXPECT_EQ(conv.output_shape, (Shape{1, 4, 3}));
  EXPECT_EQ(conv.q.params, 9);
  EXPECT_DOUBLE_EQ(conv.q.macs.fwd, 108);
}

TEST(OnnxTestdata, NodePooling) {
  // MaxPool 3x28x28, kernel 3, pads 2, stride 1: 30x30; one compare per window element: 2700 x 9.
  const Graph max_graph = load_workload(testdata("node/test_maxpool_2d_pads"), 1);
  const Layer& max = max_graph.layer("MaxPool_0");
  EXPECT_EQ(max.output_shape, (Shape{3, 30, 30}));
  EXPECT_DOUBLE_EQ(max.q.flops().fwd, 2700.0 * 9);
  // AveragePool 3x32x32, kernel 5, stride 3: (32-5)/3+1 = 10; 300 outputs x 25.
  const Graph avg_graph = load_workload(testdata("node/test_averagepool_2d_strides"), 1);
  const Layer& avg = avg_graph.layer("AveragePool_0");
  EXPECT_EQ(avg.attr.pool, PoolOp::avg);
  EXPECT_EQ(avg.output_shape, (Shape{3, 10, 10}));
  EXPECT_DOUBLE_EQ(avg.q.flops().fwd, 300.0 * 25);
}

TEST(OnnxTestdata, NodeReluDropsTheBatchDimension) {
  // x 3x4x5: dimension 0 is the batch (set to 1); the rest is 4 positions of 5 features: 5x4x1.
  const Graph g = load_workload(testdata("node/test_relu"), 3);
  const Layer& relu = g.layer("Relu_0");
  EXPECT_EQ(relu.kind, LayerKind::activation);
  EXPECT_EQ(relu.attr.function, ActivationFn::relu);
  EXPECT_EQ(relu.output_shape, (Shape{5, 4, 1}));
  EXPECT_DOUBLE_EQ(relu.q.flops().fwd, 3 * 20);
}

TEST(OnnxTestdata, UnsupportedOperatorIsNamedWithTheSupportedOnes) {
  const std::string file = testdata("node/test_lrn");
  const std::string message = test::input_error_of([&] { load_workload(file, 1); });
  EXPECT_TRUE(message.starts_with(file + ": node 'LRN_0' (LRN): operator not supported (supported: Abs, Add, "))
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(OnnxTestdata, CeilModeThatChangesTheShapeIsRefused) {
  // 1x1x4x4, kernel 3, stride 2, ceil_mode: ONNX gives 2x2, partsim's floor rule 1x1.
  const std::string file = testdata("node/test_maxpool_2d_ceil");
  EXPECT_EQ(test::input_error_of([&] { load_workload(file, 1); }),
            file + ": node 'MaxPool_0' (MaxPool): partsim computes an output of 1x1x1 but ONNX infers [1, 1, 2, 2] "
                   "(1x2x2; ceil_mode or another unsupported attribute?)");
}

TEST(OnnxTestdata, BadFilesGiveOneLine) {
  const std::string model = test::read_text_file(testdata("pytorch-converted/test_Conv2d"));
  const std::string truncated = scratch("truncated.onnx", model.substr(0, model.size() / 2));
  EXPECT_EQ(test::input_error_of([&] { load_workload(truncated, 1); }),
            truncated + ": not an ONNX model (the protobuf does not parse: a truncated file or another format)");
  const std::string text = scratch("text.onnx", "name: not a model\nlayers: []\n");
  EXPECT_EQ(test::input_error_of([&] { load_workload(text, 1); }),
            text + ": not an ONNX model (the protobuf does not parse: a truncated file or another format)");
  EXPECT_EQ(test::input_error_of([&] { load_workload("no/such/model.onnx", 1); }),
            "no/such/model.onnx: cannot open the ONNX file (no such file)");
}

TEST(OnnxTestdata, WorkloadOptions) {
  const OnnxWorkloadSpec spec = parse_onnx_workload("m.onnx#ops,seq=128");
  EXPECT_EQ(spec.path, "m.onnx");
  EXPECT_EQ(spec.granularity, OnnxGranularity::ops);
  EXPECT_EQ(spec.dims.at("seq"), 128);
  EXPECT_EQ(parse_onnx_workload("m.onnx").granularity, OnnxGranularity::layers);
  EXPECT_TRUE(is_onnx_workload("dir/m.onnx#ops"));
  EXPECT_FALSE(is_onnx_workload("m.yaml"));
  EXPECT_EQ(test::input_error_of([] { parse_onnx_workload("m.onnx#fast"); }),
            "m.onnx#fast: unknown option 'fast' after '#' (allowed: ops, layers, granularity=ops|layers, NAME=N for a "
            "dynamic dimension)");
  EXPECT_EQ(test::input_error_of([] { parse_onnx_workload("m.onnx#seq=0"); }),
            "m.onnx#seq=0: option 'seq=0': the size must be a positive integer");
}

}  // namespace
}  // namespace partsim::workloads
