#include "workloads/describe.hpp"

#include <nlohmann/json.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "sim/common/error.hpp"
#include "sim/common/text.hpp"
#include "workloads/transformer_presets.hpp"
#include "workloads/zoo.hpp"

namespace partsim::workloads {
namespace {

nlohmann::json pass_json(const PassCounts& p) { return {{"fwd", p.fwd}, {"bwd", p.bwd}, {"upd", p.upd}}; }

std::string pad(const std::string& text, size_t width, bool right) {
  if (text.size() >= width) return text;
  return right ? std::string(width - text.size(), ' ') + text : text + std::string(width - text.size(), ' ');
}

}  // namespace

std::string format_count(double value) {
  static const char* const suffixes[] = {"", "k", "M", "G", "T", "P", "E"};
  double v = std::fabs(value);
  size_t i = 0;
  while (v >= 999.5 && i + 1 < std::size(suffixes)) {
    v /= 1000;
    ++i;
  }
  char buf[32];
  if (i == 0 && v == std::floor(v))
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, v >= 99.95 ? "%.0f%s" : v >= 9.995 ? "%.1f%s" : "%.2f%s", v, suffixes[i]);
  return (value < 0 ? "-" : "") + std::string(buf);
}

std::string describe_table(const Graph& graph, double bytes_per_element) {
  size_t name_width = 5;
  for (const Layer& layer : graph.layers()) name_width = std::max(name_width, layer.name.size());
  std::ostringstream out;
  out << "workload " << graph.name() << " (batch " << graph.batch() << ", " << bytes_per_element
      << " bytes/element): " << graph.size() << " layers\n";
  if (!graph.description().empty()) out << graph.description() << "\n";
  const std::vector<std::pair<std::string, size_t>> columns = {
      {"kind", 10}, {"output", 14}, {"params", 8}, {"FWD FLOP", 9}, {"BWD FLOP", 9}, {"UPD FLOP", 9}, {"act bytes", 10}};
  out << pad("layer", name_width, false);
  for (const auto& [title, width] : columns) out << "  " << pad(title, width, title != "kind" && title != "output");
  out << "\n";
  auto row = [&](const std::string& name, const std::string& kind, const std::string& shape, double params,
                 const PassCounts& flops, double act_bytes) {
    out << pad(name, name_width, false) << "  " << pad(kind, 10, false) << "  " << pad(shape, 14, false) << "  "
        << pad(format_count(params), 8, true) << "  " << pad(format_count(flops.fwd), 9, true) << "  "
        << pad(format_count(flops.bwd), 9, true) << "  " << pad(format_count(flops.upd), 9, true) << "  "
        << pad(format_count(act_bytes), 10, true) << "\n";
  };
  for (const Layer& layer : graph.layers())
    row(layer.name, std::string(to_string(layer.kind)), to_string(layer.output_shape),
        static_cast<double>(layer.q.params), layer.q.flops(),
        tensor_bytes(layer.q.output_elements, bytes_per_element));
  const GraphTotals t = graph.totals();
  row("total", "", "", static_cast<double>(t.params), t.flops, tensor_bytes(t.activation_elements, bytes_per_element));
  out << "forward MACs " << format_count(t.macs.fwd) << ", training FLOP per step " << format_count(t.flops.total())
      << " (primary " << format_count(t.primary_flops.total()) << ", auxiliary " << format_count(t.aux_flops.total())
      << ")\n";
  return out.str();
}

nlohmann::json describe_json(const Graph& graph, double bytes_per_element, const std::vector<NotationView>& notations) {
  const GraphTotals t = graph.totals();
  nlohmann::json layers = nlohmann::json::array();
  for (const Layer& layer : graph.layers()) {
    const LayerQuantities& q = layer.q;
    nlohmann::json input_shapes = nlohmann::json::array();
    for (const Shape& s : layer.input_shapes) input_shapes.push_back({s.c, s.h, s.w});
    layers.push_back({
        {"name", layer.name},
        {"kind", to_string(layer.kind)},
        {"inputs", layer.inputs},
        {"input_shapes", input_shapes},
        {"output_shape", {layer.output_shape.c, layer.output_shape.h, layer.output_shape.w}},
        {"params", q.params},
        {"primary", q.primary},
        {"macs", pass_json(q.macs)},
        {"flops", pass_json(q.flops())},
        {"primary_flops", pass_json(q.primary_flops)},
        {"aux_flops", pass_json(q.aux_flops)},
        {"input_bytes", tensor_bytes(q.input_elements, bytes_per_element)},
        {"activation_bytes", tensor_bytes(q.output_elements, bytes_per_element)},
        {"weight_bytes", tensor_bytes(q.weight_elements, bytes_per_element)},
    });
    nlohmann::json& block = layers.back();
    for (const NotationView& view : notations) {
      if (block.contains(view.name))
        throw Error("describe_json: notation view '" + view.name +
                    "' repeats a key of the layer block or an earlier view's name");
      block[view.name] = view.describe(layer);
    }
  }
  return {
      {"workload", graph.name()},
      {"description", graph.description()},
      {"batch", graph.batch()},
      {"bytes_per_element", bytes_per_element},
      {"params", t.params},
      {"macs_fwd", t.macs.fwd},
      {"macs", pass_json(t.macs)},
      {"flops", pass_json(t.flops)},
      {"primary_flops", pass_json(t.primary_flops)},
      {"aux_flops", pass_json(t.aux_flops)},
      {"activation_bytes", tensor_bytes(t.activation_elements, bytes_per_element)},
      {"layers", layers},
  };
}

std::string list_table() {
  size_t width = 0;
  for (const ZooEntry& e : zoo()) width = std::max(width, e.name.size());
  std::ostringstream out;
  for (const ZooEntry& e : zoo()) out << pad(e.name, width, false) << "  " << e.description << "\n";
  // The parametrised presets: --workload NAME:key=value,... (workloads/README.md, "Presets").
  out << "\npresets (--workload NAME:key=value,...; * = required):\n";
  for (const TransformerPreset& p : transformer_presets()) {
    out << pad(p.name, width, false) << "  " << p.description << "\n" << std::string(width + 2, ' ');
    out << join(p.parameters, [](const PresetParameter& k) {
      return k.key + (k.required ? "*" : "=" + (k.default_value > 0 ? std::to_string(k.default_value) : k.fallback));
    }) << "\n";
  }
  return out.str();
}

}  // namespace partsim::workloads
