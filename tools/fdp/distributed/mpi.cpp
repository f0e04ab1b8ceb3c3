// The MPI distribution of `fdp-mpi` (distributed.hpp). MPI is initialized
// only when the process was started by an MPI launcher (mpirun, srun: they
// set OMPI_COMM_WORLD_SIZE or PMI_SIZE / PMIX_RANK), so that `fdp-mpi` run
// by hand behaves as `fdp`.
#include <mpi.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "../cli.hpp"
#include "../distributed.hpp"
#include "fdp/audit/stats_io.hpp"

namespace fdp::cli {
namespace {

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

// The counts' integers in one vector, in a fixed order, and back.
std::vector<std::uint64_t> flat(const audit::eval_counts& c) {
  std::vector<std::uint64_t> v{c.n[0], c.n[1]};
  for (const auto& side : c.cells)
    for (const auto& view : side) v.insert(v.end(), view.begin(), view.end());
  return v;
}

void unflat(const std::vector<std::uint64_t>& v, audit::eval_counts& c) {
  std::size_t i = 0;
  c.n[0] = v[i++];
  c.n[1] = v[i++];
  for (auto& side : c.cells)
    for (auto& view : side)
      for (auto& x : view) x = v[i++];
}

void require_same_on_all(std::uint64_t value);

void sum_over_ranks(const audit::plan& tests, audit::eval_counts& c) {
  require_same_on_all(audit::plan_fingerprint(tests));
  std::vector<std::uint64_t> v = flat(c);
  const auto n = static_cast<int>(v.size());
  MPI_Allreduce(MPI_IN_PLACE, v.data(), n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  unflat(v, c);
}

void require_same_on_all(std::uint64_t value) {
  std::uint64_t lo = value, hi = value;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (lo != hi)
    throw usage_error(
        "MPI ranks chose different test plans (were they given different arguments?): their "
        "counts cannot be added");
}

distribution join() {
  distribution d;
  if (!launched_by_mpi()) return d;
  MPI_Init(nullptr, nullptr);
  std::atexit([] { MPI_Finalize(); });
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  d.rank = static_cast<unsigned>(rank);
  d.ranks = static_cast<unsigned>(size);
  if (size > 1) d.reduce_counts = sum_over_ranks;
  return d;
}

}  // namespace

const distribution& this_distribution() {
  static const distribution d = join();
  return d;
}

}  // namespace fdp::cli
