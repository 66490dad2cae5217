#include "sim/planners/accpar/plan_fields.hpp"

#include <nlohmann/json.hpp>
#include <functional>

#include "sim/common/error.hpp"

namespace partsim::accpar {
namespace {

const std::vector<std::string>& type_names() {
  static const std::vector<std::string> names{"I", "II", "III"};
  return names;
}

plan::ShardDim dim_of(Type t) {
  switch (t) {
    case Type::I: return plan::ShardDim::batch;
    case Type::II: return plan::ShardDim::in_channels;
    case Type::III: return plan::ShardDim::out_channels;
  }
  return plan::ShardDim::batch;
}

}  // namespace

std::string to_string(Type type) { return type_names()[static_cast<size_t>(type)]; }

nlohmann::ordered_json levels_to_json(const std::vector<LevelChoice>& levels) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const auto& l : levels) a.push_back(nlohmann::ordered_json{{"type", to_string(l.type)}, {"ratio", l.ratio}});
  return nlohmann::ordered_json{{"levels", a}};
}

std::vector<LevelChoice> levels_from_json(const plan::JsonReader& family) {
  family.only_keys({"levels"});
  std::vector<LevelChoice> out;
  for (const auto& e : family.at("levels").elements()) {
    e.only_keys({"type", "ratio"});
    LevelChoice c;
    c.type = static_cast<Type>(e.at("type").choice(type_names()));
    c.ratio = e.at("ratio").number();
    if (!(c.ratio > 0.0 && c.ratio < 1.0))
      e.at("ratio").fail("must be strictly between 0 and 1 (got " + e.at("ratio").value().dump() + ")");
    out.push_back(c);
  }
  return out;
}

Typing typing_from_plan(const plan::Plan& plan, const Hierarchy& hierarchy, const std::string& file) {
  Typing typing;
  for (size_t v = 0; v < plan.layers.size(); ++v) {
    const plan::JsonReader r(plan.layers[v].family, "/layers/" + std::to_string(v) + "/family", file);
    std::vector<LevelChoice> levels = levels_from_json(r);
    if (static_cast<int>(levels.size()) != hierarchy.depth)
      r.at("levels").fail("has " + std::to_string(levels.size()) + " levels but the platform's device hierarchy has " +
                          std::to_string(hierarchy.depth) + " (" + std::to_string(hierarchy.groups[0].devices.size()) +
                          " devices; re-run simplan)");
    typing.push_back(std::move(levels));
  }
  return typing;
}

plan::Sharding sharding_of(const Hierarchy& h, const std::vector<LevelChoice>& levels) {
  plan::Sharding s;
  // Devices in the hierarchy's leaf order, so every group is a contiguous chunk.
  std::function<void(int)> leaves = [&](int g) {
    const Group& group = h.groups[static_cast<size_t>(g)];
    if (group.is_leaf()) {
      s.devices.insert(s.devices.end(), group.devices.begin(), group.devices.end());
      return;
    }
    leaves(group.a);
    leaves(group.b);
  };
  leaves(0);
  bool in_index_order = true;
  for (std::size_t i = 0; i < s.devices.size(); ++i) in_index_order = in_index_order && s.devices[i] == static_cast<int>(i);
  if (in_index_order) s.devices.clear();  // every device, by index
  for (size_t k = 0; k < levels.size(); ++k) {
    plan::ShardSplit split{dim_of(levels[k].type), 2, {levels[k].ratio, 1.0 - levels[k].ratio}, {}};
    // The sides' sizes at this depth: the default rule (first side larger by at most one) or, when
    // every split at this depth cuts the same way, those sizes.
    bool default_rule = true;
    std::vector<int> sizes;
    bool uniform = true;
    for (const Group& g : h.groups) {
      if (g.depth != static_cast<int>(k) || g.is_leaf()) continue;
      const int a = static_cast<int>(h.groups[static_cast<size_t>(g.a)].devices.size());
      const int b = static_cast<int>(h.groups[static_cast<size_t>(g.b)].devices.size());
      default_rule = default_rule && a == (a + b + 1) / 2;
      if (sizes.empty()) sizes = {a, b};
      uniform = uniform && sizes == std::vector<int>{a, b};
    }
    if (!default_rule) {
      if (!uniform)
        throw InputError("the device hierarchy splits groups of one depth into sides of different sizes (depth " +
                         std::to_string(k) + "): plan schema 2 cannot write it as one split per level");
      split.sizes = sizes;
    }
    s.splits.push_back(std::move(split));
  }
  return s;
}

}  // namespace partsim::accpar
