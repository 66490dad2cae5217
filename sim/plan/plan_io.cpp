#include "sim/plan/plan_io.hpp"

#include <nlohmann/json.hpp>
#include <fstream>
#include <sstream>

#include "sim/common/error.hpp"
#include "sim/plan/json_reader.hpp"

namespace partsim::plan {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;
using Reader = JsonReader;

const std::vector<std::string>& pass_names() {
  static const std::vector<std::string> names{"fwd", "bwd", "upd"};
  return names;
}
const std::vector<std::string>& mode_names() {
  static const std::vector<std::string> names{"training", "inference"};
  return names;
}

}  // namespace

const std::vector<std::string>& gradient_sync_order_names() {
  static const std::vector<std::string> names{"concurrent", "in_order"};
  return names;
}

const std::vector<std::string>& gradient_sync_algorithm_names() {
  static const std::vector<std::string> names{"all_reduce", "parameter_server"};
  return names;
}

const std::vector<std::string>& redistribution_names() {
  static const std::vector<std::string> names{"point_to_point", "collective"};
  return names;
}

namespace {

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

// Every kind by name, then `fits` (derived, for a reader's eye; checked on reading), then the device,
// the settings and the per-device entries where there are any.
ordered_json memory_to_json(const MemoryUse& m) {
  ordered_json j{{"per_device_bytes", m.per_device_bytes},   {"capacity_bytes", m.capacity_bytes},
                 {"weights_bytes", m.weights_bytes},         {"gradients_bytes", m.gradients_bytes},
                 {"optimizer_bytes", m.optimizer_bytes},     {"activations_bytes", m.activations_bytes},
                 {"working_bytes", m.working_bytes},         {"fits", m.fits()}};
  if (!m.device.empty()) j["device"] = m.device;
  if (m.settings)
    j["settings"] = ordered_json{
        {"optimizer", optimizer_names()[static_cast<std::size_t>(m.settings->optimizer)]},
        {"precision", training_precision_names()[static_cast<std::size_t>(m.settings->precision)]},
        {"fp32_main_gradients", m.settings->fp32_main_gradients}};
  if (!m.devices.empty()) {
    ordered_json devices = ordered_json::array();
    for (const MemoryUse& d : m.devices) devices.push_back(memory_to_json(d));
    j["devices"] = devices;
  }
  return j;
}

ordered_json sharding_to_json(const Sharding& s) {
  ordered_json j;
  if (!s.devices.empty()) j["devices"] = s.devices;
  ordered_json splits = ordered_json::array();
  for (const auto& split : s.splits) {
    ordered_json o{{"dim", to_string(split.dim)}, {"parts", split.parts}};
    if (!split.shares.empty()) o["shares"] = split.shares;
    if (!split.sizes.empty()) o["sizes"] = split.sizes;
    splits.push_back(o);
  }
  j["splits"] = splits;
  if (s.shared) j["shared"] = to_string(*s.shared);
  return j;
}

// ---- reading ----------------------------------------------------------------------------------

PredictedCost cost_from(const Reader& r) {
  r.only_keys({"total_s", "compute_s", "comm_s", "breakdown"});
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

Sharding sharding_from(const Reader& r) {
  r.only_keys({"devices", "splits", "shared"});
  Sharding s;
  if (r.has("devices")) {
    const auto devices = r.at("devices").elements();
    if (devices.empty()) r.at("devices").fail("must list at least one device (leave the key out for every device)");
    for (const auto& d : devices) s.devices.push_back(static_cast<int>(d.integer(0, 1 << 30)));
  }
  for (const auto& e : r.at("splits").elements()) {
    e.only_keys({"dim", "parts", "shares", "sizes"});
    ShardSplit split;
    split.dim = static_cast<ShardDim>(e.at("dim").choice(shard_dim_names()));
    split.parts = static_cast<int>(e.at("parts").integer(1, 1 << 30));
    if (e.has("shares"))
      for (const auto& x : e.at("shares").elements()) split.shares.push_back(x.number());
    if (e.has("sizes"))
      for (const auto& x : e.at("sizes").elements()) split.sizes.push_back(static_cast<int>(x.integer(1, 1 << 30)));
    s.splits.push_back(std::move(split));
  }
  if (r.has("shared")) s.shared = static_cast<ShardDim>(r.at("shared").choice(shard_dim_names()));
  return s;
}

// `top`: the plan's memory object (settings and per-device entries allowed); else one device's entry.
// optimizer_bytes and fits may be absent (plans written before they existed); fits, when given, must
// say what the numbers say.
MemoryUse memory_from_json(const Reader& m, bool top) {
  if (top)
    m.only_keys({"per_device_bytes", "capacity_bytes", "weights_bytes", "gradients_bytes", "optimizer_bytes",
                 "activations_bytes", "working_bytes", "fits", "device", "settings", "devices"});
  else
    m.only_keys({"per_device_bytes", "capacity_bytes", "weights_bytes", "gradients_bytes", "optimizer_bytes",
                 "activations_bytes", "working_bytes", "fits", "device"});
  MemoryUse u;
  u.per_device_bytes = m.at("per_device_bytes").number();
  u.capacity_bytes = m.at("capacity_bytes").number();
  u.weights_bytes = m.at("weights_bytes").number();
  u.gradients_bytes = m.at("gradients_bytes").number();
  if (m.has("optimizer_bytes")) u.optimizer_bytes = m.at("optimizer_bytes").number();
  u.activations_bytes = m.at("activations_bytes").number();
  u.working_bytes = m.at("working_bytes").number();
  if (m.has("fits") && m.at("fits").boolean() != u.fits())
    m.at("fits").fail(std::string("says ") + (u.fits() ? "false" : "true") + " but per_device_bytes is " +
                      (u.fits() ? "within" : "over") + " capacity_bytes");
  if (m.has("device")) u.device = m.at("device").str();
  if (top && m.has("settings")) {
    Reader s = m.at("settings");
    s.only_keys({"optimizer", "precision", "fp32_main_gradients"});
    MemorySettings settings;
    settings.optimizer = static_cast<Optimizer>(s.at("optimizer").choice(optimizer_names()));
    settings.precision = static_cast<TrainingPrecision>(s.at("precision").choice(training_precision_names()));
    settings.fp32_main_gradients = s.at("fp32_main_gradients").boolean();
    u.settings = settings;
  }
  if (top && m.has("devices"))
    for (const Reader& d : m.at("devices").elements()) u.devices.push_back(memory_from_json(d, false));
  return u;
}

}  // namespace

std::string to_string(Pass pass) { return pass_names()[static_cast<size_t>(pass)]; }
std::string to_string(Mode mode) { return mode_names()[static_cast<size_t>(mode)]; }
Pass pass_from_string(const std::string& name) {
  for (size_t i = 0; i < pass_names().size(); ++i)
    if (pass_names()[i] == name) return static_cast<Pass>(i);
  throw InputError("unknown pass '" + name + "' (allowed: " + join_names(pass_names()) + ")");
}

ordered_json plan_to_json(const Plan& plan) {
  ordered_json j;
  j["schema"] = plan.schema;
  j["strategy"] = plan.strategy;
  ordered_json options = ordered_json::object();
  for (const auto& [k, v] : plan.options) options[k] = v;
  j["options"] = options;
  if (plan.seed) j["seed"] = *plan.seed;
  j["tool_version"] = plan.tool_version;
  j["config"] = ordered_json{{"name", plan.config.name}, {"hash", plan.config.hash}, {"file", plan.config.file}};
  j["workload"] = ordered_json{
      {"name", plan.workload.name}, {"batch", plan.workload.batch}, {"mode", to_string(plan.workload.mode)}};
  j["predicted"] = ordered_json{{"iteration_s", plan.predicted_iteration_s}};
  if (plan.memory) j["memory"] = memory_to_json(*plan.memory);
  if (!plan.family->is_null()) j["family"] = *plan.family;
  if (!plan.configuration.empty()) {
    ordered_json configuration = ordered_json::object();
    for (const auto& [device, type] : plan.configuration) configuration[device] = type;
    j["configuration"] = configuration;
  }
  if (!(plan.schedule == ScheduleDirectives{}))
    j["schedule"] = ordered_json{
        {"overlap_gradient_sync", plan.schedule.overlap_gradient_sync},
        {"gradient_sync_order",
         gradient_sync_order_names()[static_cast<std::size_t>(plan.schedule.gradient_sync_order)]},
        {"gradient_bucket_bytes", plan.schedule.gradient_bucket_bytes},
        {"gradient_sync_algorithm",
         gradient_sync_algorithm_names()[static_cast<std::size_t>(plan.schedule.gradient_sync_algorithm)]},
        {"redistribution", redistribution_names()[static_cast<std::size_t>(plan.schedule.redistribution)]}};
  if (!plan.schedule.collective_algorithms.empty()) {
    ordered_json algorithms = ordered_json::object();
    for (const auto& [collective, algorithm] : plan.schedule.collective_algorithms) algorithms[collective] = algorithm;
    j["schedule"]["collective_algorithms"] = algorithms;
  }
  ordered_json layers = ordered_json::array();
  for (const auto& layer : plan.layers) {
    ordered_json l;
    l["name"] = layer.name;
    l["sharding"] = sharding_to_json(layer.sharding);
    l["predicted"] = cost_to_json(layer.predicted);
    if (!layer.passes.empty()) {
      ordered_json passes = ordered_json::object();
      for (const auto& p : layer.passes) passes[to_string(p.pass)] = cost_to_json(p.cost);
      l["passes"] = passes;
    }
    if (!layer.family->is_null()) l["family"] = *layer.family;
    layers.push_back(l);
  }
  j["layers"] = layers;
  return j;
}

Plan plan_from_json(const json& root, const std::string& file) {
  Reader r(root, "", file);
  if (!root.is_object()) r.fail("a plan must be a JSON object");
  Plan plan;
  plan.schema = static_cast<int>(r.at("schema").integer(1, 1 << 30));
  if (plan.schema != kSchemaVersion)
    r.at("schema").fail("plan schema " + std::to_string(plan.schema) + " is not read by this partsim (it reads schema " +
                        std::to_string(kSchemaVersion) +
                        "): make the plan again with this version's simplan, e.g. simplan --config C --workload W "
                        "--batch B --strategy S -o plan.json");
  r.only_keys({"schema", "strategy", "options", "seed", "tool_version", "config", "workload", "predicted", "memory",
               "family", "configuration", "schedule", "layers"});
  plan.strategy = r.at("strategy").str();
  if (r.has("options")) {
    Reader o = r.at("options");
    if (!o.value().is_object()) o.fail("expected an object of option values (key: value)");
    for (const auto& [k, v] : o.value().items()) plan.options[k] = o.at(k).str();
  }
  if (r.has("seed")) plan.seed = static_cast<std::uint64_t>(r.at("seed").integer(0));
  if (r.has("tool_version")) plan.tool_version = r.at("tool_version").str();
  Reader config = r.at("config");
  config.only_keys({"name", "hash", "file"});
  plan.config.name = config.at("name").str();
  plan.config.hash = config.at("hash").str();
  if (config.has("file")) plan.config.file = config.at("file").str();
  Reader workload = r.at("workload");
  workload.only_keys({"name", "batch", "mode"});
  plan.workload.name = workload.at("name").str();
  plan.workload.batch = workload.at("batch").integer(1);
  plan.workload.mode = static_cast<Mode>(workload.at("mode").choice(mode_names()));
  r.at("predicted").only_keys({"iteration_s"});
  plan.predicted_iteration_s = r.at("predicted").at("iteration_s").number();
  if (r.has("memory")) plan.memory = memory_from_json(r.at("memory"), true);
  if (r.has("family")) *plan.family = r.at("family").value();
  if (r.has("configuration")) {
    Reader c = r.at("configuration");
    if (!c.value().is_object()) c.fail("expected an object from device names to device type names");
    for (const auto& [k, v] : c.value().items()) plan.configuration[k] = c.at(k).str();
  }
  if (r.has("schedule")) {
    Reader schedule = r.at("schedule");
    schedule.only_keys({"overlap_gradient_sync", "gradient_sync_order", "gradient_bucket_bytes", "gradient_sync_algorithm",
                        "redistribution", "collective_algorithms"});
    if (schedule.has("collective_algorithms")) {
      Reader a = schedule.at("collective_algorithms");
      a.only_keys({"reduce_scatter", "all_gather", "all_reduce"});
      for (const auto& [collective, name] : a.value().items()) plan.schedule.collective_algorithms[collective] = a.at(collective).str();
    }
    if (schedule.has("redistribution"))
      plan.schedule.redistribution =
          static_cast<Redistribution>(schedule.at("redistribution").choice(redistribution_names()));
    if (schedule.has("gradient_sync_algorithm"))
      plan.schedule.gradient_sync_algorithm = static_cast<GradientSyncAlgorithm>(
          schedule.at("gradient_sync_algorithm").choice(gradient_sync_algorithm_names()));
    if (schedule.has("gradient_bucket_bytes"))
      plan.schedule.gradient_bucket_bytes = schedule.at("gradient_bucket_bytes").number();
    if (schedule.has("overlap_gradient_sync"))
      plan.schedule.overlap_gradient_sync = schedule.at("overlap_gradient_sync").boolean();
    if (schedule.has("gradient_sync_order"))
      plan.schedule.gradient_sync_order =
          static_cast<GradientSyncOrder>(schedule.at("gradient_sync_order").choice(gradient_sync_order_names()));
  }
  for (const auto& lr : r.at("layers").elements()) {
    lr.only_keys({"name", "sharding", "predicted", "passes", "family"});
    LayerPlan layer;
    layer.name = lr.at("name").str();
    layer.sharding = sharding_from(lr.at("sharding"));
    layer.predicted = cost_from(lr.at("predicted"));
    if (lr.has("passes")) {
      Reader passes = lr.at("passes");
      passes.only_keys({"fwd", "bwd", "upd"});
      for (const auto& name : pass_names())
        if (passes.has(name)) layer.passes.push_back({pass_from_string(name), cost_from(passes.at(name))});
    }
    if (lr.has("family")) *layer.family = lr.at("family").value();
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
  return plan_from_text(text.str(), file);
}

Plan plan_from_text(const std::string& text, const std::string& file) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {
    throw InputError(file + ": not valid JSON: " + e.what());
  }
  return plan_from_json(root, file);
}

}  // namespace partsim::plan
