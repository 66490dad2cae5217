#include "sim/planners/megatron/optimizer_step.hpp"

#include "sim/devices/device_model.hpp"

namespace partsim::megatron {

double updated_parameters(double rank_parameters, int zero, int dp) {
  return zero >= 1 && dp > 1 ? rank_parameters / dp : rank_parameters;
}

devices::ShardWork optimizer_step_work(double parameters) {
  // devices::optimizer_step: Adam's 12 FLOP and 28 B per parameter, fp32 states.
  const devices::Kernel k = devices::optimizer_step(parameters, 28);
  devices::ShardWork w;
  w.op = topology::OperatorClass::optimizer;
  w.precision = topology::Precision::fp32;
  w.aux_flops = k.aux_flops;
  w.memory_bytes = k.bytes;
  return w;
}

double optimizer_step_s(const topology::DeviceType& device, double parameters) {
  if (parameters <= 0) return 0;
  // Pass fwd: efficiency tables file the optimizer's kernels under fwd (scripts/gpu_microbench.py),
  // one kernel per step with no backward of its own.
  return devices::shard_time(device, optimizer_step_work(parameters), plan::Pass::fwd).compute_s;
}

}  // namespace partsim::megatron
