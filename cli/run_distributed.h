// `weir run FILE.py::NAME --decompose I,J` under mpirun: one program on every rank of
// MPI_COMM_WORLD (cli/mpi/run_distributed.cpp; built only with MPI, docs/adr/0057).
#pragma once

#include "run_options.h"

namespace weir::cli {

/// Runs `o.program` decomposed over the ranks along `o.decompose`: every rank reads the global
/// inputs and keeps its part, the program exchanges halos, rank 0 gathers, prints and writes
/// the outputs as a single-rank `weir run` does. An error on any rank prints "weir: error: rank
/// R of N: ..." and stops every rank (MPI_Abort, exit 1; usage errors exit 2 from rank 0).
/// Throws UsageError when weir was built without MPI.
int run_distributed(const RunOptions& o);

}  // namespace weir::cli
