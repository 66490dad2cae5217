#pragma once
// A perturbation of a Program's timed tasks, for sensitivity checks: each compute and delay task
// lasts (1 + relative x u) times its seconds, u in [-1, 1) a hash of (seed, task index), so a task
// gets the same factor whatever the order an evaluator reaches it in. Transfers are left as they
// are.
//
// Why: where many flows contend, when each flow starts decides who shares a link with whom, and on
// such plans a perturbation of 1e-12 of the compute times can move the makespan by several percent
// (docs/model.md "Chaotic plans"). Evaluations under a few seeds show how far; the search's
// resampling (sim/planners/search/search.hpp) prices its finalists so.

#include <cstddef>
#include <cstdint>

#include "sim/program/program.hpp"

namespace partsim::program {

struct Jitter {
  double relative = 0;  // 0: none; Error unless 0 <= relative < 1 where it is used
  std::uint64_t seed = 0;
};

/// The factor task `task`'s seconds are multiplied by (1 when jitter.relative is 0).
double jitter_factor(const Jitter& jitter, std::size_t task);

/// Throws Error unless 0 <= jitter.relative < 1.
void check_jitter(const Jitter& jitter);

/// A copy of `program` whose timed tasks are perturbed by `jitter` (layers, labels, dependencies and
/// transfers as they were; collective marks and memory holdings are not copied: evaluators do not
/// read them).
Program jittered(const Program& program, const Jitter& jitter);

}  // namespace partsim::program
