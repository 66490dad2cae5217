#include "sim/planners/megatron/registration.hpp"

#include <nlohmann/json.hpp>
#include <iostream>

#include "sim/common/error.hpp"
#include "sim/planners/megatron/lowering.hpp"
#include "sim/planners/megatron/planner.hpp"

namespace partsim::megatron {
namespace {

// The stage (device) a block runs on: with v chunks per device, block b is in chunk b / (L/(p v)),
// on stage chunk mod p (N21 §2.2.2: device i holds chunks i, i + p, ...).
int stage_of_block(const Configuration& c, int layers, int block) {
  const int chunk = block / (layers / (c.pp * c.virtual_stages));
  return chunk % c.pp;
}

// Where a layer's work is, as plan.json's sharding says it (what the lowering will read): the stage's
// devices in rank order, the batch over dp, then within each replica the tensor-parallel split
// (tp_sharding.hpp: heads / columns as out_channels, rows as in_channels, the rest along the
// sequence).
plan::Sharding sharding_of(const Configuration& c, int stage, const workloads::Layer& l, int hidden) {
  plan::Sharding s;
  for (int d = 0; d < c.dp; ++d)
    for (int t = 0; t < c.tp; ++t) s.devices.push_back(device_of(c, t, d, stage));
  if (c.dp > 1) s.splits.push_back({plan::ShardDim::batch, c.dp, {}, {}});
  if (c.tp > 1) {
    plan::ShardDim dim = plan::ShardDim::height;
    if (l.kind == workloads::LayerKind::attention) dim = plan::ShardDim::out_channels;
    if (l.kind == workloads::LayerKind::fc)
      dim = !l.input_shapes.empty() && l.input_shapes[0].c != hidden ? plan::ShardDim::in_channels : plan::ShardDim::out_channels;
    s.splits.push_back({dim, c.tp, {}, {}});
  }
  return s;
}

plan::Plan make_megatron_plan(const planner::PlanInputs& in) {
  if (in.mode != plan::Mode::training) throw InputError("megatron: plans training iterations only (got --mode inference)");
  const RecognisedModel model = recognise(in.graph);
  const topology::TopologyGraph topology(in.spec, topology::Granularity::chip);
  const MegatronOptions options = option_bindings().read(in.resolved);
  Configuration c = options;
  Prediction pr;
  nlohmann::json search_json;
  if (options.search) {
    const SearchResult r = search(in.spec, topology, in.graph, model, c, in.progress);
    c = r.best;
    c.fold_replicas = options.fold_replicas;  // not searched: how the plan is lowered
    pr = r.prediction;
    search_json = {{"candidates", r.candidates}, {"over_memory", r.over_memory}, {"seconds", r.seconds}};
    std::cerr << "megatron: search tried " << r.candidates << " configurations (" << r.over_memory
              << " over memory) in " << r.seconds << " s: tp " << c.tp << ", pp " << c.pp << ", microbatch "
              << c.microbatch << ", " << schedule_name(c.schedule) << ", recompute " << recompute_name(c.recompute)
              << ", zero " << c.zero << "\n";
  } else {
    c = complete(c, in.spec.device_count(), in.graph.batch(), model.shape);
    pr = predict(in.spec, topology, in.graph, model, c);
  }
  plan::Plan p;
  p.predicted_iteration_s = pr.iteration_s;
  p.memory = pr.memory;
  const int m = c.micro_batches;
  for (std::size_t i = 0; i < in.graph.size(); ++i) {
    plan::LayerPlan lp;
    lp.name = in.graph.layer(i).name;
    p.layers.push_back(std::move(lp));
  }
  const auto fill = [&](std::size_t i, int stage, int block, double compute_s, double comm_s) {
    plan::LayerPlan& lp = p.layers[i];
    lp.sharding = sharding_of(c, stage, in.graph.layer(i), model.shape.hidden);
    lp.predicted.compute_s = m * compute_s;
    lp.predicted.comm_s = m * comm_s;
    lp.predicted.total_s = lp.predicted.compute_s + lp.predicted.comm_s;
    lp.predicted.breakdown = {{"compute_s", lp.predicted.compute_s}, {"tp_comm_s", lp.predicted.comm_s}};
    *lp.family = {{"stage", stage}, {"block", block}};
  };
  for (std::size_t k = 0; k < model.head.size(); ++k) fill(model.head[k], 0, -1, pr.head_layer_compute_s[k], 0);
  for (std::size_t k = 0; k < model.tail.size(); ++k) fill(model.tail[k], c.pp - 1, -1, pr.tail_layer_compute_s[k], 0);
  for (std::size_t b = 0; b < model.blocks.size(); ++b)
    for (std::size_t k = 0; k < model.blocks[b].size(); ++k) {
      const std::size_t i = model.blocks[b][k];
      // The block's TP collectives are charged to its attention layer (Megatron's f/g pairs sit
      // around the attention and the MLP; one block total, per micro-batch, forward and backward).
      const bool attention = in.graph.layer(i).kind == workloads::LayerKind::attention;
      fill(i, stage_of_block(c, model.shape.layers, static_cast<int>(b)), static_cast<int>(b), pr.block_layer_compute_s[k],
           attention ? pr.block_tp_s : 0);
    }
  *p.family = {{"tp", c.tp},
              {"pp", c.pp},
              {"dp", c.dp},
              {"microbatch", c.microbatch},
              {"micro_batches", c.micro_batches},
              {"schedule", schedule_name(c.schedule)},
              {"virtual_stages", c.virtual_stages},
              {"sequence_parallel", c.sequence_parallel},
              {"recompute", recompute_name(c.recompute)},
              {"zero", c.zero},
              {"overlap_grad_reduce", c.overlap_grad_reduce},
              {"overlap_param_gather", c.overlap_param_gather},
              {"rank_order", rank_order_name(c.rank_order)},
              {"fold_replicas", c.fold_replicas},
              {"optimizer", c.optimizer_step ? "adam" : "none"},
              {"shape",
               {{"layers", model.shape.layers},
                {"hidden", model.shape.hidden},
                {"heads", model.shape.heads},
                {"sequence", model.shape.sequence},
                {"vocabulary", model.shape.vocabulary}}},
              {"prediction",
               {{"iteration_s", pr.iteration_s},
                {"pipeline_s", pr.pipeline_s},
                {"bubble_s", pr.bubble_s},
                {"slowest_stage", pr.slowest_stage},
                {"forward_s", pr.forward_s},
                {"backward_s", pr.backward_s},
                {"forward_compute_s", pr.forward_compute_s},
                {"backward_compute_s", pr.backward_compute_s},
                {"recompute_s", pr.recompute_s},
                {"tp_forward_s", pr.tp_forward_s},
                {"tp_backward_s", pr.tp_backward_s},
                {"send_s", pr.send_s},
                {"dp_s", pr.dp_s},
                {"dp_exposed_s", pr.dp_exposed_s},
                {"optimizer_step_s", pr.optimizer_s}}}};
  if (!search_json.is_null()) (*p.family)["search"] = search_json;
  return p;
}

void check_megatron_plan(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph&,
                         const std::string& file) {
  long long devices = 1;
  for (const char* key : {"tp", "pp", "dp"}) {
    if (!plan.family->is_object() || !plan.family->contains(key) || !(*plan.family)[key].is_number_integer() ||
        (*plan.family)[key].get<long long>() < 1)
      throw InputError(file + ": /family/" + key + ": a megatron plan needs a whole number >= 1 (re-run simplan)");
    devices *= (*plan.family)[key].get<long long>();
  }
  if (devices != spec.device_count())
    throw InputError(file + ": /family: tp x pp x dp = " + std::to_string(devices) + " devices, platform '" + spec.name +
                     "' has " + std::to_string(spec.device_count()));
}

}  // namespace

planner::OptionBindings<MegatronOptions> option_bindings() {
  using O = MegatronOptions;
  const planner::OptionRange positive{1, 1'000'000};
  planner::OptionBindings<O> b;
  b.integer("tp", &O::tp, "1", "tensor-parallel degree t (--tensor-model-parallel-size); ranks t fastest", positive);
  b.integer("pp", &O::pp, "1", "pipeline stages p (--pipeline-model-parallel-size); dp = devices / (tp x pp)", positive);
  b.integer("microbatch", &O::microbatch, "1",
            "samples per micro-batch b (--micro-batch-size); --batch is the global batch, m = batch / (b x dp) must be whole",
            positive);
  b.choice("schedule", &O::schedule, {"gpipe", "1f1b", "interleaved"}, parse_schedule, "1f1b", "pipeline schedule (N21 §2.2)");
  b.integer("virtual_stages", &O::virtual_stages, "1", "model chunks per device v (>= 2 with schedule=interleaved only)",
            positive);
  b.flag("sequence_parallel", &O::sequence_parallel, "false", "sequence parallelism (K22 §4.2.2, --sequence-parallel)");
  b.choice("recompute", &O::recompute, {"none", "selective", "full"}, parse_recompute, "none",
           "activation recomputation (K22 §5, --recompute-granularity)");
  b.integer("zero", &O::zero, "0",
            "ZeRO stage over dp: 0 none, 1 optimizer states (--use-distributed-optimizer), 2 + gradients, 3 + parameters",
            {0, 3});
  b.flag("overlap_grad_reduce", &O::overlap_grad_reduce, "false", "overlap the DP gradient reduction with the backward");
  b.flag("overlap_param_gather", &O::overlap_param_gather, "false", "overlap ZeRO's parameter all-gather with the forward");
  b.choice("rank_order", &O::rank_order, rank_order_names(), parse_rank_order, rank_order_name(kMegatronRankOrder),
           "how ranks map to devices, fastest axis first: tp-dp-pp is Megatron-LM's default (TP groups inside a node), "
           "tp-pp-dp its --use-tp-pp-dp-mapping; device i is rank i");
  b.choice("optimizer", &O::optimizer_step, {{"adam", true}, {"none", false}}, "adam",
           "the optimizer step after the DP reduction: adam (Megatron-LM's default: fp32 states, 28 B and 12 FLOP per "
           "parameter the device updates, by the device model) or none (the pipeline and reductions alone)");
  b.flag("fold_replicas", &O::fold_replicas, "false",
         "lowering only: emit replica 0's compute, TP collectives and pipeline sends for every data-parallel replica "
         "(the others' devices run only the DP collectives, waiting for replica 0's tasks); exact in the closed form, "
         "neglects the other replicas' TP and pipeline traffic on links their DP collectives share "
         "(docs/model.md \"Folded data-parallel replicas\")");
  b.flag("search", &O::search, "false",
         "choose tp, pp, microbatch, schedule, recompute and zero that fit memory with the least predicted time "
         "(the options given for those are then ignored)");
  return b;
}

void register_strategies(planner::StrategyRegistry& registry) {
  planner::StrategyInfo info;
  info.name = "megatron";
  info.description =
      "Megatron-LM: tensor (+sequence), pipeline and data parallelism with ZeRO and recomputation for decoder "
      "transformers (Narayanan 2021, Korthikanti 2022, Rajbhandari 2020)";
  info.options = option_bindings().specs();
  info.plan = make_megatron_plan;
  info.check = check_megatron_plan;
  // Not the shared sharding lowering: a megatron plan's pipeline schedule, TP collectives and
  // pipeline sends are not what that lowering reads; lowering.hpp builds them from the same device
  // model and collective registry.
  info.lower = lower_megatron;
  registry.add(std::move(info));
}

}  // namespace partsim::megatron
