#include "sim/planners/megatron/transformer_costs.hpp"

#include <string>

#include "sim/common/error.hpp"

namespace partsim::megatron {

namespace {

void check_batch(double batch) {
  if (!(batch > 0)) throw InputError("batch: must be > 0 (got " + std::to_string(batch) + ")");
}

void check_element_bytes(int element_bytes) {
  if (element_bytes < 1) throw InputError("element bytes: must be >= 1 (got " + std::to_string(element_bytes) + ")");
}

// The papers' per-iteration form: lead B L s h^2 (1 + s/(k_s h) + V/(k_v h L)).
double per_iteration_form(const TransformerShape& shape, double batch, double lead, double k_s, double k_v) {
  check_shape(shape);
  check_batch(batch);
  const double L = shape.layers;
  const double s = shape.sequence;
  const double h = shape.hidden;
  const double V = shape.vocabulary;
  return lead * batch * L * s * h * h * (1.0 + s / (k_s * h) + V / (k_v * h * L));
}

}  // namespace

double layer_forward_flops(const TransformerShape& shape, double batch) {
  check_shape(shape);
  check_batch(batch);
  const double s = shape.sequence;
  const double h = shape.hidden;
  return 24.0 * batch * s * h * h + 4.0 * batch * s * s * h;  // K22 App. A
}

double attention_core_forward_flops(const TransformerShape& shape, double batch) {
  check_shape(shape);
  check_batch(batch);
  const double s = shape.sequence;
  return 4.0 * batch * s * s * shape.hidden;  // 2Bs^2h + 2Bs^2h, K22 App. A
}

double logit_forward_flops(const TransformerShape& shape, double batch) {
  check_shape(shape);
  check_batch(batch);
  return 2.0 * batch * shape.sequence * static_cast<double>(shape.hidden) * shape.vocabulary;  // K22 App. A
}

double layer_training_flops(const TransformerShape& shape, double batch, Recompute recompute) {
  const double forward = layer_forward_flops(shape, batch);
  const double step = 3.0 * forward;  // forward + backward (2x: input and weight gradients)
  switch (recompute) {
    case Recompute::none: return step;
    case Recompute::selective: return step + attention_core_forward_flops(shape, batch);
    case Recompute::full: return step + forward;
  }
  return step;  // unreachable: every enumerator is handled above
}

double model_flops_per_iteration(const TransformerShape& shape, double batch) {
  return per_iteration_form(shape, batch, 72.0, 6.0, 12.0);  // K22 eq. 7
}

double paper_hardware_flops_per_iteration(const TransformerShape& shape, double batch, Recompute recompute) {
  switch (recompute) {
    case Recompute::none: return model_flops_per_iteration(shape, batch);
    case Recompute::full: return per_iteration_form(shape, batch, 96.0, 6.0, 16.0);       // N21 eq. 3
    case Recompute::selective: return per_iteration_form(shape, batch, 72.0, 3.0, 12.0);  // K22 eq. 8
  }
  return model_flops_per_iteration(shape, batch);  // unreachable: every enumerator is handled above
}

TensorParallelTraffic tensor_parallel_traffic(const TransformerShape& shape, int micro_batch,
                                              const LayerParallelism& par, int element_bytes) {
  check_parallelism(shape, par);
  check_batch(micro_batch);
  check_element_bytes(element_bytes);
  TensorParallelTraffic traffic;
  traffic.elements = static_cast<double>(micro_batch) * shape.sequence * static_cast<double>(shape.hidden);
  traffic.bytes = traffic.elements * element_bytes;
  if (par.tensor_parallel == 1) return traffic;  // no tensor-parallel group, no collectives
  if (par.sequence_parallel) {
    traffic.forward = {.all_reduces = 0, .all_gathers = 2, .reduce_scatters = 2};  // g, g-bar (K22 Fig. 5)
    // Conjugates (g-bar's all-gather, g's reduce-scatter) and the re-gathered Y_i^s (K22 §4.2.2).
    traffic.backward = {.all_reduces = 0, .all_gathers = 2 + 2, .reduce_scatters = 2};
  } else {
    traffic.forward = {.all_reduces = 2, .all_gathers = 0, .reduce_scatters = 0};   // f-bar (K22 Fig. 4)
    traffic.backward = {.all_reduces = 2, .all_gathers = 0, .reduce_scatters = 0};  // f
  }
  if (par.recompute == Recompute::full) {
    traffic.backward.all_reduces += traffic.forward.all_reduces;
    traffic.backward.all_gathers += traffic.forward.all_gathers;
    traffic.backward.reduce_scatters += traffic.forward.reduce_scatters;
  }
  return traffic;
}

PipelineTransfer pipeline_transfer(const TransformerShape& shape, int micro_batch, const LayerParallelism& par,
                                   bool scatter_gather, int element_bytes) {
  check_parallelism(shape, par);
  check_batch(micro_batch);
  check_element_bytes(element_bytes);
  const double whole = static_cast<double>(micro_batch) * shape.sequence * static_cast<double>(shape.hidden);
  const int t = par.tensor_parallel;
  PipelineTransfer transfer;
  if (par.sequence_parallel || t == 1) {
    transfer.elements_per_rank = whole / t;  // already split along s (K22 §4.2.2); t = 1: the whole
  } else if (scatter_gather) {
    transfer.elements_per_rank = whole / t;  // N21 §4.1: a slice per rank, all-gathered on arrival
    transfer.all_gather_after = true;
  } else {
    transfer.elements_per_rank = whole;  // every rank sends its replica (N21 §3.2)
  }
  transfer.bytes_per_rank = transfer.elements_per_rank * element_bytes;
  return transfer;
}

double DataParallelTraffic::volume_elements() const {
  return (2.0 * gradient_all_reduces + gradient_reduce_scatters + parameter_all_gathers) * elements;
}

DataParallelTraffic data_parallel_traffic(double parameters, int zero_stage, int data_parallel_degree) {
  if (zero_stage < 0 || zero_stage > 3)
    throw InputError("zero: stage must be 0, 1, 2 or 3 (got " + std::to_string(zero_stage) + ")");
  if (data_parallel_degree < 1)
    throw InputError("data-parallel degree: must be >= 1 (got " + std::to_string(data_parallel_degree) + ")");
  if (!(parameters >= 0)) throw InputError("parameters: must be >= 0 (got " + std::to_string(parameters) + ")");
  DataParallelTraffic traffic;
  traffic.elements = parameters;
  if (data_parallel_degree == 1) return traffic;  // one replica: nothing to reduce or gather
  switch (zero_stage) {
    case 0: traffic.gradient_all_reduces = 1; break;
    case 1:
    case 2:
      traffic.gradient_reduce_scatters = 1;
      traffic.parameter_all_gathers = 1;
      break;
    case 3:
      traffic.gradient_reduce_scatters = 1;
      traffic.parameter_all_gathers = 2;  // before the forward and again before the backward
      break;
  }
  return traffic;
}

}  // namespace partsim::megatron
