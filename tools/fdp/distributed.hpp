// Audits across processes: the `fdp-mpi` build of the CLI (OpenMPI), run as
// `mpirun -np N fdp-mpi audit --mechanism ...`. Every process draws the
// same selection split and chooses the same tests; each evaluates its share
// of the evaluation tasks; their counts are summed (MPI_Allreduce); and the
// first process prints exactly what one process would (the others print
// nothing). The plain `fdp` binary is linked with the single-process
// version (distributed/single.cpp), `fdp-mpi` with distributed/mpi.cpp.
#pragma once

#include <cstdint>
#include <functional>

#include "fdp/audit/plan.hpp"

namespace fdp::cli {

struct distribution {
  unsigned rank = 0, ranks = 1;
  /// Sums every process's counts into each (empty: a single process);
  /// usage_error if the processes chose different tests (their counts
  /// cannot be added).
  std::function<void(const audit::plan&, audit::eval_counts&)> reduce_counts;
};

/// The processes this run is one of: under mpirun (fdp-mpi) the MPI world,
/// joined on the first call; otherwise this process alone.
const distribution& this_distribution();

}  // namespace fdp::cli
