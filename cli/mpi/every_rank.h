// The frame of a command run on every rank of an mpirun (`weir run --decompose`, `--parts`):
// MPI started and finished once, and an error on one rank stopping every rank.
#pragma once

#include <functional>

#include "run_options.h"
#include "weir/distributed/mpi_world.h"

namespace weir::cli {

/// Runs `body(o, world)` on this rank. A UsageError (the same command line on every rank) is
/// printed by rank 0 as "weir: error: ..." and stops every rank with exit 2 (on a world of one
/// rank it returns 2 without MPI_Abort, so no Open MPI banner follows); any other exception
/// prints "weir: error: rank R of N: ..." and stops every rank with exit 1 (MPI_Abort: no rank
/// waits in an exchange). Returns what `body` returned.
int on_every_rank(const RunOptions& o,
                  const std::function<int(const RunOptions&, const distributed::MpiWorld&)>& body);

}  // namespace weir::cli
