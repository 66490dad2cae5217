#include "workloads/transformer_presets.hpp"

#include "sim/common/error.hpp"
#include "sim/common/text.hpp"
#include "workloads/net_builder.hpp"
#include "workloads/workload_spec.hpp"

namespace partsim::workloads {
namespace {

// Values with the defaults filled in; unknown or missing keys are InputErrors naming the preset.
PresetValues complete(const TransformerPreset& preset, const PresetValues& given) {
  for (const auto& [key, value] : given) {
    const PresetParameter* declared = nullptr;
    for (const PresetParameter& p : preset.parameters)
      if (p.key == key) declared = &p;
    if (declared == nullptr)
      throw InputError("preset " + preset.name + ": unknown parameter '" + key + "' (allowed: " +
                       preset_parameter_keys(preset) + ")");
    if (value <= 0 || value > declared->max_value)
      throw InputError("preset " + preset.name + ": " + key + " must be a whole number in [1, " +
                       std::to_string(declared->max_value) + "] (got " + std::to_string(value) + ")");
  }
  PresetValues values = given;
  for (const PresetParameter& p : preset.parameters) {
    if (values.count(p.key) != 0) continue;
    if (p.required) throw InputError("preset " + preset.name + ": parameter '" + p.key + "' is required: " + p.meaning);
    if (p.default_value > 0) values[p.key] = p.default_value;
  }
  return values;
}

std::int64_t value(const PresetValues& values, std::string_view key) { return values.find(key)->second; }

// value(key), or `derived` when the key was neither given nor has a fixed default.
std::int64_t value_or(const PresetValues& values, std::string_view key, std::int64_t derived) {
  auto it = values.find(key);
  return it == values.end() ? derived : it->second;
}

void require_divides(const std::string& preset, std::string_view divisor_key, std::int64_t divisor,
                     std::string_view key, std::int64_t n) {
  if (n % divisor != 0)
    throw InputError("preset " + preset + ": " + std::string(divisor_key) + " (" + std::to_string(divisor) +
                     ") must divide " + std::string(key) + " (" + std::to_string(n) + ")");
}

std::string block_prefix(std::int64_t i) { return "block" + std::to_string(i) + "."; }

// ---------------------------------------------------------------- GPT (Radford et al. 2019; Brown et al. 2020)
// Pre-LN decoder: learned token and position embeddings, per block LayerNorm -> self-attention
// (4 E^2 + 4E) -> residual, LayerNorm -> fc 4E -> GELU -> fc E -> residual; final LayerNorm and
// an LM head over the vocabulary. The head is its own fc without bias (GPT-2 ties it to the token
// embedding; partsim keeps it separate, so its weight gradient is reduced on its own): parameters
// are 12 L E^2 + 13 L E + (V + P) E + 2E, plus V E for the head (docs/model.md).
Graph gpt(const PresetValues& v, const std::string& graph_name, std::int64_t batch) {
  const std::int64_t L = value(v, "layers"), E = value(v, "width"), heads = value(v, "heads");
  const std::int64_t S = value(v, "sequence"), V = value(v, "vocab");
  const std::int64_t ffn = value_or(v, "ffn", 4 * E), P = value_or(v, "positions", S);
  require_divides("gpt", "heads", heads, "width", E);
  if (P < S)
    throw InputError("preset gpt: positions (" + std::to_string(P) + ") must be >= sequence (" + std::to_string(S) + ")");
  NetBuilder b(graph_name, "");
  const std::string tokens = b.input("tokens", {1, S, 1});
  const std::string positions = b.input("positions", {1, S, 1});
  std::string x = b.add("embed", {b.embedding("tok_embed", tokens, V, E), b.embedding("pos_embed", positions, P, E)});
  for (std::int64_t i = 0; i < L; ++i) {
    const std::string p = block_prefix(i);
    x = b.add(p + "attn_res", {b.attention(p + "attn", {b.layer_norm(p + "ln1", x)}, heads), x});
    std::string h = b.activation(p + "mlp_gelu", b.fc(p + "mlp_up", b.layer_norm(p + "ln2", x), ffn), ActivationFn::gelu);
    x = b.add(p + "mlp_res", {b.fc(p + "mlp_down", h, E), x});
  }
  b.fc("lm_head", b.layer_norm("ln_f", x), V, /*bias=*/false);
  return b.build(batch);
}

// ---------------------------------------------------------------- Llama (Touvron et al. 2023)
// Pre-norm decoder with RMSNorm (gain only), attention without biases (grouped-query with
// kv_heads < heads, Llama 2 70B), rotary positions (no parameters, not counted), a SwiGLU MLP
// (Shazeer 2020: down(silu(gate x) * up x), three E x F matrices) and an untied LM head:
// parameters L (2 E^2 + 2 E E_kv + 3 E F + 2E) + 2 V E + E.
Graph llama(const PresetValues& v, const std::string& graph_name, std::int64_t batch) {
  const std::int64_t L = value(v, "layers"), E = value(v, "width"), heads = value(v, "heads");
  const std::int64_t S = value(v, "sequence"), V = value(v, "vocab");
  const std::int64_t kv_heads = value_or(v, "kv_heads", heads);
  // Meta's rule (llama/model.py): F = 256 * ceil((2/3 * 4E) / 256), 11008 for E = 4096.
  const std::int64_t ffn = value_or(v, "ffn", 256 * ((8 * E / 3 + 255) / 256));
  require_divides("llama", "heads", heads, "width", E);
  require_divides("llama", "kv_heads", kv_heads, "heads", heads);
  NetBuilder b(graph_name, "");
  std::string x = b.embedding("tok_embed", b.input("tokens", {1, S, 1}), V, E);
  for (std::int64_t i = 0; i < L; ++i) {
    const std::string p = block_prefix(i);
    const std::string a = b.attention(p + "attn", {b.rms_norm(p + "attn_norm", x)}, heads, kv_heads, /*bias=*/false);
    x = b.add(p + "attn_res", {a, x});
    const std::string h = b.rms_norm(p + "mlp_norm", x);
    const std::string gate = b.activation(p + "mlp_silu", b.fc(p + "mlp_gate", h, ffn, false), ActivationFn::silu);
    const std::string gated = b.multiply(p + "mlp_gated", {gate, b.fc(p + "mlp_up", h, ffn, false)});
    x = b.add(p + "mlp_res", {b.fc(p + "mlp_down", gated, E, false), x});
  }
  b.fc("lm_head", b.rms_norm("norm_f", x), V, /*bias=*/false);
  return b.build(batch);
}

}  // namespace

const std::vector<TransformerPreset>& transformer_presets() {
  static const std::vector<TransformerPreset> presets = {
      {"gpt", "GPT-2/3-style pre-LN decoder: learned positions, GELU MLP, LayerNorm",
       {{"layers", "decoder blocks L", true, 0, "", kMaxPresetBlocks},
        {"width", "model width E", true, 0, ""},
        {"heads", "attention heads (divide width)", true, 0, ""},
        {"sequence", "tokens per sample S", false, 1024, ""},
        {"vocab", "vocabulary V", false, 50257, ""},
        {"ffn", "MLP width F", false, 0, "4 * width"},
        {"positions", "rows of the position table P", false, 0, "sequence"}},
       gpt},
      {"llama", "Llama-style pre-norm decoder: RMSNorm, SwiGLU MLP, no biases, rotary positions, grouped-query attention",
       {{"layers", "decoder blocks L", true, 0, "", kMaxPresetBlocks},
        {"width", "model width E", true, 0, ""},
        {"heads", "query heads (divide width)", true, 0, ""},
        {"kv_heads", "key/value heads (divide heads)", false, 0, "heads"},
        {"ffn", "SwiGLU width F", false, 0, "256 * ceil(8 * width / 3 / 256)"},
        {"sequence", "tokens per sample S", false, 2048, ""},
        {"vocab", "vocabulary V", false, 32000, ""}},
       llama},
  };
  return presets;
}

std::string transformer_preset_names() {
  return join(transformer_presets(), [](const TransformerPreset& p) { return p.name; });
}

std::string preset_parameter_keys(const TransformerPreset& preset) {
  return join(preset.parameters, [](const PresetParameter& p) { return p.key; });
}

const TransformerPreset& find_transformer_preset(std::string_view name) {
  for (const TransformerPreset& p : transformer_presets())
    if (p.name == name) return p;
  throw UnknownNameError("preset", std::string(name), transformer_preset_names());
}

Graph build_preset(std::string_view name, const PresetValues& values, const std::string& graph_name,
                   std::int64_t batch) {
  const TransformerPreset& preset = find_transformer_preset(name);
  Graph graph = preset.build(complete(preset, values), graph_name, batch);
  graph.set_description(preset.description);
  return graph;
}

bool is_preset_spec(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return false;
  for (const TransformerPreset& p : transformer_presets())
    if (p.name == text.substr(0, colon)) return true;
  return false;
}

Graph build_preset_spec(std::string_view text, std::int64_t batch) {
  const std::string name(spec_model(text));
  const PresetValues values = parse_spec_values(text, preset_parameter_keys(find_transformer_preset(name)));
  // Named by the whole text (workload_spec.hpp): a plan records it and a replay rebuilds it.
  return build_preset(name, values, std::string(text), batch);
}

}  // namespace partsim::workloads
