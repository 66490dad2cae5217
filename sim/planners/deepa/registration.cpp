#include "sim/planners/deepa/registration.hpp"

#include <nlohmann/json.hpp>
#include <chrono>
#include <cstdio>
#include <sstream>

#include "sim/common/error.hpp"
#include "sim/common/wall_clock.hpp"
#include "sim/plan/json_reader.hpp"
#include "sim/planners/deepa/notation.hpp"

namespace partsim::deepa {
namespace {

/// The transfer into layer v from its producers at their chosen configurations, for v's configuration c.
double xfer_in_s(const DeepaRun& run, std::size_t v, int c) {
  double t = 0;
  const auto& edges = run.model->edges();
  for (std::size_t e = 0; e < edges.size(); ++e)
    if (edges[e].to == v) t += run.model->xfer(e, run.search.choice[edges[e].from], c).time_s;
  return t;
}

double xfer_out_s(const DeepaRun& run, std::size_t v, int c) {
  double t = 0;
  const auto& edges = run.model->edges();
  for (std::size_t e = 0; e < edges.size(); ++e)
    if (edges[e].from == v) t += run.model->xfer(e, c, run.search.choice[edges[e].to]).time_s;
  return t;
}

Configuration config_from(const nlohmann::json& family, std::size_t i, const std::string& file) {
  const plan::JsonReader r(family, "/layers/" + std::to_string(i) + "/family", file);
  r.only_keys({"n", "c", "h", "w", "workers"});
  Configuration c;
  c.n = static_cast<int>(r.at("n").integer(1, 1 << 30));
  c.c = static_cast<int>(r.at("c").integer(1, 1 << 30));
  c.h = static_cast<int>(r.at("h").integer(1, 1 << 30));
  c.w = static_cast<int>(r.at("w").integer(1, 1 << 30));
  if (r.at("workers").integer(1, 1 << 30) != c.workers())
    r.at("workers").fail("must be n x c x h x w = " + std::to_string(c.workers()));
  return c;
}

void check_deepa_plan(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph,
                      const std::string& file) {
  const topology::TopologyGraph topology(spec, topology::Granularity::chip);
  const std::vector<int> order = locality_order(topology);
  for (std::size_t i = 0; i < plan.layers.size() && i < graph.size(); ++i) {
    const Configuration c = config_from(plan.layers[i].family, i, file);
    const std::string where = file + ": /layers/" + std::to_string(i);
    if (c.workers() > spec.device_count())
      throw InputError(where + "/family/workers: " + std::to_string(c.workers()) + " workers, platform '" + spec.name +
                       "' has " + std::to_string(spec.device_count()) + " devices");
    if (!(plan.layers[i].sharding == sharding_of(c, order)))
      throw InputError(where + "/sharding: does not match the layer's DeePa configuration (family) on platform '" +
                       spec.name + "' (re-run simplan)");
  }
}

}  // namespace

planner::OptionBindings<DeepaOptions> option_bindings() {
  using planner::OptionType;
  const std::vector<std::string> dims{"n", "c", "h", "w"};
  char default_limit[32];
  std::snprintf(default_limit, sizeof default_limit, "%g", kDefaultXferLimit);
  planner::OptionBindings<DeepaOptions> b;
  b.integer("max_workers", &DeepaOptions::max_workers, "all",
            "most workers of one configuration (powers of two up to it, and it); all = the device count",
            {1, 1'000'000}, {{"all", 0}});  // above the device count: the device count
  b.add({"dims", OptionType::words, "all", "dimensions a configuration may split (n images, c channels, h, w)", dims, {}},
        [dims](DeepaOptions& o, const planner::OptionValue& v) {
          o.dims = {false, false, false, false};
          for (const auto& d : v.words(dims)) {
            if (d == "n") o.dims.n = true;
            if (d == "c") o.dims.c = true;
            if (d == "h") o.dims.h = true;
            if (d == "w") o.dims.w = true;
          }
        });
  b.add({"kernel_efficiency", OptionType::choice, "shape",
         "compute(c): shape = peak x the shard's GEMM half-performance efficiency x the per-image plane term "
         "(docs/model.md \"DeePa\"), gemm = without the plane term, none = the device model's peak",
         {"shape", "gemm", "none"}, {}},
        [](DeepaOptions& o, const planner::OptionValue& v) {
          o.kernel_efficiency = v.text() != "none";
          o.plane_term = v.text() == "shape";
        });
  b.choice("memory", &DeepaOptions::check_memory, {{"check", true}, {"ignore", false}}, "check",
           "check = refuse configurations whose shard (weights, activations and their gradients) exceeds device memory, "
           "and plans that do not fit (DeePa Fig. 13); ignore = no capacity limit");
  b.choice("space", &DeepaOptions::space, {{"all", Space::all}, {"image", Space::image}, {"owt", Space::owt}}, "all",
           "configurations searched: all, image (image parallelism on every device, Fig. 7 purple), owt (conv/pool "
           "image-parallel, fc channel-parallel, Fig. 7 green)");
  b.flag("overlap", &DeepaOptions::overlap, "true",
         "§5: gradient all-reduces overlap back-propagation (false: they wait for its end; the plan's "
         "schedule.overlap_gradient_sync)");
  b.choice("update", &DeepaOptions::update,
           {{"all_reduce", plan::GradientSyncAlgorithm::all_reduce},
            {"parameter_server", plan::GradientSyncAlgorithm::parameter_server}},
           "all_reduce",
           "update(c)'s gradient synchronisation, also the plan's schedule.gradient_sync_algorithm: "
           "all_reduce (a ring per replica group) or parameter_server (§5: one GPU of the group, a different "
           "one per layer, gathers the gradients and sends the parameters back)");
  b.number("xfer_limit", &DeepaOptions::xfer_limit, default_limit,
           "most precomputation a plan may need, in link-load updates of eq. 1's xfer tables (3-7 ns of CPU each); "
           "larger ones are refused up front (0: no limit)",
           {});
  return b;
}

DeepaRun run_deepa(const topology::SystemSpec& spec, const workloads::Graph& graph, plan::Mode mode,
                   const ModelOptions& options) {
  DeepaRun run;
  auto start = std::chrono::steady_clock::now();
  run.model = std::make_unique<CostModel>(spec, graph, mode, options);  // refuses work over xfer_limit
  const CostGraph cost_graph = run.model->cost_graph();
  run.model_s = seconds_since(start);
  start = std::chrono::steady_clock::now();
  run.search = eliminate_and_search(cost_graph);
  run.search_s = seconds_since(start);
  run.model->check_memory(run.search.choice);
  return run;
}

DataTransferred data_transferred(const DeepaRun& run) {
  DataTransferred d;
  const auto& edges = run.model->edges();
  for (std::size_t e = 0; e < edges.size(); ++e)
    d.xfer_bytes += run.model->xfer(e, run.search.choice[edges[e].from], run.search.choice[edges[e].to]).bytes;
  for (std::size_t v = 0; v < run.search.choice.size(); ++v) d.update_bytes += run.model->node(v, run.search.choice[v]).update_bytes;
  return d;
}

plan::Plan make_deepa_plan(const planner::PlanInputs& in) {
  const DeepaOptions options = option_bindings().read(in.resolved);
  const DeepaRun run = run_deepa(in.spec, in.graph, in.mode, options);
  plan::Plan p;
  p.predicted_iteration_s = run.search.cost;
  p.schedule.overlap_gradient_sync = options.overlap;
  if (in.mode == plan::Mode::training) p.schedule.gradient_sync_algorithm = options.update;
  for (std::size_t v = 0; v < in.graph.size(); ++v) {
    const int c = run.search.choice[v];
    const Configuration& config = run.model->configurations(v)[static_cast<std::size_t>(c)];
    const NodeCost& node = run.model->node(v, c);
    plan::LayerPlan layer;
    layer.name = in.graph.layer(v).name;
    layer.sharding = run.model->sharding(v, c);
    const double xfer = xfer_in_s(run, v, c);
    layer.predicted.compute_s = node.compute_s;
    layer.predicted.comm_s = node.update_s + xfer;
    layer.predicted.total_s = node.compute_s + node.update_s + xfer;
    layer.predicted.breakdown = {{"compute_s", node.compute_s}, {"update_s", node.update_s}, {"xfer_in_s", xfer}};
    *layer.family = {{"n", config.n}, {"c", config.c}, {"h", config.h}, {"w", config.w}, {"workers", config.workers()}};
    p.layers.push_back(std::move(layer));
  }
  const DataTransferred data = data_transferred(run);
  *p.family = {{"search",
               {{"node_eliminations", run.search.node_eliminations},
                {"edge_eliminations", run.search.edge_eliminations},
                {"nodes_left", run.search.nodes_left},
                {"edges_left", run.search.edges_left},
                {"enumerated", run.search.enumerated},
                {"refused_for_memory", run.model->refused_configurations()}}},
              {"data_transferred_bytes", {{"xfer", data.xfer_bytes}, {"update", data.update_bytes}}}};
  return p;
}

std::string explain_layer(const planner::PlanInputs& in, const std::string& layer_name) {
  const std::size_t v = [&] {
    in.graph.layer(layer_name);  // UnknownNameError listing the layers
    return *in.graph.index_of(layer_name);
  }();
  const DeepaRun run = run_deepa(in.spec, in.graph, in.mode, option_bindings().read(in.resolved));
  const auto& configs = run.model->configurations(v);
  const workloads::Layer& L = in.graph.layer(v);
  const bool two_dims = !has_spatial_dims(L);
  std::ostringstream out;
  char buf[512];
  std::string producers;
  for (std::size_t u : in.graph.predecessors(v))
    producers += (producers.empty() ? "" : ", ") + in.graph.layer(u).name + " " +
                 to_string(run.model->configurations(u)[static_cast<std::size_t>(run.search.choice[u])], !has_spatial_dims(in.graph.layer(u)));
  std::snprintf(buf, sizeof buf, "layer %s (%s), output %s, minibatch %lld, on %s (%d devices)\n", L.name.c_str(),
                std::string(workloads::to_string(L.kind)).c_str(), workloads::to_string(L.output_shape).c_str(),
                static_cast<long long>(in.graph.batch()), in.spec.name.c_str(), in.spec.device_count());
  out << buf;
  out << "producers at their chosen configurations: " << (producers.empty() ? "none" : producers) << "\n";
  out << "Costs in milliseconds per step (DeePa eq. 1, Tables 2 and 3): transfer = xfer of the inputs from the\n"
         "producers' chosen configurations (forward, and errors back in training); compute = forward + backward;\n"
         "update = gradient synchronisation; total = transfer + compute + update. 'then out' = xfer to the\n"
         "consumers' chosen configurations (charged to them).\n";
  std::snprintf(buf, sizeof buf, "%-28s | %7s | %12s | %12s | %12s | %12s | %12s | %s\n", "configuration", "workers",
                "transfer", "compute", "update", "total", "then out", "");
  out << buf;
  for (std::size_t c = 0; c < configs.size(); ++c) {
    const int ci = static_cast<int>(c);
    const NodeCost& node = run.model->node(v, ci);
    const double xin = xfer_in_s(run, v, ci), xout = xfer_out_s(run, v, ci);
    std::string mark;
    if (ci == run.search.choice[v]) mark = "DeePa";
    if (configs[c].workers() == in.spec.device_count() && configs[c].n == configs[c].workers())
      mark += mark.empty() ? "image parallelism" : ", image parallelism";
    std::snprintf(buf, sizeof buf, "%-28s | %7d | %12.3f | %12.3f | %12.3f | %12.3f | %12.3f | %s\n",
                  to_string(configs[c], two_dims).c_str(), configs[c].workers(), xin * 1e3, node.compute_s * 1e3,
                  node.update_s * 1e3, (xin + node.compute_s + node.update_s) * 1e3, xout * 1e3, mark.c_str());
    out << buf;
  }
  std::snprintf(buf, sizeof buf,
                "search: %d node and %d edge eliminations left %d nodes and %d edges; %llu global configurations "
                "enumerated; model %.3f s, search %.3f s\n",
                run.search.node_eliminations, run.search.edge_eliminations, run.search.nodes_left, run.search.edges_left,
                static_cast<unsigned long long>(run.search.enumerated), run.model_s, run.search_s);
  out << buf;
  return out.str();
}

void register_strategies(planner::StrategyRegistry& registry) {
  planner::StrategyInfo info;
  info.name = "deepa";
  info.description = "DeePa: per-layer degrees over n, c, h, w on a device subset, node/edge elimination on eq. 1 (Jia et al., DeePa)";
  info.options = option_bindings().specs();
  info.plan = make_deepa_plan;
  info.check = check_deepa_plan;
  info.explain = explain_layer;
  registry.add(std::move(info));
  registry.add_notation(notation_view());  // DeePa's n, c, h, w of the output in describe JSON
}

}  // namespace partsim::deepa
