#include "sim/sweep/mpi_world.hpp"

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <exception>
#include <string_view>

#include "sim/common/error.hpp"

namespace partsim::sweep {
namespace {

bool launched_by_mpi() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(variable) != nullptr) return true;
  return false;
}

void check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throw Error(std::string("simsweep: ") + call + " failed (MPI error " + std::to_string(rc) + ")");
}

}  // namespace

MpiWorld::MpiWorld() : uncaught_at_start_(std::uncaught_exceptions()) {
  if (!launched_by_mpi()) return;
  // libsimgrid exports the MPI API too (SMPI, for simulated MPI programs): a link order that binds
  // these calls to it would make every rank a simulated one. Callable before MPI_Init (MPI-3 §8.1.1).
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  if (std::string_view(version).find("SMPI") != std::string_view::npos ||
      std::string_view(version).find("SimGrid") != std::string_view::npos)
    throw Error("simsweep: the MPI calls are bound to SimGrid's SMPI, not to MPI (link partsim_sweep_mpi before SimGrid)");
  check(MPI_Init(nullptr, nullptr), "MPI_Init");
  launched_ = true;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  MPI_Comm local = MPI_COMM_NULL;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local), "MPI_Comm_split_type");
  check(MPI_Comm_size(local, &local_size_), "MPI_Comm_size");
  MPI_Comm_free(&local);
}

MpiWorld::~MpiWorld() {
  if (!launched_) return;
  if (std::uncaught_exceptions() > uncaught_at_start_ && !exit_agreed_) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Finalize();
}

int MpiWorld::lowest_failed_rank(bool failed) {
  if (!launched_) return failed ? 0 : -1;
  int mine = failed ? rank_ : size_, lowest = size_;
  check(MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  if (lowest == size_) return -1;
  exit_agreed_ = true;
  return lowest;
}

void MpiWorld::barrier() {
  if (launched_) check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

long long MpiWorld::sum_over_ranks(long long value) {
  if (!launched_) return value;
  long long sum = value;
  check(MPI_Allreduce(&value, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  return sum;
}

std::vector<std::vector<std::string>> MpiWorld::gather_to_root(const std::vector<std::string>& items) {
  if (!launched_) return {items};
  // Each rank's items as one JSON array text: lengths first, then the bytes (MPI_Gatherv).
  const std::string mine = nlohmann::json(items).dump();
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(rank_ == 0 ? static_cast<size_t>(size_) : 0);
  check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<int> offsets(lengths.size(), 0);
  for (size_t r = 1; r < lengths.size(); ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::string all(rank_ == 0 ? static_cast<size_t>(offsets.back() + lengths.back()) : 0, '\0');
  check(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                    MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::vector<std::vector<std::string>> gathered;
  for (size_t r = 0; r < lengths.size(); ++r)
    gathered.push_back(nlohmann::json::parse(all.substr(static_cast<size_t>(offsets[r]), static_cast<size_t>(lengths[r])))
                           .get<std::vector<std::string>>());
  return gathered;
}

}  // namespace partsim::sweep
