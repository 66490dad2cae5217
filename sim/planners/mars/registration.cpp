#include "sim/planners/mars/registration.hpp"

#include <nlohmann/json.hpp>
#include <algorithm>
#include <cstdio>

#include "sim/common/error.hpp"
#include "sim/common/number_text.hpp"
#include "sim/planners/mars/h2h_mapping.hpp"

namespace partsim::mars {
namespace {

void require_inference(const planner::PlanInputs& in, const std::string& name) {
  if (in.mode != plan::Mode::inference)
    throw InputError("strategy " + name + " plans inference (MARS): give --mode inference");
}

/// mars's options as planned: the seed is --seed's.
MarsOptions mars_options(const planner::PlanInputs& in) {
  MarsOptions o = mars_option_bindings().read(in.resolved);
  o.seed = in.seed.value_or(1);
  return o;
}

std::string explain_layer(const planner::PlanInputs& in, const std::string& layer_name) {
  const LatencyModel m(in.spec, in.graph, mars_options(in).designs);
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

plan::Plan mars_plan(const planner::PlanInputs& in) {
  require_inference(in, "mars");
  const MarsOptions o = mars_options(in);
  const LatencyModel m(in.spec, in.graph, o.designs);
  const Mapping mapping = o.run_search ? search(m, o) : baseline(m);
  if (!(mapping.latency_s < 1e300))
    throw InputError("mars: no mapping fits the accelerators' DRAM (" + in.graph.name() + " on " + in.spec.name +
                     "); try more generations or a larger population");
  return mapping_plan(m, mapping);
}

plan::Plan h2h_plan(const planner::PlanInputs& in) {
  require_inference(in, "h2h");
  const LatencyModel m(in.spec, in.graph, DesignChoice::fixed);
  const H2hMapping mapping = h2h_mapping(m, h2h_option_bindings().read(in.resolved));
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

planner::OptionBindings<MarsOptions> mars_option_bindings() {
  const planner::OptionRange kCount{1, 100000};        // populations, sets
  const planner::OptionRange kGenerations{0, 100000};  // 0: the initial generation only
  const planner::OptionRange kRate{0, 1};              // probabilities
  // A population of one has no pair to cross: two at least (the declared range starts at 1).
  const auto at_least_two = [](int MarsOptions::*field) {
    return [field](MarsOptions& o, const planner::OptionValue& v) { o.*field = std::max(2, static_cast<int>(v.integer())); };
  };
  planner::OptionBindings<MarsOptions> b;
  b.add({"population", planner::OptionType::integer, "16", "first-level GA: mappings per generation", {}, kCount},
        at_least_two(&MarsOptions::population));
  b.integer("generations", &MarsOptions::generations, "20", "first-level GA: generations after the initial one", kGenerations);
  b.number("mutation", &MarsOptions::mutation, "0.1", "first-level GA: probability that a gene is redrawn", kRate);
  b.add({"inner_population", planner::OptionType::integer, "12",
         "second-level GA (per set, design and layer set): strategy vectors per generation", {}, kCount},
        at_least_two(&MarsOptions::inner_population));
  b.integer("inner_generations", &MarsOptions::inner_generations, "15", "second-level GA: generations", kGenerations);
  b.number("inner_mutation", &MarsOptions::inner_mutation, "0.1", "second-level GA: probability that a gene is redrawn", kRate);
  b.integer("max_sets", &MarsOptions::max_sets, "4", "most accelerator sets (layer sets) in a mapping", kCount);
  b.choice("mapping", &MarsOptions::run_search, {{"search", true}, {"baseline", false}}, "search",
           "search = the two-level GA; baseline = §VI-A's baseline (the two groups, half the layers each, the "
           "fastest design per set, ES along each layer's two longest dimensions; the GA options are unused)");
  b.choice("designs", &MarsOptions::designs, {{"configure", DesignChoice::configure}, {"fixed", DesignChoice::fixed}},
           "configure",
           "configure = each accelerator set is configured to one of the platform's designs (the adaptive "
           "system of §III); fixed = every accelerator keeps its platform type and a set waits for its slowest "
           "member (the heterogeneous systems of §VI-C, Table IV)");
  return b;
}

planner::OptionBindings<H2hOptions> h2h_option_bindings() {
  planner::OptionBindings<H2hOptions> b;
  b.integer("max_moves", &H2hOptions::max_moves, "1000",
            "communication step: most single-layer moves to another accelerator (0 = none: the better of the "
            "earliest-finish mapping and the fastest single accelerator)",
            {0, 1000000});
  return b;
}

void register_strategies(planner::StrategyRegistry& registry) {
  planner::StrategyInfo mars;
  mars.name = "mars";
  mars.description =
      "MARS: accelerator sets and designs, contiguous layer sets and per-layer ES/SS by a two-level genetic "
      "algorithm, inference (MARS §IV-§V)";
  mars.stochastic = true;
  mars.options = mars_option_bindings().specs();
  mars.plan = mars_plan;
  mars.explain = explain_layer;
  registry.add(mars);

  planner::StrategyInfo h2h;
  h2h.name = "h2h";
  h2h.description =
      "computation- and communication-aware mapping in the spirit of H2H (MARS §VI-C, Table IV): each layer whole "
      "on one accelerator of fixed design, earliest finish first, then single-layer moves; inference";
  h2h.options = h2h_option_bindings().specs();
  h2h.plan = h2h_plan;
  registry.add(h2h);
}

}  // namespace partsim::mars
