#include "sim/mars/registration.hpp"

#include <nlohmann/json.hpp>
#include <algorithm>
#include <cstdio>

#include "sim/common/error.hpp"
#include "sim/common/number_text.hpp"
#include "sim/mars/h2h_mapping.hpp"

namespace partsim::mars {
namespace {

void require_inference(const planner::PlanInputs& in, const std::string& name) {
  if (in.mode != plan::Mode::inference)
    throw InputError("strategy " + name + " plans inference (MARS): give --mode inference");
}

SearchOptions search_options(const planner::PlanInputs& in) {
  SearchOptions o;
  // The declared ranges (register_strategies) hold already.
  auto count = [&](const char* key) { return static_cast<int>(in.resolved.integer(key)); };
  auto rate = [&](const char* key) { return in.resolved.number(key); };
  o.population = std::max(2, count("population"));
  o.generations = static_cast<int>(in.resolved.integer("generations"));
  o.mutation = rate("mutation");
  o.inner_population = std::max(2, count("inner_population"));
  o.inner_generations = static_cast<int>(in.resolved.integer("inner_generations"));
  o.inner_mutation = rate("inner_mutation");
  o.max_sets = count("max_sets");
  o.seed = in.seed.value_or(1);
  return o;
}

DesignChoice design_choice(const planner::PlanInputs& in) {
  return in.resolved.text("designs") == "fixed" ? DesignChoice::fixed : DesignChoice::configure;
}

std::string explain_layer(const planner::PlanInputs& in, const std::string& layer_name) {
  const LatencyModel m(in.spec, in.graph, design_choice(in));
  const auto index = in.graph.index_of(layer_name);
  if (!index) in.graph.layer(layer_name);  // throws UnknownNameError listing the layers
  const std::size_t v = *index;
  std::string out = "mars: layer " + layer_name + " (" + std::string(workloads::to_string(in.graph.layer(v).kind)) +
                    "), the five fastest ES/SS strategies per design and set size (MARS §IV; latency_model.hpp)\n";
  std::vector<std::size_t> sizes_seen;
  for (int set = 0; set < static_cast<int>(m.sets().size()); ++set) {
    const std::size_t size = m.sets()[static_cast<std::size_t>(set)].size();
    if (std::find(sizes_seen.begin(), sizes_seen.end(), size) != sizes_seen.end()) continue;
    sizes_seen.push_back(size);
    for (int d = 0; d < static_cast<int>(m.designs().size()); ++d) {
      std::vector<std::pair<double, LayerStrategy>> rows;
      for (const auto& s : all_strategies(static_cast<int>(size)))
        if (!s.ss || m.layer_cost(v, set, d, s).rotation_s > 0)  // an SS no two devices share is the ES alone
          rows.emplace_back(m.layer_cost(v, set, d, s).total_s(), s);
      std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      out += "  " + std::to_string(size) + " x " + m.designs()[static_cast<std::size_t>(d)] + " (ring " +
             std::to_string(m.ring_bandwidth(set) * 8 / 1e9).substr(0, 5) + " Gb/s):\n";
      for (std::size_t i = 0; i < rows.size() && i < 5; ++i) {
        const LayerCost& c = m.layer_cost(v, set, d, rows[i].second);
        out += "    " + to_string(rows[i].second) + ": total " + ms_text(c.total_s(), 4) + " = compute " +
               ms_text(c.compute_s, 4) + " + all-reduce " + ms_text(c.allreduce_s, 4) + " + SS rotation " +
               ms_text(c.rotation_s, 4) + "; weights " + std::to_string(c.weights_bytes / 1e6).substr(0, 7) +
               " MB per device\n";
      }
    }
  }
  return out;
}

plan::Plan plan_with(const planner::PlanInputs& in, const std::string& name, bool run_search) {
  require_inference(in, name);
  const LatencyModel m(in.spec, in.graph, design_choice(in));
  const Mapping mapping = run_search ? search(m, search_options(in)) : baseline(m);
  if (!(mapping.latency_s < 1e300))
    throw InputError(name + ": no mapping fits the accelerators' DRAM (" + in.graph.name() + " on " + in.spec.name +
                     "); try more generations or a larger population");
  return mapping_plan(m, mapping);
}

plan::Plan h2h_plan(const planner::PlanInputs& in) {
  require_inference(in, "h2h");
  const LatencyModel m(in.spec, in.graph, DesignChoice::fixed);
  H2hOptions options;
  options.max_moves = static_cast<int>(in.resolved.integer("max_moves"));
  const H2hMapping mapping = h2h_mapping(m, options);
  if (!(mapping.latency_s < 1e300)) {
    const DramNeeds needs = dram_needs(m);
    double dram = 0, total_dram = 0;
    for (int d = 0; d < in.spec.device_count(); ++d) {
      dram = std::max(dram, in.spec.device_type(d).memory_bytes());
      total_dram += in.spec.device_type(d).memory_bytes();
    }
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "h2h: no mapping fits the accelerators' DRAM (%s on %s): the largest layer needs %.3f GB (weights, "
                  "inputs, output) against %.3f GB on the largest accelerator, all weights %.3f GB against %.3f GB in "
                  "all; h2h keeps every layer whole on one accelerator (mars splits layers)",
                  in.graph.name().c_str(), in.spec.name.c_str(), needs.largest_layer_bytes / 1e9, dram / 1e9,
                  needs.weight_bytes / 1e9, total_dram / 1e9);
    throw InputError(buf);
  }
  plan::Plan p;
  p.predicted_iteration_s = mapping.latency_s;
  *p.family = {{"initial_latency_s", mapping.initial_latency_s}, {"moves", mapping.moves}};
  p.layers.resize(m.graph().size());
  for (std::size_t v = 0; v < m.graph().size(); ++v) {
    const int d = mapping.device[v];
    plan::LayerPlan& l = p.layers[v];
    l.name = m.graph().layer(v).name;
    l.sharding = to_sharding(LayerStrategy{}, {d});
    // The layer's own share of the schedule: its inputs' transfers (waiting for them) and its compute.
    double producers_done = 0;
    for (std::size_t u : m.graph().predecessors(v)) producers_done = std::max(producers_done, mapping.finish_s[u]);
    l.predicted.compute_s = mapping.finish_s[v] - mapping.start_s[v];
    l.predicted.comm_s = std::max(0.0, mapping.arrival_s[v] - producers_done);
    l.predicted.total_s = l.predicted.compute_s + l.predicted.comm_s;
    l.predicted.breakdown = {{"compute_s", l.predicted.compute_s}, {"input_transfer_s", l.predicted.comm_s}};
    *l.family = {{"device", m.spec().device_names[static_cast<std::size_t>(d)]},
                {"start_s", mapping.start_s[v]},
                {"finish_s", mapping.finish_s[v]}};
  }
  return p;
}

}  // namespace

plan::Plan mapping_plan(const LatencyModel& m, const Mapping& mapping) {
  plan::Plan p;
  p.predicted_iteration_s = mapping.latency_s;
  nlohmann::json sets = nlohmann::json::array();
  std::vector<plan::LayerPlan> layers(m.graph().size());
  for (std::size_t k = 0; k < mapping.sets.size(); ++k) {
    const SetMapping& s = mapping.sets[k];
    const auto& devices = m.sets()[static_cast<std::size_t>(s.set)];
    const std::string& design = m.designs()[static_cast<std::size_t>(s.design)];
    nlohmann::json names = nlohmann::json::array();
    for (int d : devices) {
      names.push_back(m.spec().device_names[static_cast<std::size_t>(d)]);
      if (!m.fixed_designs()) p.configuration[m.spec().device_names[static_cast<std::size_t>(d)]] = design;
    }
    sets.push_back({{"devices", names}, {"design", design}, {"first", m.graph().layer(s.first).name},
                    {"last", m.graph().layer(s.last).name}, {"latency_s", s.latency_s}});
    for (std::size_t v = s.first; v <= s.last; ++v) {
      LayerStrategy st = s.strategies[v - s.first];
      const LayerCost& c = m.layer_cost(v, s.set, s.design, st);
      if (st.ss && c.rotation_s <= 0) st.ss.reset();  // no two devices share the operand: plain ES
      plan::LayerPlan& l = layers[v];
      l.name = m.graph().layer(v).name;
      l.sharding = to_sharding(st, devices);
      l.predicted.compute_s = c.compute_s;
      l.predicted.comm_s = c.allreduce_s + c.rotation_s;
      l.predicted.total_s = c.total_s();
      l.predicted.breakdown = {{"compute_s", c.compute_s}, {"es_allreduce_s", c.allreduce_s}, {"ss_rotation_s", c.rotation_s}};
      *l.family = {{"set", static_cast<int>(k)}, {"design", design}, {"strategy", to_string(st)}};
      if (m.is_primary(v)) {  // its number among the convolution/FC layers (Table III's "Conv8")
        const auto& primary = m.primary_layers();
        (*l.family)["primary"] = static_cast<int>(std::find(primary.begin(), primary.end(), v) - primary.begin()) + 1;
      }
    }
  }
  *p.family = {{"sets", sets}, {"transfers_s", mapping.transfers_s}};
  p.layers = std::move(layers);
  return p;
}

void register_strategies(planner::StrategyRegistry& registry) {
  using planner::OptionSpec;
  using planner::OptionType;
  planner::StrategyInfo mars;
  mars.name = "mars";
  mars.description =
      "MARS: accelerator sets and designs, contiguous layer sets and per-layer ES/SS by a two-level genetic "
      "algorithm, inference (MARS §IV-§V)";
  mars.stochastic = true;
  const planner::OptionRange kCount{1, 100000};        // populations, sets
  const planner::OptionRange kGenerations{0, 100000};  // 0: the initial generation only
  const planner::OptionRange kRate{0, 1};              // probabilities
  mars.options = {
      OptionSpec{"population", OptionType::integer, "16", "first-level GA: mappings per generation", {}, kCount},
      OptionSpec{"generations", OptionType::integer, "20", "first-level GA: generations after the initial one", {}, kGenerations},
      OptionSpec{"mutation", OptionType::number, "0.1", "first-level GA: probability that a gene is redrawn", {}, kRate},
      OptionSpec{"inner_population", OptionType::integer, "12",
                 "second-level GA (per set, design and layer set): strategy vectors per generation", {}, kCount},
      OptionSpec{"inner_generations", OptionType::integer, "15", "second-level GA: generations", {}, kGenerations},
      OptionSpec{"inner_mutation", OptionType::number, "0.1", "second-level GA: probability that a gene is redrawn", {}, kRate},
      OptionSpec{"max_sets", OptionType::integer, "4", "most accelerator sets (layer sets) in a mapping", {}, kCount},
      OptionSpec{"mapping", OptionType::choice, "search",
                 "search = the two-level GA; baseline = §VI-A's baseline (the two groups, half the layers each, the "
                 "fastest design per set, ES along each layer's two longest dimensions; the GA options are unused)",
                 {"search", "baseline"}},
      OptionSpec{"designs", OptionType::choice, "configure",
                 "configure = each accelerator set is configured to one of the platform's designs (the adaptive "
                 "system of §III); fixed = every accelerator keeps its platform type and a set waits for its slowest "
                 "member (the heterogeneous systems of §VI-C, Table IV)",
                 {"configure", "fixed"}},
  };
  mars.plan = [](const planner::PlanInputs& in) { return plan_with(in, "mars", in.resolved.text("mapping") == "search"); };
  mars.explain = explain_layer;
  registry.add(mars);

  planner::StrategyInfo h2h;
  h2h.name = "h2h";
  h2h.description =
      "computation- and communication-aware mapping in the spirit of H2H (MARS §VI-C, Table IV): each layer whole "
      "on one accelerator of fixed design, earliest finish first, then single-layer moves; inference";
  h2h.options = {
      OptionSpec{"max_moves", OptionType::integer, "1000",
                 "communication step: most single-layer moves to another accelerator (0 = none: the better of the "
                 "earliest-finish mapping and the fastest single accelerator)",
                 {}, planner::OptionRange{0, 1000000}},
  };
  h2h.plan = h2h_plan;
  registry.add(h2h);
}

}  // namespace partsim::mars
