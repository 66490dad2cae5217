#include "sim/planners/megatron/planner.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

#include "sim/collectives/algorithm_registry.hpp"
#include "sim/common/error.hpp"
#include "sim/common/wall_clock.hpp"
#include "sim/devices/shard_compute.hpp"
#include "sim/geometry/layer_geometry.hpp"
#include "sim/planners/megatron/activation_memory.hpp"
#include "sim/planners/megatron/optimizer_step.hpp"
#include "sim/planners/megatron/tp_sharding.hpp"
#include "sim/planners/megatron/transformer_costs.hpp"
#include "sim/memory/parameter_bytes.hpp"
#include "sim/memory/zero.hpp"

namespace partsim::megatron {
namespace {

using workloads::LayerKind;

std::string str(long long v) { return std::to_string(v); }

bool is_norm(LayerKind k) { return k == LayerKind::layer_norm || k == LayerKind::rms_norm; }

// ---- recognition -------------------------------------------------------------------------------

std::string not_a_decoder(const workloads::Graph& g, const std::string& why) {
  return "megatron: workload '" + g.name() + "' is not a decoder transformer of L identical blocks: " + why;
}

}  // namespace

RecognisedModel recognise(const workloads::Graph& g) {
  std::vector<std::size_t> attention;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const workloads::Layer& l = g.layer(i);
    if (l.kind == LayerKind::conv || l.kind == LayerKind::pool || l.kind == LayerKind::lstm ||
        l.kind == LayerKind::batch_norm)
      throw InputError(not_a_decoder(g, "layer '" + l.name + "' is a " + std::string(workloads::to_string(l.kind)) + " layer"));
    if (l.kind == LayerKind::attention) attention.push_back(i);
  }
  if (attention.empty()) throw InputError(not_a_decoder(g, "it has no attention layer"));
  const workloads::Layer& a0 = g.layer(attention[0]);
  for (std::size_t i : attention) {
    const workloads::Layer& a = g.layer(i);
    if (a.inputs.size() != 1) throw InputError(not_a_decoder(g, "attention '" + a.name + "' is not self-attention"));
    if (a.attr.heads != a0.attr.heads || !(a.output_shape == a0.output_shape))
      throw InputError(not_a_decoder(g, "attention '" + a.name + "' differs from '" + a0.name + "' in heads or shape"));
  }
  // A block starts at the normalisation before its attention (pre-LN) and repeats at the distance
  // between consecutive attentions; one block alone runs to the last residual add.
  const std::size_t offset = attention[0] > 0 && is_norm(g.layer(attention[0] - 1).kind) ? 1 : 0;
  std::size_t period = 0;
  if (attention.size() >= 2) {
    period = attention[1] - attention[0];
    for (std::size_t k = 2; k < attention.size(); ++k)
      if (attention[k] - attention[k - 1] != period)
        throw InputError(not_a_decoder(g, "attention '" + g.layer(attention[k]).name + "' is not at the blocks' period of " +
                                              str(static_cast<long long>(period)) + " layers"));
  } else {
    std::size_t last_add = attention[0];
    for (std::size_t i = attention[0]; i < g.size(); ++i)
      if (g.layer(i).kind == LayerKind::add) last_add = i;
    period = last_add + 1 - (attention[0] - offset);
  }
  RecognisedModel m;
  const std::size_t first = attention[0] - offset;
  const std::size_t end = first + period * attention.size();
  if (end > g.size()) throw InputError(not_a_decoder(g, "the last block runs past the graph's end"));
  for (std::size_t i = 0; i < first; ++i) m.head.push_back(i);
  for (std::size_t i = end; i < g.size(); ++i) m.tail.push_back(i);
  for (std::size_t b = 0; b < attention.size(); ++b) {
    std::vector<std::size_t> block;
    for (std::size_t k = 0; k < period; ++k) {
      const std::size_t i = first + b * period + k;
      const workloads::Layer& here = g.layer(i);
      const workloads::Layer& there = g.layer(first + k);
      if (here.kind != there.kind || !(here.output_shape == there.output_shape) || here.q.params != there.q.params)
        throw InputError(not_a_decoder(g, "layer '" + here.name + "' of block " + str(static_cast<long long>(b)) +
                                              " differs from '" + there.name + "' of block 0"));
      block.push_back(i);
    }
    m.blocks.push_back(std::move(block));
  }
  bool embedding = false;
  for (std::size_t i : m.head) {
    embedding = embedding || g.layer(i).kind == LayerKind::embedding;
    m.head_parameters += static_cast<double>(g.layer(i).q.params);
  }
  if (!embedding) throw InputError(not_a_decoder(g, "no embedding layer before the first block"));
  if (m.tail.empty() || g.layer(m.tail.back()).kind != LayerKind::fc)
    throw InputError(not_a_decoder(g, "its last layer is not an fc output projection over the vocabulary"));
  for (std::size_t i : m.tail) m.tail_parameters += static_cast<double>(g.layer(i).q.params);
  for (std::size_t i : m.blocks[0]) m.block_parameters += static_cast<double>(g.layer(i).q.params);
  // Sequence tensors keep their width in c and their length in h (workloads/layer.hpp).
  m.shape.layers = static_cast<int>(attention.size());
  m.shape.hidden = static_cast<int>(a0.output_shape.c);
  m.shape.heads = static_cast<int>(a0.attr.heads);
  m.shape.sequence = static_cast<int>(a0.output_shape.h);
  m.shape.vocabulary = static_cast<int>(g.layer(m.tail.back()).output_shape.c);
  check_shape(m.shape);
  return m;
}

Configuration complete(Configuration c, int devices, long long batch, const TransformerShape& shape) {
  if (devices % (c.tp * c.pp) != 0)
    throw InputError("megatron: tp x pp = " + str(c.tp) + " x " + str(c.pp) + " = " + str(c.tp * c.pp) +
                     " does not divide the platform's " + str(devices) + " devices (dp = devices / (tp x pp) must be whole)");
  c.dp = devices / (c.tp * c.pp);
  const long long per_round = static_cast<long long>(c.microbatch) * c.dp;
  if (batch % per_round != 0)
    throw InputError("megatron: --batch " + str(batch) + " is not a whole number of micro-batches: microbatch x dp = " +
                     str(c.microbatch) + " x " + str(c.dp) + " = " + str(per_round) + " must divide it");
  c.micro_batches = static_cast<int>(batch / per_round);
  if (c.schedule != Schedule::interleaved && c.virtual_stages != 1)
    throw InputError("megatron: option virtual_stages=" + str(c.virtual_stages) + " needs schedule=interleaved (got " +
                     schedule_name(c.schedule) + ")");
  if (shape.layers % (c.pp * c.virtual_stages) != 0)
    throw InputError("megatron: pp x virtual_stages = " + str(c.pp) + " x " + str(c.virtual_stages) + " must divide the " +
                     str(shape.layers) + " layers (uniform stages)");
  if (c.zero < 0 || c.zero > 3) throw InputError("megatron: option zero=" + str(c.zero) + " (allowed: 0, 1, 2, 3)");
  check_pipeline({c.schedule, c.pp, c.micro_batches, c.virtual_stages});
  check_parallelism(shape, {c.tp, c.sequence_parallel, c.recompute});
  return c;
}

RankOrder parse_rank_order(std::string_view name) {
  for (const std::string& valid : rank_order_names())
    if (name == valid) {
      RankOrder order{};
      for (std::size_t k = 0; k < 3; ++k) {
        const std::string_view axis = std::string_view(valid).substr(3 * k, 2);
        order[k] = axis == "tp" ? Axis::tensor : axis == "dp" ? Axis::data : Axis::pipeline;
      }
      return order;
    }
  std::string list;
  for (const std::string& valid : rank_order_names()) list += (list.empty() ? "" : ", ") + valid;
  throw InputError("rank_order: unknown value '" + std::string(name) + "'; valid values are: " + list);
}

std::string rank_order_name(const RankOrder& order) {
  std::string name;
  for (Axis a : order) name += std::string(name.empty() ? "" : "-") + (a == Axis::tensor ? "tp" : a == Axis::data ? "dp" : "pp");
  return name;
}

std::vector<std::string> rank_order_names() {
  return {"tp-dp-pp", "tp-pp-dp", "dp-tp-pp", "dp-pp-tp", "pp-tp-dp", "pp-dp-tp"};
}

int device_of(const Configuration& c, int t, int d, int p) {
  // Mixed radix, the first axis of the order fastest (Megatron-LM's RankGenerator).
  int device = 0, stride = 1;
  for (Axis a : c.rank_order) {
    const int index = a == Axis::tensor ? t : a == Axis::data ? d : p;
    const int size = a == Axis::tensor ? c.tp : a == Axis::data ? c.dp : c.pp;
    device += index * stride;
    stride *= size;
  }
  return device;
}

double stage_parameters(const RecognisedModel& model, const Configuration& c, int stage) {
  const int blocks_per_stage = model.shape.layers / c.pp;
  return (blocks_per_stage * model.block_parameters + (stage == 0 ? model.head_parameters : 0) +
          (stage == c.pp - 1 ? model.tail_parameters : 0)) / c.tp;
}

memory::ModelStateBytes stage_model_states(const topology::SystemSpec& spec, const RecognisedModel& model,
                                           const Configuration& c, int stage) {
  const memory::ModelStateBytes per_param = memory::bytes_per_parameter(
      memory::default_memory_settings(spec.precision), plan::Mode::training, topology::bytes_per_element(spec.precision));
  return memory::zero_partition(per_param.times(stage_parameters(model, c, stage)), c.zero, c.dp);
}

namespace {

struct LayerTimes {
  double forward_s = 0;
  double backward_s = 0;   // bwd + upd
  double core_s = 0;       // attention core's forward share (selective recomputation)
};

LayerTimes layer_times(const topology::DeviceType& device, const workloads::Layer& l, const workloads::Graph& g,
                       const Configuration& c, int hidden, double bpe) {
  const plan::LoopExtent e = geometry::loop_extent(l, g.batch());
  // Tensor-parallel rank's share of the layer (tp_sharding.hpp, shared with the lowering).
  const plan::LoopBox box = tensor_parallel_box(l, e, c.microbatch, c.tp, c.sequence_parallel, hidden);
  LayerTimes t;
  if (l.kind == LayerKind::input) return t;
  t.forward_s = devices::shard_time(device, geometry::shard_work(l, box, e, g.batch(), plan::Pass::fwd, bpe), plan::Pass::fwd).compute_s;
  t.backward_s = devices::shard_time(device, geometry::shard_work(l, box, e, g.batch(), plan::Pass::bwd, bpe), plan::Pass::bwd).compute_s +
                 devices::shard_time(device, geometry::shard_work(l, box, e, g.batch(), plan::Pass::upd, bpe), plan::Pass::upd).compute_s;
  if (l.kind == LayerKind::attention) t.core_s = t.forward_s * geometry::attention_core_share(l, plan::Pass::fwd);
  return t;
}

double collective_s(const std::string& collective, double bytes, const std::vector<int>& devices,
                    const topology::TopologyGraph& topology) {
  if (devices.size() < 2 || bytes <= 0) return 0;
  // The platform's algorithm and protocol for the collective (choose), timed by its closed form on
  // the participants' fabric (choose leaves formula_s at 0 when it had nothing to weigh).
  const collectives::Participants who = collectives::participants_of(devices, topology);
  const collectives::Choice choice = collectives::choose(collective, bytes, "", who, topology);
  return collectives::formula_time(*choice.algorithm, choice.protocol, collective, bytes,
                                   collectives::with_protocol(collectives::fabric_of(who, topology), choice.protocol));
}

double send_s(int from, int to, double bytes, const topology::TopologyGraph& topology) {
  if (from == to || bytes <= 0) return 0;
  const topology::Route r = topology.device_route(from, to);
  return topology.route_latency(r) + bytes / topology.route_bandwidth(r);
}

}  // namespace

Prediction predict(const topology::SystemSpec& spec, const topology::TopologyGraph& topology,
                   const workloads::Graph& graph, const RecognisedModel& model, const Configuration& c) {
  Prediction pr;
  const int bpe = topology::bytes_per_element(spec.precision);
  const TransformerShape& shape = model.shape;
  const LayerParallelism par{c.tp, c.sequence_parallel, c.recompute};
  const PipelineShape pipe{c.schedule, c.pp, c.micro_batches, c.virtual_stages};
  const int blocks_per_stage = shape.layers / c.pp;

  // TP collectives of one block and micro-batch on stage p's first TP group (transformer_costs.hpp).
  const TensorParallelTraffic tpt = tensor_parallel_traffic(shape, c.microbatch, par, bpe);
  const auto tp_time = [&](const CollectiveCounts& n, const std::vector<int>& group) {
    return n.all_reduces * collective_s("all_reduce", tpt.bytes, group, topology) +
           n.all_gathers * collective_s("all_gather", tpt.bytes, group, topology) +
           n.reduce_scatters * collective_s("reduce_scatter", tpt.bytes, group, topology);
  };
  // Megatron-LM scatters/gathers pipeline tensors over the TP group by default (N21 §4.1).
  const PipelineTransfer transfer = pipeline_transfer(shape, c.microbatch, par, /*scatter_gather=*/true, bpe);

  double worst_f = -1, worst_b = -1, worst_total = -1;
  for (int p = 0; p < c.pp; ++p) {
    const int first = device_of(c, 0, 0, p);
    const topology::DeviceType& device = spec.device_type(first);
    std::vector<int> tp_group, dp_group;
    for (int t = 0; t < c.tp; ++t) tp_group.push_back(device_of(c, t, 0, p));
    for (int d = 0; d < c.dp; ++d) dp_group.push_back(device_of(c, 0, d, p));

    // Compute of one block (every block alike), then the stage: blocks, plus head on stage 0 and
    // tail on the last stage (neither recomputed: K22 §5 recomputes transformer layers only).
    std::vector<double> block_layers;
    double block_f = 0, block_b = 0, block_core = 0;
    for (std::size_t i : model.blocks[0]) {
      const LayerTimes t = layer_times(device, graph.layer(i), graph, c, shape.hidden, bpe);
      block_f += t.forward_s;
      block_b += t.backward_s;
      block_core += t.core_s;
      block_layers.push_back(t.forward_s + t.backward_s);
    }
    const double block_recompute = c.recompute == Recompute::full ? block_f
                                   : c.recompute == Recompute::selective ? block_core : 0;
    double extra_f = 0, extra_b = 0;
    std::vector<double> head_layers, tail_layers;
    if (p == 0)
      for (std::size_t i : model.head) {
        const LayerTimes t = layer_times(device, graph.layer(i), graph, c, shape.hidden, bpe);
        extra_f += t.forward_s;
        extra_b += t.backward_s;
        head_layers.push_back(t.forward_s + t.backward_s);
      }
    if (p == c.pp - 1)
      for (std::size_t i : model.tail) {
        const LayerTimes t = layer_times(device, graph.layer(i), graph, c, shape.hidden, bpe);
        extra_f += t.forward_s;
        extra_b += t.backward_s;
        tail_layers.push_back(t.forward_s + t.backward_s);
      }
    const double compute_f = blocks_per_stage * block_f + extra_f;
    const double recompute = blocks_per_stage * block_recompute;
    const double compute_b = blocks_per_stage * block_b + recompute + extra_b;
    const double block_tp_f = tp_time(tpt.forward, tp_group), block_tp_b = tp_time(tpt.backward, tp_group);

    // One send per micro-batch and direction to the next stage (v of them with interleaving, N21
    // §2.2.2), plus the receiver's all-gather of the scatter/gather optimisation.
    double send = 0;
    if (c.pp > 1) {
      const int next = device_of(c, 0, 0, (p + 1) % c.pp);
      send = send_s(first, next, transfer.bytes_per_rank, topology);
      if (transfer.all_gather_after) send += collective_s("all_gather", transfer.bytes_per_rank * c.tp, tp_group, topology);
      send *= c.virtual_stages;
    }
    const double t_f = compute_f + blocks_per_stage * block_tp_f + send;
    const double t_b = compute_b + blocks_per_stage * block_tp_b + send;

    // Data parallelism over this stage's shard of the parameters (ZeRO §7, transformer_costs.hpp):
    // gradients at 4 B (fp32 main gradients), parameters at the element size.
    const double params = stage_parameters(model, c, p);
    const DataParallelTraffic dpt = data_parallel_traffic(params, c.zero, c.dp);
    const double grad_s = dpt.gradient_all_reduces * collective_s("all_reduce", dpt.elements * 4, dp_group, topology) +
                          dpt.gradient_reduce_scatters * collective_s("reduce_scatter", dpt.elements * 4, dp_group, topology);
    const double gather_s = dpt.parameter_all_gathers * collective_s("all_gather", dpt.elements * bpe, dp_group, topology);
    // Megatron-LM overlaps the gradient reduction with the backward (its buckets fill during the
    // last micro-batch's backward) and the parameter all-gather with the next forward.
    const double exposed = (c.overlap_grad_reduce ? std::max(0.0, grad_s - t_b) : grad_s) +
                           (c.overlap_param_gather ? std::max(0.0, gather_s - t_f) : gather_s);

    // The optimizer step follows the reduction (Megatron-LM's optimizer.step() after
    // finalize_model_grads), on the parameters this device updates.
    const double optimizer =
        c.optimizer_step ? optimizer_step_s(device, updated_parameters(params, c.zero, c.dp)) : 0.0;

    const double pipeline = iteration_time(pipe, t_f, t_b);
    if (pipeline + exposed + optimizer > worst_total) {
      worst_total = pipeline + exposed + optimizer;
      pr.optimizer_s = optimizer;
      pr.slowest_stage = p;
      pr.forward_s = t_f;
      pr.backward_s = t_b;
      pr.forward_compute_s = compute_f;
      pr.backward_compute_s = compute_b;
      pr.recompute_s = recompute;
      pr.tp_forward_s = blocks_per_stage * block_tp_f;
      pr.tp_backward_s = blocks_per_stage * block_tp_b;
      pr.send_s = send;
      pr.dp_s = grad_s + gather_s;
      pr.dp_exposed_s = exposed;
    }
    worst_f = std::max(worst_f, t_f);
    worst_b = std::max(worst_b, t_b);
    if (p == 0) pr.head_layer_compute_s = head_layers;
    if (p == c.pp - 1) pr.tail_layer_compute_s = tail_layers;
    if (p == 0) {
      pr.block_layer_compute_s = block_layers;  // recomputation reported apart (recompute_s)
      pr.block_tp_s = block_tp_f + block_tp_b;
    }

    // Memory of one device of this stage: model states by ZeRO over dp (zero.hpp), activations by
    // Korthikanti (activation_memory.hpp) with the schedule's in-flight micro-batches.
    const memory::ModelStateBytes states = stage_model_states(spec, model, c, p);
    plan::MemoryUse use;
    use.weights_bytes = states.weights_bytes;
    use.gradients_bytes = states.gradients_bytes;
    use.optimizer_bytes = states.optimizer_bytes;
    use.activations_bytes = stage_activation_bytes(shape, c.microbatch, par, pipe, p);
    use.per_device_bytes = states.total() + use.activations_bytes;
    use.capacity_bytes = device.memory_bytes();
    use.device = spec.device_names.at(static_cast<std::size_t>(first));
    if (p == 0 || use.per_device_bytes / use.capacity_bytes > pr.memory.per_device_bytes / pr.memory.capacity_bytes) {
      use.settings = memory::default_memory_settings(spec.precision);
      pr.memory = use;
    }
  }
  // The pipeline runs at the pace of its slowest stage in each direction (N21 §2.2 assumes uniform
  // stages); the DP reduction of the slowest stage's devices ends the iteration.
  pr.pipeline_s = iteration_time(pipe, worst_f, worst_b);
  pr.bubble_s = pr.pipeline_s - c.micro_batches * (worst_f + worst_b);
  pr.iteration_s = pr.pipeline_s + pr.dp_exposed_s + pr.optimizer_s;
  return pr;
}

namespace {

std::vector<int> divisors(long long n) {
  std::vector<int> d;
  for (long long k = 1; k <= n; ++k)
    if (n % k == 0) d.push_back(static_cast<int>(k));
  return d;
}

}  // namespace

SearchResult search(const topology::SystemSpec& spec, const topology::TopologyGraph& topology,
                    const workloads::Graph& graph, const RecognisedModel& model, const Configuration& base,
                    const ProgressCallback& progress) {
  const auto start = std::chrono::steady_clock::now();
  const int devices = spec.device_count();
  std::vector<int> all(static_cast<std::size_t>(devices));
  for (int i = 0; i < devices; ++i) all[static_cast<std::size_t>(i)] = i;
  const auto domains = collectives::locality_domains(all, topology);
  const int node = static_cast<int>(domains.empty() ? devices : domains.front().size());
  // The configurations first, then their predictions: enumerating is cheap, and knowing the count
  // lets the progress report say "n of N" (the order, and so the winner on a tie, is unchanged).
  std::vector<Configuration> candidates;
  for (int tp : divisors(devices)) {
    if (tp > node || model.shape.heads % tp != 0 || model.shape.hidden % tp != 0) continue;
    if (base.sequence_parallel && model.shape.sequence % tp != 0) continue;
    for (int pp : divisors(model.shape.layers)) {
      if (devices % (tp * pp) != 0) continue;
      const int dp = devices / (tp * pp);
      if (graph.batch() % dp != 0) continue;
      for (int mb : divisors(graph.batch() / dp)) {
        const int m = static_cast<int>(graph.batch() / (static_cast<long long>(mb) * dp));
        for (Schedule s : {Schedule::gpipe, Schedule::one_f_one_b, Schedule::interleaved}) {
          const int v = s == Schedule::interleaved ? 2 : 1;
          if (s == Schedule::interleaved && (pp < 2 || m % pp != 0 || model.shape.layers % (pp * v) != 0)) continue;
          if (pp == 1 && s != Schedule::one_f_one_b) continue;  // one stage: the schedules coincide
          for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full})
            for (int zero = 0; zero <= (dp > 1 ? 3 : 0); ++zero) {
              Configuration c = base;
              c.tp = tp;
              c.pp = pp;
              c.microbatch = mb;
              c.schedule = s;
              c.virtual_stages = v;
              c.recompute = rc;
              c.zero = zero;
              candidates.push_back(complete(c, devices, graph.batch(), model.shape));
            }
        }
      }
    }
  }
  SearchResult r;
  double best = std::numeric_limits<double>::infinity();
  double smallest_need = std::numeric_limits<double>::infinity(), capacity = 0;
  for (const Configuration& c : candidates) {
    const Prediction pr = predict(spec, topology, graph, model, c);
    ++r.candidates;
    if (!pr.memory.fits()) {
      ++r.over_memory;
      if (pr.memory.per_device_bytes < smallest_need) {
        smallest_need = pr.memory.per_device_bytes;
        capacity = pr.memory.capacity_bytes;
      }
    } else if (pr.iteration_s < best) {
      best = pr.iteration_s;
      r.best = c;
      r.prediction = pr;
    }
    if (progress)
      progress({static_cast<std::size_t>(r.candidates), candidates.size(), "configurations",
                best < std::numeric_limits<double>::infinity() ? std::optional<double>(best) : std::nullopt});
  }
  r.seconds = seconds_since(start);
  if (!(best < std::numeric_limits<double>::infinity()))
    throw InputError("megatron: no configuration fits: " + str(r.candidates) + " tried on " + str(devices) +
                     " devices, the smallest needs " + std::to_string(smallest_need / (1ull << 30)) + " GiB per device of " +
                     std::to_string(capacity / (1ull << 30)) + " GiB");
  return r;
}

}  // namespace partsim::megatron
