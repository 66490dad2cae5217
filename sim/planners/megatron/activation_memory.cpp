#include "sim/planners/megatron/activation_memory.hpp"

#include <string>

#include "sim/common/error.hpp"

namespace partsim::megatron {

namespace {

void check(const TransformerShape& shape, int micro_batch, const LayerParallelism& par) {
  check_parallelism(shape, par);
  if (micro_batch < 1) throw InputError("micro-batch: must be >= 1 sample (got " + std::to_string(micro_batch) + ")");
}

// s b h, in elements.
double sbh(const TransformerShape& shape, int micro_batch) {
  return static_cast<double>(shape.sequence) * micro_batch * static_cast<double>(shape.hidden);
}

}  // namespace

double layer_activation_bytes(const TransformerShape& shape, int micro_batch, const LayerParallelism& par) {
  check(shape, micro_batch, par);
  const double t = par.tensor_parallel;
  const double a = shape.heads;
  const double s = shape.sequence;
  const double h = shape.hidden;
  // 10 sbh: the LayerNorms' inputs (4), the two dropout masks (2) and the two blocks' inputs (4),
  // replicated over t unless sequence parallel (K22 §4.2.2); 24 sbh split by tensor parallelism.
  const double replicated = par.sequence_parallel ? 10.0 / t : 10.0;
  const double split = 24.0 / t;
  const double attention_core = 5.0 * a * s / (h * t);  // 5as^2b/t bytes, per sbh
  switch (par.recompute) {
    case Recompute::none: return sbh(shape, micro_batch) * (replicated + split + attention_core);  // Eq. 2, 4
    case Recompute::selective: return sbh(shape, micro_batch) * (replicated + split);             // Table 2
    case Recompute::full: return sbh(shape, micro_batch) * (par.sequence_parallel ? 2.0 / t : 2.0);  // §5
  }
  return 0;  // unreachable: every enumerator is handled above
}

double embedding_activation_bytes(const TransformerShape& shape, int micro_batch, const LayerParallelism& par) {
  check(shape, micro_batch, par);
  const double t = par.sequence_parallel ? par.tensor_parallel : 1;
  return sbh(shape, micro_batch) / t;  // 1-byte dropout mask (K22 §4.3)
}

double output_layer_activation_bytes(const TransformerShape& shape, int micro_batch, const LayerParallelism& par) {
  check(shape, micro_batch, par);
  const double split = par.sequence_parallel ? par.tensor_parallel : 1;
  const double norm_and_projection = 4.0 * sbh(shape, micro_batch) / split;  // 2sbh + 2sbh (K22 §4.3)
  const double logits = 4.0 * shape.sequence * static_cast<double>(micro_batch) * shape.vocabulary /
                        par.tensor_parallel;  // fp32: 4sbV/t
  return norm_and_projection + logits;
}

double chunk_activation_bytes(const TransformerShape& shape, int micro_batch, const LayerParallelism& par,
                              const PipelineShape& pipeline, int chunk) {
  check(shape, micro_batch, par);
  check_pipeline(pipeline);
  const int chunks = pipeline.stages * pipeline.virtual_stages;
  if (shape.layers % chunks != 0)
    throw InputError("layers L = " + std::to_string(shape.layers) + " must be a multiple of p v = " +
                     std::to_string(pipeline.stages) + " x " + std::to_string(pipeline.virtual_stages) +
                     " (uniform pipeline stages and chunks)");
  if (chunk < 0 || chunk >= chunks)
    throw InputError("chunk " + std::to_string(chunk) + " of a pipeline of p v = " + std::to_string(chunks) + " chunks");
  double bytes = static_cast<double>(shape.layers / chunks) * layer_activation_bytes(shape, micro_batch, par);
  if (chunk == 0) bytes += embedding_activation_bytes(shape, micro_batch, par);
  if (chunk == chunks - 1) bytes += output_layer_activation_bytes(shape, micro_batch, par);
  return bytes;
}

double stage_activation_bytes(const TransformerShape& shape, int micro_batch, const LayerParallelism& par,
                              const PipelineShape& pipeline, int stage) {
  check(shape, micro_batch, par);
  const double in_flight = in_flight_micro_batches(pipeline, stage);  // checks the pipeline and stage
  const int p = pipeline.stages;
  const int chunks = p * pipeline.virtual_stages;
  if (shape.layers % chunks != 0)
    throw InputError("layers L = " + std::to_string(shape.layers) + " must be a multiple of p v = " +
                     std::to_string(p) + " x " + std::to_string(pipeline.virtual_stages) +
                     " (uniform pipeline stages and chunks)");
  const double layers_per_stage = static_cast<double>(shape.layers / p);
  double bytes = in_flight * layers_per_stage * layer_activation_bytes(shape, micro_batch, par);
  if (stage == 0) bytes += in_flight * embedding_activation_bytes(shape, micro_batch, par);
  if (stage == p - 1) {
    const double output_in_flight = pipeline.schedule == Schedule::gpipe ? pipeline.micro_batches : 1;
    bytes += output_in_flight * output_layer_activation_bytes(shape, micro_batch, par);
  }
  return bytes;
}

}  // namespace partsim::megatron
