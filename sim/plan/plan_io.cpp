#include "sim/plan/plan_io.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "sim/common/error.hpp"

namespace partsim::plan {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// ---- enum names -------------------------------------------------------------------------------

const std::vector<std::string>& pass_names() {
  static const std::vector<std::string> names{"fwd", "bwd", "upd"};
  return names;
}
const std::vector<std::string>& mode_names() {
  static const std::vector<std::string> names{"training", "inference"};
  return names;
}
const std::vector<std::string>& type_names() {
  static const std::vector<std::string> names{"I", "II", "III"};
  return names;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// ---- writing ----------------------------------------------------------------------------------

ordered_json cost_to_json(const PredictedCost& c) {
  ordered_json j;
  j["total_s"] = c.total_s;
  j["compute_s"] = c.compute_s;
  j["comm_s"] = c.comm_s;
  if (!c.breakdown.empty()) {
    ordered_json b = ordered_json::object();
    for (const auto& [k, v] : c.breakdown) b[k] = v;
    j["breakdown"] = b;
  }
  return j;
}

ordered_json split_to_json(const Split5& s) {
  return ordered_json{{"in", s.in}, {"out", s.out}, {"ij", s.ij}, {"kij", s.kij}, {"mb", s.mb}};
}

ordered_json pass_to_json(const DsmPassPlan& p) {
  ordered_json j;
  j["pass"] = to_string(p.pass);
  j["chip_split"] = p.chip_split;
  j["core_split"] = split_to_json(p.core_split);
  j["array_split"] = split_to_json(p.array_split);
  j["dysm_factor"] = p.dysm_factor;
  j["memory_reuse"] = p.memory_reuse;
  j["weight_reuse"] = p.weight_reuse;
  if (p.pipe_group) j["pipe_group"] = *p.pipe_group;
  if (!p.chips.empty()) j["chips"] = p.chips;
  j["predicted"] = cost_to_json(p.predicted);
  return j;
}

// ---- reading ----------------------------------------------------------------------------------

/// A JSON value with its path, for errors "file: /layers/3/name: message".
class Reader {
 public:
  Reader(const json& value, std::string pointer, const std::string& file)
      : value_(value), pointer_(std::move(pointer)), file_(file) {}

  [[noreturn]] void fail(const std::string& message) const {
    throw InputError(file_ + ": " + (pointer_.empty() ? "/" : pointer_) + ": " + message);
  }
  const json& value() const { return value_; }

  Reader at(const std::string& key) const {
    if (!value_.is_object()) fail("expected an object");
    auto it = value_.find(key);
    if (it == value_.end()) Reader(value_, pointer_ + "/" + key, file_).fail("missing required key");
    return Reader(*it, pointer_ + "/" + key, file_);
  }
  bool has(const std::string& key) const { return value_.is_object() && value_.contains(key); }
  std::vector<Reader> elements() const {
    if (!value_.is_array()) fail("expected an array");
    std::vector<Reader> out;
    for (size_t i = 0; i < value_.size(); ++i) out.emplace_back(value_[i], pointer_ + "/" + std::to_string(i), file_);
    return out;
  }
  std::string str() const {
    if (!value_.is_string()) fail("expected a string (got " + value_.dump() + ")");
    return value_.get<std::string>();
  }
  double number(bool non_negative = true) const {
    if (!value_.is_number()) fail("expected a number (got " + value_.dump() + ")");
    double v = value_.get<double>();
    if (!std::isfinite(v) || (non_negative && v < 0)) fail("must be a finite number >= 0 (got " + value_.dump() + ")");
    return v;
  }
  long long integer(long long min_value) const {
    if (!value_.is_number_integer()) fail("expected a whole number (got " + value_.dump() + ")");
    long long v = value_.get<long long>();
    if (v < min_value) fail("must be >= " + std::to_string(min_value) + " (got " + value_.dump() + ")");
    return v;
  }
  bool boolean() const {
    if (!value_.is_boolean()) fail("expected true or false (got " + value_.dump() + ")");
    return value_.get<bool>();
  }
  size_t choice(const std::vector<std::string>& names) const {
    if (value_.is_string()) {
      for (size_t i = 0; i < names.size(); ++i)
        if (value_.get<std::string>() == names[i]) return i;
    }
    fail("must be one of " + join(names) + " (got " + value_.dump() + ")");
  }

 private:
  const json& value_;
  std::string pointer_;
  const std::string& file_;
};

PredictedCost cost_from(const Reader& r) {
  PredictedCost c;
  c.total_s = r.at("total_s").number();
  c.compute_s = r.at("compute_s").number();
  c.comm_s = r.at("comm_s").number();
  if (r.has("breakdown")) {
    Reader b = r.at("breakdown");
    if (!b.value().is_object()) b.fail("expected an object of named times in seconds");
    for (const auto& [k, v] : b.value().items()) c.breakdown[k] = b.at(k).number(false);
  }
  return c;
}

Split5 split_from(const Reader& r) {
  Split5 s;
  s.in = r.at("in").integer(1);
  s.out = r.at("out").integer(1);
  s.ij = r.at("ij").integer(1);
  s.kij = r.at("kij").integer(1);
  s.mb = r.at("mb").integer(1);
  return s;
}

DsmPassPlan pass_from(const Reader& r) {
  static const std::vector<std::string> chip_splits{"data", "model", "data_x_model_y", "model_x_data_y"};
  DsmPassPlan p;
  p.pass = static_cast<Pass>(r.at("pass").choice(pass_names()));
  p.chip_split = chip_splits[r.at("chip_split").choice(chip_splits)];
  p.core_split = split_from(r.at("core_split"));
  p.array_split = split_from(r.at("array_split"));
  p.dysm_factor = static_cast<int>(r.at("dysm_factor").integer(1));
  p.memory_reuse = r.at("memory_reuse").boolean();
  p.weight_reuse = r.at("weight_reuse").boolean();
  if (r.has("pipe_group")) p.pipe_group = static_cast<int>(r.at("pipe_group").integer(0));
  if (r.has("chips"))
    for (const auto& c : r.at("chips").elements()) p.chips.push_back(static_cast<int>(c.integer(0)));
  p.predicted = cost_from(r.at("predicted"));
  return p;
}

}  // namespace

std::string to_string(Pass pass) { return pass_names()[static_cast<size_t>(pass)]; }
std::string to_string(Mode mode) { return mode_names()[static_cast<size_t>(mode)]; }
std::string to_string(AccParType type) { return type_names()[static_cast<size_t>(type)]; }

ordered_json plan_to_json(const Plan& plan) {
  ordered_json j;
  j["schema"] = plan.schema;
  j["strategy"] = plan.strategy;
  j["options"] = plan.options;
  j["tool_version"] = plan.tool_version;
  j["config"] = ordered_json{{"name", plan.config.name}, {"hash", plan.config.hash}, {"file", plan.config.file}};
  j["workload"] = ordered_json{
      {"name", plan.workload.name}, {"batch", plan.workload.batch}, {"mode", to_string(plan.workload.mode)}};
  j["predicted"] = ordered_json{{"iteration_s", plan.predicted_iteration_s}};
  if (plan.memory)
    j["memory"] = ordered_json{{"per_device_bytes", plan.memory->per_device_bytes},
                               {"capacity_bytes", plan.memory->capacity_bytes},
                               {"weights_bytes", plan.memory->weights_bytes},
                               {"gradients_bytes", plan.memory->gradients_bytes},
                               {"activations_bytes", plan.memory->activations_bytes},
                               {"working_bytes", plan.memory->working_bytes}};
  ordered_json layers = ordered_json::array();
  for (const auto& layer : plan.layers) {
    ordered_json l;
    l["name"] = layer.name;
    l["predicted"] = cost_to_json(layer.predicted);
    if (!layer.devices.empty()) l["devices"] = layer.devices;
    if (!layer.levels.empty()) {
      ordered_json levels = ordered_json::array();
      for (const auto& level : layer.levels)
        levels.push_back(ordered_json{{"type", to_string(level.type)}, {"ratio", level.ratio}});
      l["levels"] = levels;
    }
    if (!layer.passes.empty()) {
      ordered_json passes = ordered_json::array();
      for (const auto& p : layer.passes) passes.push_back(pass_to_json(p));
      l["passes"] = passes;
    }
    layers.push_back(l);
  }
  j["layers"] = layers;
  return j;
}

Plan plan_from_json(const json& root, const std::string& file) {
  Reader r(root, "", file);
  if (!root.is_object()) r.fail("a plan must be a JSON object");
  Plan plan;
  plan.schema = static_cast<int>(r.at("schema").integer(1));
  if (plan.schema != kSchemaVersion)
    r.at("schema").fail("unsupported plan schema " + std::to_string(plan.schema) + " (this partsim reads schema " +
                        std::to_string(kSchemaVersion) + ")");
  plan.strategy = r.at("strategy").str();
  if (r.has("options"))
    for (const auto& o : r.at("options").elements()) plan.options.push_back(o.str());
  if (r.has("tool_version")) plan.tool_version = r.at("tool_version").str();
  Reader config = r.at("config");
  plan.config.name = config.at("name").str();
  plan.config.hash = config.at("hash").str();
  if (config.has("file")) plan.config.file = config.at("file").str();
  Reader workload = r.at("workload");
  plan.workload.name = workload.at("name").str();
  plan.workload.batch = workload.at("batch").integer(1);
  plan.workload.mode = static_cast<Mode>(workload.at("mode").choice(mode_names()));
  plan.predicted_iteration_s = r.at("predicted").at("iteration_s").number();
  if (r.has("memory")) {
    Reader m = r.at("memory");
    MemoryUse u;
    u.per_device_bytes = m.at("per_device_bytes").number();
    u.capacity_bytes = m.at("capacity_bytes").number();
    u.weights_bytes = m.at("weights_bytes").number();
    u.gradients_bytes = m.at("gradients_bytes").number();
    u.activations_bytes = m.at("activations_bytes").number();
    u.working_bytes = m.at("working_bytes").number();
    plan.memory = u;
  }
  for (const auto& lr : r.at("layers").elements()) {
    LayerPlan layer;
    layer.name = lr.at("name").str();
    layer.predicted = cost_from(lr.at("predicted"));
    if (lr.has("devices"))
      for (const auto& d : lr.at("devices").elements()) layer.devices.push_back(static_cast<int>(d.integer(0)));
    if (lr.has("levels")) {
      for (const auto& level : lr.at("levels").elements()) {
        AccParLevel l;
        l.type = static_cast<AccParType>(level.at("type").choice(type_names()));
        l.ratio = level.at("ratio").number();
        if (l.ratio > 1.0) level.at("ratio").fail("must be in [0, 1] (got " + level.at("ratio").value().dump() + ")");
        layer.levels.push_back(l);
      }
    }
    if (lr.has("passes"))
      for (const auto& p : lr.at("passes").elements()) layer.passes.push_back(pass_from(p));
    plan.layers.push_back(std::move(layer));
  }
  return plan;
}

std::string plan_to_text(const Plan& plan) { return plan_to_json(plan).dump(2) + "\n"; }

Plan load_plan(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw InputError(file + ": cannot open plan file");
  std::stringstream text;
  text << in.rdbuf();
  json root;
  try {
    root = json::parse(text.str());
  } catch (const json::parse_error& e) {
    throw InputError(file + ": not valid JSON: " + e.what());
  }
  return plan_from_json(root, file);
}

}  // namespace partsim::plan
