#include "sim/planners/dsm/plan_fields.hpp"

#include <nlohmann/json.hpp>

namespace partsim::dsm {
namespace {

using nlohmann::ordered_json;
using plan::JsonReader;

ordered_json split_to_json(const Split5& s) {
  return ordered_json{{"in", s.in}, {"out", s.out}, {"ij", s.ij}, {"kij", s.kij}, {"mb", s.mb}};
}

Split5 split_from(const JsonReader& r) {
  r.only_keys({"in", "out", "ij", "kij", "mb"});
  Split5 s;
  s.in = r.at("in").integer(1);
  s.out = r.at("out").integer(1);
  s.ij = r.at("ij").integer(1);
  s.kij = r.at("kij").integer(1);
  s.mb = r.at("mb").integer(1);
  return s;
}

}  // namespace

ordered_json to_json(const DsmLayerFields& fields) {
  if (fields.passes.empty()) return nullptr;
  ordered_json passes = ordered_json::array();
  for (const auto& p : fields.passes) {
    ordered_json j;
    j["pass"] = plan::to_string(p.pass);
    j["chip_split"] = to_string(p.chip_split);
    j["core_factors"] = split_to_json(p.core_factors);
    j["array_factors"] = split_to_json(p.array_factors);
    j["core_split"] = split_to_json(p.core_split);
    j["array_split"] = split_to_json(p.array_split);
    j["dysm_factor"] = p.dysm_factor;
    j["memory_reuse"] = p.memory_reuse;
    j["reuse_in"] = p.reuse_in;
    j["reuse_out"] = p.reuse_out;
    j["weight_reuse"] = p.weight_reuse;
    j["preloaded"] = p.preloaded;
    j["weights_held"] = p.weights_held;
    if (p.pipe_group) j["pipe_group"] = *p.pipe_group;
    if (!p.chips.empty()) j["chips"] = p.chips;
    passes.push_back(j);
  }
  return ordered_json{{"passes", passes}};
}

DsmLayerFields dsm_fields_from(const JsonReader& r) {
  DsmLayerFields f;
  if (r.value().is_null()) return f;
  r.only_keys({"passes"});
  for (const auto& e : r.at("passes").elements()) {
    e.only_keys({"pass", "chip_split", "core_factors", "array_factors", "core_split", "array_split", "dysm_factor",
                 "memory_reuse", "reuse_in", "reuse_out", "weight_reuse", "preloaded", "weights_held", "pipe_group",
                 "chips"});
    DsmPassPlan p;
    p.pass = static_cast<plan::Pass>(e.at("pass").choice({"fwd", "bwd", "upd"}));
    p.chip_split = static_cast<ChipSplit>(e.at("chip_split").choice(chip_split_names()));
    p.core_factors = split_from(e.at("core_factors"));
    p.array_factors = split_from(e.at("array_factors"));
    p.core_split = split_from(e.at("core_split"));
    p.array_split = split_from(e.at("array_split"));
    p.dysm_factor = static_cast<int>(e.at("dysm_factor").integer(1, 1 << 20));
    p.memory_reuse = e.at("memory_reuse").boolean();
    p.reuse_in = e.at("reuse_in").boolean();
    p.reuse_out = e.at("reuse_out").boolean();
    p.weight_reuse = e.at("weight_reuse").boolean();
    p.preloaded = e.at("preloaded").boolean();
    p.weights_held = e.at("weights_held").boolean();
    if (e.has("pipe_group")) p.pipe_group = static_cast<int>(e.at("pipe_group").integer(0, 1 << 20));
    if (e.has("chips")) {
      const auto chips = e.at("chips").elements();
      if (chips.empty()) e.at("chips").fail("must list at least one chip (leave the key out for all chips)");
      for (const auto& c : chips) p.chips.push_back(static_cast<int>(c.integer(0, 1 << 30)));
    }
    f.passes.push_back(std::move(p));
  }
  return f;
}

}  // namespace partsim::dsm
