#pragma once
// The closed-form (analytic) evaluator: every task starts when its last predecessor finishes,
// compute and delays take their seconds, a transfer takes latency + bytes / bandwidth of its route
// as if it had the links to itself. No contention, so on an uncontended Program it equals the
// SimGrid replay (tested); where they differ, the difference is contention.

#include <functional>

#include "sim/program/evaluation.hpp"

namespace partsim::program {

/// Seconds an uncontended transfer of `bytes` from `src` to `dst` takes on the platform: the sum of
/// the route's link latencies plus bytes over its slowest link's bandwidth (what SimGrid's CM02
/// model gives a lone flow, notes/simgrid-3.32.md).
using TransferTime = std::function<double(const Endpoint& src, const Endpoint& dst, double bytes)>;

class TransferRoutes;  // platform_binding.hpp

class ClosedFormEvaluator final : public Evaluator {
 public:
  explicit ClosedFormEvaluator(TransferTime transfer_time);
  /// On routes already resolved (TransferRoutes::uncontended_time): evaluate() then takes only the
  /// Program they were bound to (Error otherwise). `routes` must outlive the evaluator.
  explicit ClosedFormEvaluator(const TransferRoutes& routes);
  std::string name() const override { return "closed_form"; }
  Evaluation evaluate(const Program& program) override;

 private:
  TransferTime transfer_time_;
  const TransferRoutes* routes_ = nullptr;
};

}  // namespace partsim::program
