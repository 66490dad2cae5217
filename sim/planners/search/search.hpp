#pragma once
// The `search` strategy's search (issue 44): a Metropolis-Hastings walk over per-layer shardings and
// the gradient schedule, as FlexFlow's MCMC (Jia et al., SysML'19 §6), started from the best of
// every registered strategy's own plan and pricing each candidate with partsim's own lowering and a
// fast evaluator (pricing.hpp).
//
// Moves (each step draws one kind uniformly among those that apply):
//   layer     one layer takes another sharding of its menu (layout_menu.hpp; the seeds' own
//             shardings of that layer included);
//   run       a run of consecutive layers (length 2 to 8) takes one layout;
//   boundary  where two consecutive layers differ, one takes the other's sharding: a stage boundary
//             or a change of split moves by one layer;
//   schedule  the gradient synchronisation takes another of: concurrent; in_order with 25 MB buckets;
//             in_order without buckets (training plans, unless the user fixed the schedule).
// Acceptance: a cheaper candidate always; a dearer one with probability exp(-(c' - c) / (T c))
// (T = temperature, relative). Candidates over memory or refused by the lowering are never accepted.
// A candidate whose closed form (a lower bound of its flow time) is already at the current price x
// (1 + 5 T) is not timed further and rejected (the walk would accept it with probability < 0.7 %);
// a seed is, when it cannot beat the best seed (pricing.hpp Price::pruned). Seeds are lowered once
// and priced in two passes (first each with a tenth of the evaluation's work limit, then those over
// it with 1-2x the limit, by the room their closed form leaves under the best price), each in the
// order of their closed forms, while the budget lasts, and past it until one is usable (without
// one, the one-layout plans likewise); a seed's evaluation is not interrupted at the budget.
// After `patience` candidates without a new best the walk restarts from the best candidate it can
// change (one on the shared lowering). Priced candidates
// are remembered (by their shardings and schedule), so a candidate is priced once; `candidates`
// counts distinct ones.
// Seeds with a lowering of their own (dsm, megatron) are priced and may win, but are not mutated:
// their plans are more than shardings.
//
// Resampling: where many flows contend, a plan's time is chaotic (a jitter of 1e-12 of the compute
// times can move it by several percent; docs/model.md "Chaotic plans"), so the cheapest of many
// single evaluations is mostly luck and under-predicts (the winner's curse). The walk therefore
// keeps its `finalists` best distinct candidates, and at the end evaluates each `samples` times (its
// exact evaluation and samples - 1 with the timed tasks jittered by `jitter`, program/jitter.hpp);
// the finalist with the lowest mean wins, and its mean is the prediction (Price::samples keeps
// them). The walk stops early enough to leave the resampling its time (estimated from the
// finalists' pricing times); where that would take more than half the budget, fewer finalists, then
// fewer samples, are resampled (none when even one more evaluation would).
//
// Contract: deterministic for a given seed and number of candidates: the wall-clock budget only
// decides when to stop and how many finalists and samples are resampled, and the result records
// both, so the same seed with candidates=N, finalists=F and samples=S reproduces the plan exactly.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/common/progress.hpp"
#include "sim/planners/search/layout_menu.hpp"
#include "sim/planners/search/pricing.hpp"

namespace partsim::search {

struct SearchOptions {
  double budget_s = 30;           // wall-clock limit of the whole search, seeds included; 0: none
  long long candidates = 2000;    // distinct candidates priced after the seeds; 0: no limit
  double temperature = 0.02;      // relative: a 2 % dearer candidate is accepted with probability 1/e
  long long patience = 100;       // candidates without a new best before the walk restarts from it
  MenuKinds kinds;                // which layouts the menu holds (the `families` option)
  bool search_schedule = true;    // schedule moves (off in inference and when the user fixed it)
  std::uint64_t seed = 1;
  int finalists = 4;              // best distinct candidates resampled at the end (0: none)
  int samples = 8;                // evaluations of each finalist, its exact one included (1: none)
  double jitter = 1e-6;           // relative jitter of the timed tasks in the resampling
  /// Called with every candidate priced, seeds included (bench/search/search_rank_bench.cpp replays a
  /// sample of them); empty: nothing is called.
  std::function<void(const Candidate&, const Price&)> on_priced;
};

/// One priced candidate, in the order priced (the search log, search_log.hpp).
struct LogRow {
  long long index = 0;       // 0-based, seeds first
  double elapsed_s = 0;      // wall time since the search began
  std::string move;          // "seed", "layer", "run", "boundary", "schedule", "resample"
  std::string origin;        // the seed strategy the candidate descends from
  std::string schedule;      // its gradient schedule: "concurrent", "in_order", "in_order/25MB" (schedule_label)
  double predicted_s = 0;    // evaluator (0 when refused); a resample row: the mean of its samples
  double closed_s = 0;       // closed form
  bool usable = false;       // priced, and fits in memory
  bool accepted = false;     // became the walk's current candidate
  double best_s = 0;         // best usable so far (0 while none)
  std::string note;          // why unusable, or the seed's variant
};

struct SearchResult {
  Candidate best;
  Price best_price;
  std::vector<LogRow> log;
  long long candidates = 0;       // distinct candidates priced after the seeds
  std::string stopped_by;         // "candidates", "budget" or "exhausted"
  double elapsed_s = 0;
  int resampled = 0;              // finalists resampled (file comment)
  int samples = 1;                // evaluations of each (1: none resampled)
};

/// The walk from `seeds` (at least one; each already carries its schedule variant). Throws
/// InputError when no seed is usable and no layout fits the workload.
SearchResult run_search(const std::vector<Candidate>& seeds, const Pricer& pricer, const workloads::Graph& graph,
                        int device_count, plan::Mode mode, const SearchOptions& options,
                        const ProgressCallback& progress = {});

/// The gradient schedules the walk tries (training): concurrent, in_order + 25 MB, in_order alone.
std::vector<plan::ScheduleDirectives> schedule_variants();
/// `schedule` with the gradient sync order and bucket of `variant` (what the variants differ in).
plan::ScheduleDirectives with_gradient_schedule(plan::ScheduleDirectives schedule, const plan::ScheduleDirectives& variant);
/// "concurrent", "in_order" or "in_order/25MB" (the bucket in decimal MB): the log's schedule column.
std::string schedule_label(const plan::ScheduleDirectives& schedule);

}  // namespace partsim::search
