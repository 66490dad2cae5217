#pragma once
// The processes of an MPI job that runs one sweep (`mpirun -n N simsweep ...`, `srun simsweep ...`):
// each runs its share of the points and rank 0 gathers the CSV rows. MPI is initialized only when an
// MPI launcher started the process (Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE, a PMIx launcher
// such as srun --mpi=pmix sets PMIX_RANK, a PMI-2 one PMI_RANK); a plain `simsweep` never touches
// MPI and is the world of one rank. The only part of partsim that links MPI (the C API).

#include <string>
#include <vector>

namespace partsim::sweep {

class MpiWorld {
 public:
  /// Initializes MPI when launched by an MPI launcher.
  MpiWorld();
  /// Finalizes MPI; when destroyed by an exception the ranks did not agree on (one rank failed on
  /// its own, e.g. a full disk), aborts the job instead, so that no rank waits forever.
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  bool launched() const noexcept { return launched_; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  /// Ranks on this machine (sharing its cores).
  int local_size() const noexcept { return local_size_; }

  /// Collective: the lowest rank whose `failed` is true, or -1 when none is. When one failed, every
  /// rank is expected to end (the exit is agreed, so the destructor finalizes instead of aborting).
  int lowest_failed_rank(bool failed);
  /// Collective: returns when every rank has called it.
  void barrier();
  /// Collective: the sum of `value` over the ranks.
  long long sum_over_ranks(long long value);
  /// Collective: every rank's `items`; rank 0 gets them by rank, the others get an empty list.
  std::vector<std::vector<std::string>> gather_to_root(const std::vector<std::string>& items);

 private:
  bool launched_ = false;
  bool exit_agreed_ = false;
  int rank_ = 0;
  int size_ = 1;
  int local_size_ = 1;
  int uncaught_at_start_ = 0;
};

}  // namespace partsim::sweep
