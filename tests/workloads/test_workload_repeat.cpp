// Repeat blocks and presets in workload files (workloads/README.md): a file with a repeat block is
// the same model as the one written out layer by layer, and the GPT example is the gpt preset.
#include <gtest/gtest.h>

#include "sim/common/error.hpp"
#include "sim/common/yaml_reader.hpp"
#include "workloads/transformer_presets.hpp"
#include "workloads/workload_file.hpp"
#include "workloads/zoo.hpp"

using namespace partsim::workloads;

namespace {

const std::string kExamples = std::string(PARTSIM_SOURCE_DIR) + "/workloads/examples/";

// Same layers in the same order with the same inputs, shapes, parameters and per-pass FLOP and MACs.
void expect_same_model(const Graph& a, const Graph& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Layer& x = a.layer(i);
    const Layer& y = b.layer(i);
    SCOPED_TRACE(x.name);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.inputs, y.inputs);
    EXPECT_EQ(x.output_shape, y.output_shape);
    EXPECT_EQ(x.q.params, y.q.params);
    EXPECT_DOUBLE_EQ(x.q.flops().fwd, y.q.flops().fwd);
    EXPECT_DOUBLE_EQ(x.q.flops().bwd, y.q.flops().bwd);
    EXPECT_DOUBLE_EQ(x.q.flops().upd, y.q.flops().upd);
    EXPECT_DOUBLE_EQ(x.q.macs.total(), y.q.macs.total());
  }
  EXPECT_EQ(a.totals().params, b.totals().params);
}

Graph from_text(const std::string& text) { return parse_workload(partsim::yaml::load_string(text, "t.yaml"), 2, "t"); }

std::string error_of(const std::string& text) {
  try {
    from_text(text);
  } catch (const partsim::InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(WorkloadRepeat, RepeatFileEqualsTheWrittenOutFile) {
  const Graph written = load_workload(kExamples + "tiny_transformer.yaml", 4);
  const Graph repeated = load_workload(kExamples + "tiny_transformer_repeat.yaml", 4);
  expect_same_model(written, repeated);
  // 2 blocks x 8 layers + embedding + input.
  EXPECT_EQ(repeated.size(), 18u);
  EXPECT_EQ(repeated.layer("l2_attn").inputs, std::vector<std::string>{"l1_norm2"});
  EXPECT_EQ(repeated.layer("l1_res1").inputs, (std::vector<std::string>{"l1_attn", "embed"}));
}

TEST(WorkloadRepeat, GptExampleEqualsThePreset) {
  const Graph file = load_workload(kExamples + "gpt_decoder.yaml", 2);
  const Graph preset = load_workload("gpt:layers=4,width=256,heads=4,sequence=128,vocab=1000", 2);
  expect_same_model(file, preset);
  // 12 L E^2 + 13 L E + (V + P) E + 2E + V E (head) with L = 4, E = 256, V = 1000, P = 128:
  // 3,145,728 + 13,312 + 288,768 + 512 + 256,000 = 3,704,320.
  EXPECT_EQ(file.totals().params, 3'704'320);
}

TEST(WorkloadRepeat, LlamaPresetFile) {
  const Graph g = load_workload(kExamples + "llama_7b.yaml", 1);
  EXPECT_EQ(g.name(), "llama_7b");
  EXPECT_EQ(g.totals().params, 6'738'415'616);  // test_transformer_presets.cpp has the formula
}

// Without `from` and `output`: {prev} is the previous copy's last layer; {i} counts from 0.
TEST(WorkloadRepeat, DefaultsChainTheLastLayer) {
  const Graph g = from_text(R"(
inputs: [{name: x, shape: [8]}]
layers:
  - {name: stem, kind: fc, input: x, out_features: 4}
  - repeat: 3
    from: stem
    layers:
      - {name: "fc{i}", kind: fc, input: "{prev}", out_features: 4}
      - {name: "act{i}", kind: activation, input: "fc{i}"}
)");
  EXPECT_EQ(g.layer("fc0").inputs, std::vector<std::string>{"stem"});
  EXPECT_EQ(g.layer("fc1").inputs, std::vector<std::string>{"act0"});
  EXPECT_EQ(g.layer("fc2").inputs, std::vector<std::string>{"act1"});
  // stem 8*4+4 = 36, each fc 4*4+4 = 20: 36 + 3*20 = 96.
  EXPECT_EQ(g.totals().params, 96);
}

TEST(WorkloadRepeat, MistakesNameTheFileLineAndKey) {
  const std::string head = "inputs: [{name: x, shape: [8]}]\nlayers:\n";
  EXPECT_EQ(error_of(head + "  - repeat: 2\n    layers:\n      - {name: fc, kind: fc, input: x, out_features: 4}\n"),
            "t.yaml:5:16: layers[0].layers[0].name: a layer name in a repeat block must contain {i} (else the 2 "
            "copies collide)");
  EXPECT_EQ(error_of(head + "  - repeat: 2\n    layers:\n      - {name: \"fc{i}\", kind: fc, input: \"{prev}\", "
                            "out_features: 4}\n"),
            "t.yaml:5:42: layers[0].layers[0].input: {prev} in the first repetition needs the block's 'from' key");
  EXPECT_EQ(error_of(head + "  - repeat: 2\n    from: x\n    layers:\n      - {name: \"fc{i}\", kind: fc, input: \"{j}\", "
                            "out_features: 4}\n"),
            "t.yaml:6:42: layers[0].layers[0].input: unknown placeholder {j} (allowed: {i}, {prev})");
  EXPECT_EQ(error_of(head + "  - repeat: 0\n    layers: []\n"), "t.yaml:3:13: layers[0].repeat: must be > 0 (got 0)");
  EXPECT_EQ(error_of(head + "  - repeat: 2\n    times: 3\n    layers: [{name: \"a{i}\", kind: fc, input: x, out_features: 2}]\n"),
            "t.yaml:4:5: layers[0].times: unknown key (allowed: from, layers, output, repeat, start)");
  EXPECT_EQ(error_of("preset: {model: gpt, layers: 2, width: 64, heads: 5}\n"),
            "t.yaml:1:9: preset: preset gpt: heads (5) must divide width (64)");
  EXPECT_EQ(error_of("preset: {model: bert, layers: 2}\n"),
            "t.yaml:1:17: preset.model: must be one of gpt, llama (got bert)");
  EXPECT_EQ(error_of("preset: {model: gpt, layers: 2, width: 64, heads: 4, depth: 2}\n"),
            "t.yaml:1:54: preset.depth: unknown key (allowed: ffn, heads, layers, model, positions, sequence, vocab, "
            "width)");
}

// Smaller limits (the fuzz harness's): a repeat block over max_layers and a preset over
// max_preset_blocks are refused with the limit in the message; within them the workload parses.
TEST(WorkloadRepeat, LimitsAreTheCallersToLower) {
  const partsim::workloads::WorkloadLimits small{10, 2};
  const auto parse = [&](const std::string& text) {
    try {
      return std::to_string(parse_workload(partsim::yaml::load_string(text, "s.yaml"), 2, "s", small).layers().size());
    } catch (const partsim::InputError& e) {
      return std::string(e.what());
    }
  };
  const std::string block = "inputs: [{name: x, shape: [16, 8]}]\nlayers:\n  - repeat: N\n    from: x\n    layers:\n"
                            "      - {name: \"fc{i}\", kind: fc, input: \"{prev}\", out_features: 16}\n"
                            "      - {name: \"act{i}\", kind: activation, input: \"fc{i}\"}\n";
  const auto with = [&](const char* n) { std::string t = block; return t.replace(t.find('N'), 1, n); };
  EXPECT_EQ(parse(with("4")), "9");  // x and 4 x 2 layers
  EXPECT_EQ(parse(with("5")), "s.yaml:3:5: layers[0]: repeat 5 x 2 layers: the workload would have more than 10 layers");
  EXPECT_EQ(parse("preset: {model: gpt, layers: 3, width: 64, heads: 4}\n"),
            "s.yaml:1:30: preset.layers: is too large (got 3, at most 2)");
}
