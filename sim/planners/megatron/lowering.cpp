#include "sim/planners/megatron/lowering.hpp"

#include <map>
#include <memory>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "sim/collectives/algorithm_registry.hpp"
#include "sim/common/error.hpp"
#include "sim/devices/shard_compute.hpp"
#include "sim/geometry/layer_geometry.hpp"
#include "sim/lowering/task_builders.hpp"
#include "sim/planners/megatron/activation_memory.hpp"
#include "sim/planners/megatron/optimizer_step.hpp"
#include "sim/planners/megatron/tp_sharding.hpp"
#include "sim/planners/megatron/transformer_costs.hpp"

namespace partsim::megatron {
namespace {

using plan::Pass;
using workloads::LayerKind;

bool is_norm(LayerKind k) { return k == LayerKind::layer_norm || k == LayerKind::rms_norm; }

}  // namespace

std::vector<LayerCollectives> block_collectives(const std::vector<LayerKind>& block, bool sp, Direction direction) {
  std::vector<LayerCollectives> out(block.size());
  for (std::size_t i = 0; i < block.size(); ++i) {
    const bool residual = block[i] == LayerKind::add;
    const bool after_norm = i > 0 && is_norm(block[i - 1]);
    LayerCollectives& c = out[i];
    if (direction == Direction::forward) {
      if (after_norm && sp) c.before.push_back("all_gather");                   // g (K22 Fig. 5)
      if (residual) c.before.push_back(sp ? "reduce_scatter" : "all_reduce");  // g-bar / f-bar
    } else {
      if (residual && sp) c.after.push_back("all_gather");  // g-bar's conjugate
      if (after_norm) {
        if (sp) c.before.push_back("all_gather");  // the stored Y^s, gathered again (K22 §4.2.2)
        c.after.push_back(sp ? "reduce_scatter" : "all_reduce");  // g's conjugate / f
      }
    }
  }
  return out;
}

Configuration configuration_of(const plan::Plan& plan) {
  const nlohmann::json& f = plan.family;
  const auto field = [&](const char* key) -> const nlohmann::json& {
    if (!f.is_object() || !f.contains(key))
      throw InputError(std::string("megatron plan: /family/") + key + " is missing (re-run simplan)");
    return f[key];
  };
  Configuration c;
  try {
    c.tp = field("tp").get<int>();
    c.pp = field("pp").get<int>();
    c.dp = field("dp").get<int>();
    c.microbatch = field("microbatch").get<int>();
    c.micro_batches = field("micro_batches").get<int>();
    c.schedule = parse_schedule(field("schedule").get<std::string>());
    c.virtual_stages = field("virtual_stages").get<int>();
    c.sequence_parallel = field("sequence_parallel").get<bool>();
    c.recompute = parse_recompute(field("recompute").get<std::string>());
    c.zero = field("zero").get<int>();
    c.overlap_grad_reduce = field("overlap_grad_reduce").get<bool>();
    c.overlap_param_gather = field("overlap_param_gather").get<bool>();
    // Plans written before the option existed used Megatron-LM's default order.
    if (f.contains("rank_order")) {
      try {
        c.rank_order = parse_rank_order(field("rank_order").get<std::string>());
      } catch (const InputError& e) {
        throw InputError(std::string("megatron plan: /family/") + e.what() + " (re-run simplan)");
      }
    }
    // Optional: plans written before the option existed lower unfolded.
    c.fold_replicas = f.value("fold_replicas", false);
    // Plans written before the option existed had no optimizer step.
    const std::string optimizer = f.value("optimizer", std::string("none"));
    if (optimizer != "adam" && optimizer != "none")
      throw InputError("megatron plan: /family/optimizer: unknown value '" + optimizer + "'; valid values are: adam, none");
    c.optimizer_step = optimizer == "adam";
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("megatron plan: /family: ") + e.what());
  }
  check_pipeline({c.schedule, c.pp, c.micro_batches, c.virtual_stages});
  return c;
}

namespace {

struct PassTimes {
  double fwd = 0, bwd = 0, upd = 0;
  double core = 0;  // the attention core's share of fwd (selective recomputation)
};

class MegatronLowerer {
 public:
  explicit MegatronLowerer(const lowering::Context& ctx)
      : ctx_(ctx),
        graph_(ctx.workload),
        model_(recognise(ctx.workload)),
        c_(configuration_of(ctx.plan)),
        chunks_(c_.pp * c_.virtual_stages),
        replicas_(c_.fold_replicas ? 1 : c_.dp),
        bpe_(topology::bytes_per_element(ctx.spec.precision)),
        last_compute_(static_cast<std::size_t>(ctx.spec.device_count()), -1),
        step_first_compute_(static_cast<std::size_t>(ctx.spec.device_count()), -1) {
    if (c_.tp * c_.pp * c_.dp != ctx.spec.device_count())
      throw InputError("megatron plan: tp x pp x dp = " + std::to_string(c_.tp * c_.pp * c_.dp) + " devices, the platform has " +
                       std::to_string(ctx.spec.device_count()));
    if (model_.shape.layers % chunks_ != 0)
      throw InputError("megatron plan: pp x virtual_stages = " + std::to_string(chunks_) + " does not divide the " +
                       std::to_string(model_.shape.layers) + " layers");
    if (ctx.plan.layers.size() != graph_.size())
      throw InputError("megatron plan: " + std::to_string(ctx.plan.layers.size()) + " layers, workload '" + graph_.name() +
                       "' has " + std::to_string(graph_.size()));
    const LayerParallelism par{c_.tp, c_.sequence_parallel, c_.recompute};
    check_parallelism(model_.shape, par);
    representative_.resize(graph_.size());
    for (std::size_t i = 0; i < graph_.size(); ++i) representative_[i] = i;
    block_position_.assign(graph_.size(), -1);
    block_attention_.assign(graph_.size(), 0);
    group_of_.assign(graph_.size(), -1);  // the head
    for (std::size_t i : model_.tail) group_of_[i] = -2;
    for (std::size_t b = 0; b < model_.blocks.size(); ++b)
      for (std::size_t i : model_.blocks[b]) group_of_[i] = static_cast<int>(b);
    for (const auto& block : model_.blocks)
      for (std::size_t k = 0; k < block.size(); ++k) {
        for (std::size_t j : block)
          if (graph_.layer(j).kind == LayerKind::attention) block_attention_[block[k]] = j;
        representative_[block[k]] = model_.blocks[0][k];
        block_position_[block[k]] = static_cast<int>(k);
      }
    std::vector<LayerKind> kinds;
    for (std::size_t i : model_.blocks[0]) kinds.push_back(graph_.layer(i).kind);
    forward_collectives_ = block_collectives(kinds, c_.sequence_parallel, Direction::forward);
    backward_collectives_ = block_collectives(kinds, c_.sequence_parallel, Direction::backward);
    // Global chunk g = c p + r (chunk c of stage r, N21 §2.2.2) holds blocks g L/(p v) ..; the head
    // runs before the first chunk's blocks, the tail after the last one's.
    const int per_chunk = model_.shape.layers / chunks_;
    chunk_layers_.resize(static_cast<std::size_t>(chunks_));
    for (int g = 0; g < chunks_; ++g) {
      auto& layers = chunk_layers_[static_cast<std::size_t>(g)];
      if (g == 0) layers = model_.head;
      for (int b = g * per_chunk; b < (g + 1) * per_chunk; ++b)
        for (std::size_t i : model_.blocks[static_cast<std::size_t>(b)]) layers.push_back(i);
      if (g == chunks_ - 1) layers.insert(layers.end(), model_.tail.begin(), model_.tail.end());
    }
    // What each global chunk keeps per micro-batch and device (activation_memory.hpp, the planner's
    // Korthikanti terms): its layers', plus the embedding's on chunk 0 and the output layer's on the last.
    for (int g = 0; g < chunks_; ++g)
      chunk_activations_.push_back(
          chunk_activation_bytes(model_.shape, c_.microbatch, par, {c_.schedule, c_.pp, c_.micro_batches, c_.virtual_stages}, g));
  }

  program::Program run() {
    program_.set_task_limit(ctx_.max_tasks);
    for (const auto& l : ctx_.plan.layers) program_.add_layer(l.name);
    const int m = c_.micro_batches;
    const std::size_t slots = static_cast<std::size_t>(replicas_) * static_cast<std::size_t>(chunks_) * static_cast<std::size_t>(m);
    forward_done_.assign(slots, false);
    backward_done_.assign(slots, false);
    forward_in_.assign(slots * static_cast<std::size_t>(c_.tp), {});
    first_forward_.assign(slots * static_cast<std::size_t>(c_.tp), -1);
    hold_model_states();
    backward_in_.assign(slots * static_cast<std::size_t>(c_.tp), {});
    layer_end_.assign(static_cast<std::size_t>(replicas_) * graph_.size() * static_cast<std::size_t>(c_.tp), {});
    stream_end_.assign(static_cast<std::size_t>(c_.pp * c_.tp), {});
    gather_end_.assign(graph_.size() * static_cast<std::size_t>(c_.pp * c_.tp), {});
    if (gathers_overlapped()) gather_parameters_first();
    std::vector<std::vector<Step>> orders;
    for (int r = 0; r < c_.pp; ++r) orders.push_back(stage_order({c_.schedule, c_.pp, m, c_.virtual_stages}, r));
    // Emit each (replica, stage)'s steps in its order as soon as what they wait for is in the
    // Program (its tasks must come after their dependencies); Megatron-LM's schedules never deadlock.
    // fold_replicas: replica 0 only; every replica runs the same tasks on its own devices, so it
    // reaches each DP collective when replica 0 does (data_parallel waits for replica 0's tasks).
    std::vector<std::size_t> next(static_cast<std::size_t>(replicas_ * c_.pp), 0);
    for (bool progress = true; progress;) {
      progress = false;
      for (int d = 0; d < replicas_; ++d)
        for (int r = 0; r < c_.pp; ++r) {
          std::size_t& k = next[static_cast<std::size_t>(d * c_.pp + r)];
          const auto& order = orders[static_cast<std::size_t>(r)];
          for (; k < order.size() && ready(d, r, order[k]); ++k) {
            order[k].direction == Direction::forward ? forward(d, r, order[k]) : backward(d, r, order[k]);
            progress = true;
          }
        }
    }
    for (std::size_t k : next)
      if (k != 2 * static_cast<std::size_t>(m * c_.virtual_stages))
        throw Error("megatron lowering: the pipeline schedule deadlocked (a lowering bug)");
    data_parallel();
    if (c_.optimizer_step) optimizer_steps();
    return std::move(program_);
  }

 private:
  int global_chunk(int r, const Step& s) const { return s.chunk * c_.pp + r; }
  std::size_t gather_slot(int r, int t, std::size_t i) const {
    return (static_cast<std::size_t>(r * c_.tp + t)) * graph_.size() + i;
  }
  bool gathers_overlapped() const { return c_.overlap_param_gather && c_.zero >= 1 && c_.dp > 1; }
  std::size_t layer_slot(int d, std::size_t i, int t) const {
    return (static_cast<std::size_t>(d) * graph_.size() + i) * static_cast<std::size_t>(c_.tp) + static_cast<std::size_t>(t);
  }
  std::size_t slot(int d, int g, int mb) const {
    return (static_cast<std::size_t>(d) * static_cast<std::size_t>(chunks_) + static_cast<std::size_t>(g)) *
               static_cast<std::size_t>(c_.micro_batches) + static_cast<std::size_t>(mb);
  }
  int device(int t, int d, int r) const { return device_of(c_, t, d, r); }
  program::Endpoint at(int dev) const {
    return {dev, ctx_.topology.granularity() == topology::Granularity::core ? 0 : -1, false};
  }
  std::vector<int> tp_group(int d, int r) const {
    std::vector<int> g;
    for (int t = 0; t < c_.tp; ++t) g.push_back(device(t, d, r));
    return g;
  }

  bool ready(int d, int r, const Step& s) const {
    const int g = global_chunk(r, s);
    if (s.direction == Direction::forward) return g == 0 || forward_done_[slot(d, g - 1, s.micro_batch)];
    return g == chunks_ - 1 ? forward_done_[slot(d, g, s.micro_batch)] : backward_done_[slot(d, g + 1, s.micro_batch)];
  }

  const topology::TopologyGraph& chip_topology() {
    if (ctx_.topology.granularity() == topology::Granularity::chip) return ctx_.topology;
    if (!chip_topology_) chip_topology_ = std::make_unique<topology::TopologyGraph>(ctx_.spec, topology::Granularity::chip);
    return *chip_topology_;
  }

  /// The device model's times of layer i's TP shard on `dev` (tp_sharding.hpp), per pass.
  const PassTimes& times(std::size_t i, int dev) {
    const topology::DeviceType& type = ctx_.spec.device_type(dev);
    const auto key = std::make_pair(&type, representative_[i]);
    const auto found = times_.find(key);
    if (found != times_.end()) return found->second;
    PassTimes t;
    const workloads::Layer& l = graph_.layer(i);
    if (l.kind != LayerKind::input) {
      const plan::LoopExtent e = geometry::loop_extent(l, graph_.batch());
      const plan::LoopBox box = tensor_parallel_box(l, e, c_.microbatch, c_.tp, c_.sequence_parallel, model_.shape.hidden);
      const auto time = [&](Pass pass) {
        return devices::shard_time(type, geometry::shard_work(l, box, e, graph_.batch(), pass, bpe_), pass).compute_s;
      };
      t.fwd = time(Pass::fwd);
      t.bwd = time(Pass::bwd);
      t.upd = time(Pass::upd);
      if (l.kind == LayerKind::attention) t.core = t.fwd * geometry::attention_core_share(l, Pass::fwd);
    }
    return times_.emplace(key, t).first->second;
  }

  /// A compute task of `seconds` on `dev` after `after` and the device's previous compute.
  std::vector<int> compute(int dev, std::size_t layer, Pass pass, const char* label, double seconds, std::vector<int> after) {
    if (seconds <= 0) return after;
    int& last = last_compute_[static_cast<std::size_t>(dev)];
    if (last >= 0) after.push_back(last);
    last = program_.add_compute(static_cast<int>(layer), pass, label, at(dev), seconds, std::move(after));
    int& first = step_first_compute_[static_cast<std::size_t>(dev)];
    if (first < 0) first = last;
    return {last};
  }

  /// `kind` of `bytes` per device over `group` (the registry's algorithm for it on the platform),
  /// after every task of `after`; the tasks that end it.
  std::vector<int> collective(const std::string& kind, const std::vector<int>& group, double bytes, std::size_t layer,
                              Pass pass, const std::string& label, const std::vector<int>& after) {
    if (group.size() < 2 || bytes <= 0) return after;
    const auto key = std::make_tuple(kind, group, bytes);
    auto found = schedules_.find(key);
    if (found == schedules_.end())
      found = schedules_.emplace(key, collectives::collective_schedule(kind, group, bytes, "", chip_topology())).first;
    return lowering::add_collective(program_, found->second, ctx_.topology, static_cast<int>(layer), pass, label, after);
  }

  static std::vector<int> all_of(const std::vector<std::vector<int>>& per_rank) {
    std::vector<int> all;
    for (const auto& v : per_rank) all.insert(all.end(), v.begin(), v.end());
    return all;
  }

  /// Bytes of layer i's output (or of its first input) for one micro-batch: the graph's tensor a
  /// TP collective or a pipeline send moves.
  double micro_batch_bytes(std::size_t i, bool output) const {
    const workloads::Layer& l = graph_.layer(i);
    const auto elements = output || l.input_shapes.empty() ? l.output_shape.elements() : l.input_shapes[0].elements();
    return static_cast<double>(elements) * c_.microbatch * bpe_;
  }

  /// The TP collectives `kinds` of block layer i, on every rank of group (d, r). Reported under the
  /// block's attention layer, where the plan charges a block's TP collectives (registration.cpp),
  /// so that simrun's rows compare like with like.
  void tp_collectives(const std::vector<std::string>& kinds, int d, int r, std::size_t i, Pass pass,
                      std::vector<std::vector<int>>& cur, bool of_output = false) {
    // The payload is the graph's tensor at that point, for the micro-batch: the layer's input (its
    // gradient in the backward), or with of_output its output (the residual add's gradient).
    // Whole, as the registry sizes collectives: the all-reduce's input, the all-gather's output,
    // the reduce-scatter's input.
    const double bytes = micro_batch_bytes(i, of_output);
    for (const std::string& kind : kinds) {
      const std::vector<int> end =
          collective(kind, tp_group(d, r), bytes, block_attention_[i], pass, "tp " + kind, all_of(cur));
      for (auto& v : cur) v = end;
    }
  }

  /// The forward of the chunk's layers (or, recomputing = true, of its blocks again inside the backward).
  /// The first micro-batch's waits for each bucket's parameter all-gather (overlap_param_gather).
  void forward_layers(int d, int r, int g, std::vector<std::vector<int>>& cur, bool recomputing, bool first = false) {
    const Pass pass = recomputing ? Pass::bwd : Pass::fwd;
    for (std::size_t i : chunk_layers_[static_cast<std::size_t>(g)]) {
      const int k = block_position_[i];
      if (recomputing && k < 0) continue;  // K22 §5: only the transformer layers are recomputed
      if (first && !recomputing)
        for (int t = 0; t < c_.tp; ++t) {
          const auto& e = gather_end_[gather_slot(r, t, i)];
          cur[static_cast<std::size_t>(t)].insert(cur[static_cast<std::size_t>(t)].end(), e.begin(), e.end());
        }
      if (k >= 0) tp_collectives(forward_collectives_[static_cast<std::size_t>(k)].before, d, r, i, pass, cur);
      for (int t = 0; t < c_.tp; ++t) {
        const int dev = device(t, d, r);
        cur[static_cast<std::size_t>(t)] = compute(dev, i, pass, recomputing ? "recompute" : "forward", times(i, dev).fwd,
                                                   cur[static_cast<std::size_t>(t)]);
      }
      if (k >= 0) tp_collectives(forward_collectives_[static_cast<std::size_t>(k)].after, d, r, i, pass, cur);
    }
  }

  /// Each rank's send to the same rank of stage `to` (the pipeline_transfer slice) and, without
  /// sequence parallelism, the all-gather on arrival (N21 §4.1). Returns what the receivers wait for.
  std::vector<std::vector<int>> send(int d, int r, int to, std::size_t layer, Pass pass, const std::vector<std::vector<int>>& cur) {
    std::vector<std::vector<int>> arrived(static_cast<std::size_t>(c_.tp));
    // What crosses the boundary: the graph's output of the chunk's last layer forward (the
    // activation), the gradient of the next chunk's first layer's input backward, both the tensor
    // between the two chunks, for the micro-batch. With tp > 1 each rank sends a 1/tp slice: with
    // sequence parallelism the tensor is already split along s; without, Megatron-LM's default
    // scatter/gather (N21 §4.1) sends slices and all-gathers them on arrival.
    // `layer`: forward the sending chunk's last layer, backward the sending chunk's first layer
    // (its input's gradient goes back).
    const double whole = micro_batch_bytes(layer, pass == Pass::fwd);
    const double bytes_per_rank = whole / c_.tp;
    const bool all_gather_after = c_.tp > 1 && !c_.sequence_parallel;
    const char* label = pass == Pass::fwd ? "pipeline send (activation)" : "pipeline send (gradient)";
    for (int t = 0; t < c_.tp; ++t) {
      const int src = device(t, d, r), dst = device(t, d, to);
      arrived[static_cast<std::size_t>(t)] =
          src == dst ? cur[static_cast<std::size_t>(t)]
                     : std::vector<int>{program_.add_transfer(static_cast<int>(layer), pass, label, at(src), at(dst),
                                                              bytes_per_rank, cur[static_cast<std::size_t>(t)])};
    }
    if (all_gather_after && r != to) {
      const std::vector<int> end = collective("all_gather", tp_group(d, to), whole, layer, pass,
                                              "pipeline all-gather", all_of(arrived));
      for (auto& v : arrived) v = end;
    }
    return arrived;
  }

  void forward(int d, int r, const Step& s) {
    const int g = global_chunk(r, s);
    std::vector<std::vector<int>> cur(static_cast<std::size_t>(c_.tp));
    for (int t = 0; t < c_.tp; ++t) cur[static_cast<std::size_t>(t)] = forward_in_[slot(d, g, s.micro_batch) * c_.tp + t];
    start_step(d, r);
    forward_layers(d, r, g, cur, false, s.micro_batch == 0);
    // The chunk's activations for this micro-batch are made from its first forward compute on.
    for (int t = 0; t < c_.tp; ++t)
      first_forward_[slot(d, g, s.micro_batch) * c_.tp + t] = step_first_compute_[static_cast<std::size_t>(device(t, d, r))];
    if (g + 1 < chunks_) {
      const auto arrived = send(d, r, (r + 1) % c_.pp, chunk_layers_[static_cast<std::size_t>(g)].back(), Pass::fwd, cur);
      for (int t = 0; t < c_.tp; ++t) forward_in_[slot(d, g + 1, s.micro_batch) * c_.tp + t] = arrived[static_cast<std::size_t>(t)];
    }
    forward_done_[slot(d, g, s.micro_batch)] = true;
  }

  void backward(int d, int r, const Step& s) {
    const int g = global_chunk(r, s);
    std::vector<std::vector<int>> cur(static_cast<std::size_t>(c_.tp));
    for (int t = 0; t < c_.tp; ++t) cur[static_cast<std::size_t>(t)] = backward_in_[slot(d, g, s.micro_batch) * c_.tp + t];
    start_step(d, r);
    if (c_.recompute == Recompute::full) forward_layers(d, r, g, cur, true);
    const auto& layers = chunk_layers_[static_cast<std::size_t>(g)];
    for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
      const std::size_t i = *it;
      const int k = block_position_[i];
      if (k >= 0) tp_collectives(backward_collectives_[static_cast<std::size_t>(k)].before, d, r, i, Pass::bwd, cur);
      for (int t = 0; t < c_.tp; ++t) {
        const int dev = device(t, d, r);
        const PassTimes& pt = times(i, dev);
        auto& v = cur[static_cast<std::size_t>(t)];
        if (c_.recompute == Recompute::selective && k >= 0)
          v = compute(dev, i, Pass::bwd, "recompute (attention core)", pt.core, v);
        v = compute(dev, i, Pass::bwd, "backward", pt.bwd, v);
        v = compute(dev, i, Pass::upd, "weight gradient", pt.upd, v);
      }
      // After a layer's backward: the residual add's all-gather (g-bar's conjugate) moves the add's
      // output gradient; the reduce-scatter / all-reduce after the layer behind a norm its input's.
      if (k >= 0)
        tp_collectives(backward_collectives_[static_cast<std::size_t>(k)].after, d, r, i, Pass::bwd, cur,
                       graph_.layer(i).kind == LayerKind::add);
      if (s.micro_batch == c_.micro_batches - 1)  // the layer's gradients are complete (overlap_grad_reduce)
        for (int t = 0; t < c_.tp; ++t) layer_end_[layer_slot(d, i, t)] = cur[static_cast<std::size_t>(t)];
    }
    // ... and freed when its last backward compute (the chunk's first layer's weight gradient) ends.
    for (int t = 0; t < c_.tp; ++t) {
      const int dev = device(t, d, r);
      const int first = first_forward_[slot(d, g, s.micro_batch) * c_.tp + t];
      // The step's last compute on the device, if it had any (compute() chains them in order).
      const int last = step_first_compute_[static_cast<std::size_t>(dev)] >= 0 ? last_compute_[static_cast<std::size_t>(dev)] : -1;
      if (first >= 0 && last >= 0)  // a chunk without compute holds nothing (never, for a real model)
        program_.add_holding(dev, chunk_activations_[static_cast<std::size_t>(g)], first, last, "activations");
    }
    if (g > 0) {
      const auto arrived = send(d, r, (r - 1 + c_.pp) % c_.pp, layers.front(), Pass::bwd, cur);
      for (int t = 0; t < c_.tp; ++t) backward_in_[slot(d, g - 1, s.micro_batch) * c_.tp + t] = arrived[static_cast<std::size_t>(t)];
    }
    backward_done_[slot(d, g, s.micro_batch)] = true;
  }

  /// A step of group (d, r) begins: compute() notes each device's first compute task from here on.
  void start_step(int d, int r) {
    for (int t = 0; t < c_.tp; ++t) step_first_compute_[static_cast<std::size_t>(device(t, d, r))] = -1;
  }

  /// Every device's model states for the whole iteration: its stage's weights, gradients and
  /// optimizer states under the plan's ZeRO stage, as the planner sizes them (stage_model_states).
  void hold_model_states() {
    for (int r = 0; r < c_.pp; ++r) {
      const memory::ModelStateBytes states = stage_model_states(ctx_.spec, model_, c_, r);
      for (int d = 0; d < c_.dp; ++d)
        for (int t = 0; t < c_.tp; ++t) {
          const int dev = device(t, d, r);
          program_.add_resident(dev, states.weights_bytes, "weights");
          program_.add_resident(dev, states.gradients_bytes, "gradients");
          program_.add_resident(dev, states.optimizer_bytes, "optimizer states");
        }
    }
  }

  /// ZeRO §7 over each DP group (the dp devices of one stage and tensor rank): gradients at 4 B (fp32
  /// main gradients), parameters at the element size, as transformer_costs.hpp sizes them.
  /// The group's collectives run one after another (one NCCL communicator, one stream): each also
  /// waits for the group's previous one.
  void reduce(int r, int t, double parameters, std::size_t layer, const std::vector<int>& after) {
    std::vector<int> group;
    for (int d = 0; d < c_.dp; ++d) group.push_back(device(t, d, r));
    const DataParallelTraffic dpt = data_parallel_traffic(parameters, c_.zero, c_.dp);
    std::vector<int>& stream = stream_end_[static_cast<std::size_t>(r * c_.tp + t)];
    std::vector<int> end = after;
    end.insert(end.end(), stream.begin(), stream.end());
    for (int n = 0; n < dpt.gradient_all_reduces; ++n)
      end = collective("all_reduce", group, dpt.elements * 4, layer, Pass::upd, "dp gradient all_reduce", end);
    for (int n = 0; n < dpt.gradient_reduce_scatters; ++n)
      end = collective("reduce_scatter", group, dpt.elements * 4, layer, Pass::upd, "dp gradient reduce_scatter", end);
    // overlap_param_gather: the first gather (the updated parameters) went to the iteration's start.
    for (int n = gathers_overlapped() ? 1 : 0; n < dpt.parameter_all_gathers; ++n)
      end = collective("all_gather", group, dpt.elements * bpe_, layer, Pass::upd, "dp parameter all_gather", end);
    stream = end;
  }

  double chunk_parameters(int g) const {
    double params = 0;
    for (std::size_t i : chunk_layers_[static_cast<std::size_t>(g)]) params += static_cast<double>(graph_.layer(i).q.params);
    return params / c_.tp;  // the rank's shard (N21 §3: every weight matrix split t ways)
  }

  /// overlap_param_gather (ZeRO >= 1): Megatron-LM all-gathers the updated parameters bucket by
  /// bucket during the next iteration's forward, each bucket before its layers' first forward. In one
  /// iteration's Program: every bucket's all-gather at the start, in forward order on the DP
  /// group's stream, and the first micro-batch's forward of the bucket's first layer waits for it
  /// (the steady state of consecutive iterations). Buckets as overlap_grad_reduce's.
  void gather_parameters_first() {
    for (int r = 0; r < c_.pp; ++r)
      for (int t = 0; t < c_.tp; ++t) {
        std::vector<int> group;
        for (int d = 0; d < c_.dp; ++d) group.push_back(device(t, d, r));
        std::vector<int>& stream = stream_end_[static_cast<std::size_t>(r * c_.tp + t)];
        for (int ch = 0; ch < c_.virtual_stages; ++ch) {
          const auto& layers = chunk_layers_[static_cast<std::size_t>(ch * c_.pp + r)];
          for (std::size_t begin = 0; begin < layers.size();) {
            std::size_t end = begin + 1;
            while (end < layers.size() && group_of_[layers[end]] == group_of_[layers[begin]]) ++end;
            double params = 0;
            for (std::size_t k = begin; k < end; ++k) params += static_cast<double>(graph_.layer(layers[k]).q.params);
            const double bytes = data_parallel_traffic(params / c_.tp, c_.zero, c_.dp).elements * bpe_;
            if (params > 0) {
              stream = collective("all_gather", group, bytes, layers[begin], Pass::fwd, "dp parameter all_gather (overlapped)", stream);
              gather_end_[gather_slot(r, t, layers[begin])] = stream;
            }
            begin = end;
          }
        }
      }
  }

  /// The optimizer step (optimizer_step.hpp) on every device, after its last compute and its DP
  /// group's collectives (the reduction it needs; with ZeRO >= 1 the parameter all-gather, which
  /// Megatron-LM runs after the step, is placed before it: the same serial time on the group's
  /// stream, simpler to wire). Not a layer's work: it belongs to no row.
  void optimizer_steps() {
    for (int r = 0; r < c_.pp; ++r) {
      double params = 0;
      for (int ch = 0; ch < c_.virtual_stages; ++ch) params += chunk_parameters(ch * c_.pp + r);
      const double updated = updated_parameters(params, c_.zero, c_.dp);
      for (int t = 0; t < c_.tp; ++t)
        for (int d = 0; d < replicas_; ++d) {
          const int dev = device(t, d, r);
          const double seconds = optimizer_step_s(ctx_.spec.device_type(dev), updated);
          if (seconds <= 0) continue;
          std::vector<int> after = stream_end_[static_cast<std::size_t>(r * c_.tp + t)];
          int& last = last_compute_[static_cast<std::size_t>(dev)];
          if (last >= 0) after.push_back(last);
          last = program_.add_compute(-1, Pass::upd, "optimizer step", at(dev), seconds, std::move(after));
        }
    }
  }

  void data_parallel() {
    if (c_.dp < 2) return;
    for (int r = 0; r < c_.pp; ++r)
      for (int t = 0; t < c_.tp; ++t) {
        if (c_.overlap_grad_reduce) {
          // Megatron-LM's gradient buckets are reduced as soon as their layers' gradients of the
          // last micro-batch are complete, during the rest of the backward. One bucket per block
          // (and one for the head, one for the tail), in the order the backward completes them:
          // chunks v - 1 .. 0, each from its last layer group to its first.
          for (int ch = c_.virtual_stages; ch-- > 0;) {
            const auto& layers = chunk_layers_[static_cast<std::size_t>(ch * c_.pp + r)];
            for (std::size_t end = layers.size(); end > 0;) {
              std::size_t begin = end - 1;
              while (begin > 0 && group_of_[layers[begin - 1]] == group_of_[layers[end - 1]]) --begin;
              double params = 0;
              for (std::size_t k = begin; k < end; ++k) params += static_cast<double>(graph_.layer(layers[k]).q.params);
              std::vector<int> after;  // the group's first layer's backward ends its gradients
              for (int d = 0; d < replicas_; ++d) {
                const auto& e = layer_end_[layer_slot(d, layers[begin], t)];
                after.insert(after.end(), e.begin(), e.end());
              }
              if (params > 0) reduce(r, t, params / c_.tp, layers[begin], after);
              end = begin;
            }
          }
        } else {
          std::vector<int> after;
          double params = 0;
          for (int d = 0; d < replicas_; ++d) {
            const int last = last_compute_[static_cast<std::size_t>(device(t, d, r))];
            if (last >= 0) after.push_back(last);
          }
          for (int ch = 0; ch < c_.virtual_stages; ++ch) params += chunk_parameters(ch * c_.pp + r);
          reduce(r, t, params, chunk_layers_[static_cast<std::size_t>(r)].front(), after);
        }
      }
  }

  const lowering::Context& ctx_;
  const workloads::Graph& graph_;
  RecognisedModel model_;
  Configuration c_;
  int chunks_;  // p v global chunks
  int replicas_;  // the DP replicas whose compute, TP collectives and sends are emitted (fold_replicas: 1)
  int bpe_;
  std::vector<std::size_t> representative_;  // block layers: the same layer of block 0
  std::vector<int> block_position_;          // position in its block, -1 for head and tail
  std::vector<std::size_t> block_attention_;  // block layers: their block's attention layer
  std::vector<LayerCollectives> forward_collectives_, backward_collectives_;
  std::vector<std::vector<std::size_t>> chunk_layers_;
  std::vector<double> chunk_activations_;  // by global chunk: bytes per micro-batch and device
  std::vector<int> first_forward_;         // by slot x tp: the (chunk, micro-batch)'s first forward compute task
  std::vector<int> last_compute_;
  std::vector<int> step_first_compute_;  // by device: its first compute task of the step being lowered, -1 none
  std::vector<bool> forward_done_, backward_done_;
  std::vector<std::vector<int>> forward_in_, backward_in_;  // by slot x tp: what a step waits for
  std::vector<std::vector<int>> layer_end_;                 // by (d, layer, t): its last backward's end
  std::vector<std::vector<int>> stream_end_;                // by (r, t): the DP group's last collective
  std::vector<std::vector<int>> gather_end_;                // by (r, t, layer): its bucket's all-gather
  std::vector<int> group_of_;                               // gradient bucket: block index, -1 head, -2 tail
  std::map<std::pair<const topology::DeviceType*, std::size_t>, PassTimes> times_;
  std::map<std::tuple<std::string, std::vector<int>, double>, collectives::Schedule> schedules_;
  std::unique_ptr<topology::TopologyGraph> chip_topology_;
  program::Program program_;
};

}  // namespace

program::Program lower_megatron(const lowering::Context& context) { return MegatronLowerer(context).run(); }

}  // namespace partsim::megatron
