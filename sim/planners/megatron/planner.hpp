#pragma once
// The planner of the `megatron` strategy family (issue 40 items 1 and 2): which decoder transformer
// the workload is, the configuration (TP x PP x DP, micro-batches, schedule, sequence parallelism,
// recomputation, ZeRO), the analytic prediction of one iteration and the per-GPU memory of a
// configuration, and the search over configurations. docs/model.md "The megatron planner".
//
// Rank order (Megatron-LM megatron/core/parallel_state.py, initialize_model_parallel: the default
// order "tp-cp-ep-dp-pp", tensor fastest): rank = t + T (d + D p) for tensor rank t < T, data rank
// d < D and pipeline stage p < P, and device i of the platform is rank i. On a DGX cluster (8 GPUs
// per node, devices numbered node by node) a TP group of T <= 8 is then inside one node. Option
// rank_order changes it: "tp-pp-dp" is Megatron-LM's --use-tp-pp-dp-mapping (rank = t + T (p + P d):
// a replica's stages on neighbouring nodes), and any other order of the three axes, fastest first,
// may be asked for (e.g. "dp-tp-pp" puts the DP group inside a node and TP across nodes).
//
// Prediction (all times in seconds, per iteration unless said):
//   per stage and micro-batch: t_f = compute of the stage's layers (forward, the device model) + the
//   TP collectives of the forward (collective registry on the stage's TP group) + the pipeline send
//   of the forward; t_b likewise for the backward (backward and weight-gradient passes, the
//   recomputation's extra forward, the backward's TP collectives and send);
//   pipeline: schedule.hpp iteration_time(m, p, v, max over stages of t_f, max of t_b) (N21 §2.2);
//   data parallel: data_parallel_traffic (ZeRO §7) on the stage's DP group, exposed whole unless
//   overlap_grad_reduce / overlap_param_gather hide it behind one micro-batch's backward / forward;
//   the optimizer step (optimizer_step.hpp) after it, when the configuration has one.
//
// Contract: pure functions of the spec, graph and configuration; throw InputError for bad input.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sim/common/progress.hpp"
#include "sim/planners/megatron/recompute.hpp"
#include "sim/planners/megatron/schedule.hpp"
#include "sim/planners/megatron/transformer_shape.hpp"
#include "sim/memory/parameter_bytes.hpp"
#include "sim/plan/memory_use.hpp"
#include "topology/system_spec.hpp"
#include "topology/topology_graph.hpp"
#include "workloads/graph.hpp"

namespace partsim::megatron {

/// The decoder transformer a workload graph is: L identical blocks between a head (inputs and
/// embeddings) and a tail (final norm, output projection).
struct RecognisedModel {
  TransformerShape shape;
  std::vector<std::vector<std::size_t>> blocks;  // graph layer indices of each block, in order
  std::vector<std::size_t> head;                 // layers before the first block
  std::vector<std::size_t> tail;                 // layers after the last block
  double block_parameters = 0;                   // one block's trainable parameters
  double head_parameters = 0;
  double tail_parameters = 0;
};

/// Finds the block structure: every attention layer a self-attention of the same heads, width and
/// sequence, L of them at a constant distance, the layers of every block of the same kinds; the
/// vocabulary from the last layer (an fc, the output projection). Throws InputError with one line
/// saying why the graph is not such a transformer (a conv, pool or lstm layer, no attention, blocks
/// that differ, no output projection).
RecognisedModel recognise(const workloads::Graph& graph);

/// The three parallel axes, in the order of a rank: the first varies fastest.
enum class Axis { tensor, data, pipeline };
using RankOrder = std::array<Axis, 3>;
constexpr RankOrder kMegatronRankOrder{Axis::tensor, Axis::data, Axis::pipeline};  // "tp-dp-pp"
/// "tp-dp-pp", "tp-pp-dp", ...: each of tp, dp, pp once, fastest first; InputError otherwise.
RankOrder parse_rank_order(std::string_view name);
std::string rank_order_name(const RankOrder& order);
/// Every order parse_rank_order accepts, the default first.
std::vector<std::string> rank_order_names();

/// One Megatron-LM configuration (Megatron-LM's argument names in comments).
struct Configuration {
  int tp = 1;                  // --tensor-model-parallel-size
  int pp = 1;                  // --pipeline-model-parallel-size
  int dp = 1;                  // devices / (tp pp)
  int microbatch = 1;          // --micro-batch-size
  int micro_batches = 1;       // m = global batch / (microbatch dp)
  Schedule schedule = Schedule::one_f_one_b;
  int virtual_stages = 1;      // --num-layers-per-virtual-pipeline-stage gives L / (pp v)
  bool sequence_parallel = false;
  Recompute recompute = Recompute::none;
  int zero = 0;                // 1 = --use-distributed-optimizer; 2, 3 as ZeRO §5
  bool overlap_grad_reduce = false;
  bool overlap_param_gather = false;
  RankOrder rank_order = kMegatronRankOrder;  // default, or --use-tp-pp-dp-mapping's "tp-pp-dp"
  // The lowering only (lowering.hpp): replica 0's compute, TP collectives and sends stand for every
  // data-parallel replica's; the planner's prediction does not depend on it.
  bool fold_replicas = false;
  // Option `optimizer` (adam, the option's default, or none): the optimizer step after the DP
  // reduction (optimizer_step.hpp). Off here so that a Configuration built in code times the
  // pipeline alone unless asked.
  bool optimizer_step = false;
};

/// Fills dp and m and checks everything: tp pp divides `devices`, the batch is a whole number of
/// micro-batches per replica, L a multiple of pp v, the schedule (check_pipeline), the layer's
/// parallelism (check_parallelism), zero 0..3. Throws InputError naming the option and the values.
Configuration complete(Configuration c, int devices, long long batch, const TransformerShape& shape);

/// Device of tensor rank t, data rank d, pipeline stage p (c.rank_order, above).
int device_of(const Configuration& c, int t, int d, int p);

/// Trainable parameters one device of pipeline stage `stage` holds: its L/p blocks (all its v
/// chunks), the head (embeddings) on stage 0 and the tail (final norm, output projection) on the
/// last stage, which hold global chunks 0 and p v - 1; over the t tensor ranks (N21 §3: every
/// weight matrix split t ways).
double stage_parameters(const RecognisedModel& model, const Configuration& c, int stage);

/// The model states one device of stage `stage` keeps for the whole iteration: stage_parameters at
/// the documented bytes per parameter (parameter_bytes.hpp default_memory_settings for the
/// platform's precision, training), partitioned by ZeRO c.zero over the c.dp replicas (zero.hpp).
memory::ModelStateBytes stage_model_states(const topology::SystemSpec& spec, const RecognisedModel& model,
                                           const Configuration& c, int stage);

/// The prediction's terms (seconds) and the memory of the fullest device.
struct Prediction {
  double iteration_s = 0;
  double pipeline_s = 0;            // schedule.hpp iteration_time of the slowest stage's t_f, t_b
  double bubble_s = 0;              // pipeline_s - m (t_f + t_b)
  double forward_s = 0;             // t_f of the slowest stage (compute + TP + send)
  double backward_s = 0;            // t_b of the slowest stage
  double forward_compute_s = 0;     // compute parts of t_f and t_b, same stage
  double backward_compute_s = 0;    // the recomputation included
  double recompute_s = 0;           // the recomputation's part of backward_compute_s
  double tp_forward_s = 0;          // TP collectives per micro-batch, same stage
  double tp_backward_s = 0;
  double send_s = 0;                // one pipeline send per micro-batch and direction (0 for pp = 1)
  double dp_s = 0;                  // the data-parallel collectives, whole
  double dp_exposed_s = 0;          // the part not hidden
  double optimizer_s = 0;           // the optimizer step of the slowest stage's device (0 without)
  int slowest_stage = 0;
  // Per block and micro-batch on one device, for the plan's layers: compute per layer of a block
  // (forward, backward incl. recompute), and the TP collectives of one block.
  std::vector<double> block_layer_compute_s;
  std::vector<double> head_layer_compute_s;
  std::vector<double> tail_layer_compute_s;
  double block_tp_s = 0;
  plan::MemoryUse memory;           // the fullest stage's device
};

/// The prediction of `c` (already complete()d) for `model` on the platform.
Prediction predict(const topology::SystemSpec& spec, const topology::TopologyGraph& topology,
                   const workloads::Graph& graph, const RecognisedModel& model, const Configuration& c);

/// The search (option search=true): every tp dividing the devices and at most one node's GPUs (the
/// locality domain of the collectives registry), pp dividing L, microbatch dividing the batch per
/// replica, schedule (interleaved with v = 2 where it applies), recompute and zero (only 0 when
/// dp = 1); sequence parallelism and the overlaps as `base` gives them. Configurations that do not
/// fit the devices' memory are skipped; the least predicted time wins (the first on a tie).
struct SearchResult {
  Configuration best;
  Prediction prediction;
  int candidates = 0;         // configurations predicted
  int over_memory = 0;        // of those, skipped for memory
  double seconds = 0;         // wall time of the search
};
/// Throws InputError "megatron: no configuration fits ..." when none fits. `progress`, when given,
/// hears after each configuration predicted (sim/common/progress.hpp; best_s: the least iteration
/// time of those that fit so far).
SearchResult search(const topology::SystemSpec& spec, const topology::TopologyGraph& topology,
                    const workloads::Graph& graph, const RecognisedModel& model, const Configuration& base,
                    const ProgressCallback& progress = {});

}  // namespace partsim::megatron
