// Transformer presets (workloads/transformer_presets.hpp): parameter counts and MACs against the
// hand formulas written in each test, and the command-line form's errors.
#include <gtest/gtest.h>

#include "sim/common/error.hpp"
#include "tests/support/input_errors.hpp"
#include "workloads/transformer_presets.hpp"
#include "workloads/workload_file.hpp"
#include "workloads/zoo.hpp"

using namespace partsim::workloads;

namespace {

std::int64_t params_of(const Graph& g, const std::string& layer) { return g.layer(layer).q.params; }

}  // namespace

// GPT-2 small: L = 12, E = 768, V = 50257, P = S = 1024. The published 124,439,808 (HF gpt2)
// is 12 L E^2 + 13 L E + (V + P) E + 2E
//   = 84,934,656 + 119,808 + 39,383,808 + 1,536 = 124,439,808
// with the LM head tied to the token embedding; partsim's head is its own fc: + V E = 38,597,376.
TEST(TransformerPresets, Gpt2SmallMatchesTheHandFormula) {
  const Graph g = build_zoo("gpt2_small", 1);
  EXPECT_EQ(params_of(g, "lm_head"), 38'597'376);
  EXPECT_EQ(g.totals().params - params_of(g, "lm_head"), 124'439'808);
  // One block: 12 E^2 + 13 E = 7,077,888 + 9,984 = 7,087,872.
  std::int64_t block = 0;
  for (const Layer& L : g.layers())
    if (L.name.starts_with("block3.")) block += L.q.params;
  EXPECT_EQ(block, 7'087'872);
}

// GPT-3 175B: L = 96, E = 12288, V = 50257, P = S = 2048:
//   12 * 96 * 12288^2 = 173,946,175,488;  13 * 96 * 12288 = 15,335,424;
//   (50257 + 2048) * 12288 = 642,723,840;  2E = 24,576   ->  174,604,259,328 (the "175B"),
// plus the untied head 50257 * 12288 = 617,558,016.
TEST(TransformerPresets, Gpt3Matches175B) {
  const Graph g = build_zoo("gpt3_175b", 1);
  EXPECT_EQ(g.totals().params, 174'604'259'328 + 617'558'016);
  EXPECT_NEAR(static_cast<double>(g.totals().params - params_of(g, "lm_head")), 175e9, 0.005 * 175e9);
}

// Llama 7B: L = 32, E = 4096, F = 11008, V = 32000, no biases, RMSNorm gains only:
//   per block 4 E^2 (attention) + 3 E F (SwiGLU) + 2E (two norms)
//     = 67,108,864 + 135,266,304 + 8,192 = 202,383,360;  x 32 = 6,476,267,520
//   + V E (embedding) + V E (head) + E (final norm) = 131,072,000 * 2 + 4,096
//   = 6,738,415,616 (the published 6.74 B).
TEST(TransformerPresets, Llama7BMatchesTheHandFormula) {
  const Graph g = build_zoo("llama_7b", 1);
  EXPECT_EQ(g.totals().params, 6'738'415'616);
  EXPECT_EQ(params_of(g, "block0.attn"), 67'108'864);
  EXPECT_EQ(params_of(g, "block0.mlp_norm"), 4096);
  // Forward MACs at batch 1, S = 2048: every weight except the embedding table and the norm
  // gains is used once per token, S (P - V E - 65 E) = 2048 * 6,607,077,376, plus per block the
  // scores and context products 2 S^2 E:  13,531,294,466,048 + 32 * 34,359,738,368
  //   = 14,630,806,093,824.
  EXPECT_DOUBLE_EQ(g.totals().macs.fwd, 14'630'806'093'824.0);
}

// Llama 2 70B, grouped-query attention with 8 kv heads of 128: E_kv = 1024.
//   per block 2 E^2 + 2 E E_kv + 3 E F + 2E = 134,217,728 + 16,777,216 + 704,643,072 + 16,384
//     = 855,654,400;  x 80 = 68,452,352,000;  + 2 V E + E = 524,288,000 + 8,192
//   = 68,976,648,192 (published 69.0 B).
TEST(TransformerPresets, Llama2_70BGroupedQueryAttention) {
  const Graph g = build_zoo("llama2_70b", 1);
  EXPECT_EQ(params_of(g, "block0.attn"), 134'217'728 + 16'777'216);
  EXPECT_EQ(g.totals().params, 68'976'648'192);
}

// The default SwiGLU width is Meta's 256 * ceil(8E/3 / 256): 11008 for E = 4096, 2816 for E = 1024
// (8 * 1024 / 3 = 2730.7 -> 11 * 256).
TEST(TransformerPresets, LlamaDefaultFfnWidth) {
  const Graph g = build_preset("llama", {{"layers", 1}, {"width", 1024}, {"heads", 8}, {"sequence", 16}}, "t", 1);
  EXPECT_EQ(g.layer("block0.mlp_gate").output_shape.c, 2816);
  EXPECT_EQ(g.layer("block0.mlp_gated").output_shape.c, 2816);
}

TEST(TransformerPresets, CommandLineFormEqualsTheNamedPreset) {
  const Graph a = load_workload("gpt:layers=12,width=768,heads=12", 2);
  const Graph b = build_zoo("gpt2_small", 2);
  EXPECT_EQ(a.size(), b.size());
  EXPECT_EQ(a.totals().params, b.totals().params);
  EXPECT_DOUBLE_EQ(a.totals().flops.total(), b.totals().flops.total());
  EXPECT_EQ(a.name(), "gpt:layers=12,width=768,heads=12");  // what a plan records and a replay reloads
}

TEST(TransformerPresets, BadValuesNameTheKeyAndWhatIsAllowed) {
  auto message = [](const std::string& spec) { return partsim::test::input_error_of([&] { load_workload(spec, 1); }); };
  EXPECT_EQ(message("gpt:layers=2,width=64,heads=4,depth=3"),
            "preset gpt: unknown parameter 'depth' (allowed: layers, width, heads, sequence, vocab, ffn, positions)");
  EXPECT_EQ(message("gpt:layers=2,width=64"), "preset gpt: parameter 'heads' is required: attention heads (divide width)");
  EXPECT_EQ(message("gpt:layers=2,width=64,heads=5"), "preset gpt: heads (5) must divide width (64)");
  EXPECT_EQ(message("llama:layers=2,width=64,heads=4,kv_heads=3"), "preset llama: kv_heads (3) must divide heads (4)");
  EXPECT_EQ(message("gpt:layers=x"), "--workload gpt:layers=x: layers must be a whole number (got 'x')");
  EXPECT_EQ(message("gpt:layers=0,width=64,heads=4"), "preset gpt: layers must be a whole number in [1, 8192] (got 0)");
  EXPECT_EQ(message("gpt:layers"), "--workload gpt:layers: expected key=value, got 'layers' (keys: layers, width, heads, "
                                   "sequence, vocab, ffn, positions)");
}
