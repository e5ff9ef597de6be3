// `weir run FILE.py::NAME --parts DIR` under mpirun: an unstructured program on a mesh partition
// (`weir mesh --parts`; cli/mpi/run_parts.cpp, built only with MPI; docs/adr/0060).
#pragma once

#include "run_options.h"

namespace weir::cli {

/// Runs `o.program` on part `rank` of the partition in `o.parts` on every rank: each rank keeps
/// the rows of the global inputs its part owns (by global id), fills its halo rows from their
/// owners (non-blocking MPI over the partition's send/receive lists), runs the same compiled
/// program on its local numbering, and rank 0 gathers the owned rows of the outputs and prints
/// and writes them as a single-rank `weir run` does. An error on any rank prints "weir: error:
/// rank R of N: ..." and stops every rank. Exits 2 (usage) when weir was built without MPI.
int run_parts(const RunOptions& o);

}  // namespace weir::cli
