// The host side of a run on many ranks (`weir run --decompose`): MPI's start and end, the
// rank's place, the stop of every rank when one fails, and the gather of outputs on rank 0.
#pragma once

#include <string>
#include <vector>

#include "weir/distributed/decomposition.h"
#include "weir/runtime/field.h"

namespace weir::distributed {

/// MPI_Init on construction (once per process), MPI_Finalize on destruction; MPI_COMM_WORLD.
class MpiWorld {
 public:
  MpiWorld();
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  void barrier() const;
  /// Prints `message` on stderr (when `print`), then MPI_Abort(MPI_COMM_WORLD, `code`): every
  /// rank stops, none waits in a collective or an exchange.
  [[noreturn]] void abort(const std::string& message, int code, bool print) const;

 private:
  int rank_ = 0, size_ = 1;
};

/// The Fortran handle of MPI_COMM_WORLD (MPI_Comm_c2f): the communicator `weir run --decompose`
/// passes to its program (kCommArgument, halo_exchange.h). Needs MPI initialized.
std::int64_t world_comm_handle();

/// This process's place in a communicator.
struct CommPlace {
  int rank = 0;
  int size = 0;
};

/// Rank and size of this process in the communicator whose Fortran handle is `comm`
/// (MPI_Comm_c2f; mpi4py's `Comm.py2f()`). Throws weir::Error when MPI is not initialized or
/// already finalized, and when `comm` is MPI_COMM_NULL or no communicator's handle.
CommPlace comm_place(std::int64_t comm);

/// The -I flags the generated code needs for <mpi.h> (the MPI found when weir was built).
std::vector<std::string> mpi_compile_flags();

/// The local array of one rank: `global`'s window `local` (one per axis: [lo, hi) of the
/// global indices, the whole extent along undecomposed axes) with only the owned block `own`
/// copied in; the rest (the halo) zero. Shapes: global.ndim() windows each.
runtime::Field local_part(const runtime::Field& global,
                          const std::vector<std::pair<std::int64_t, std::int64_t>>& local,
                          const std::vector<std::pair<std::int64_t, std::int64_t>>& own);

/// Collects every rank's owned block of an output into `global` on rank 0 (blocking sends of
/// the packed block; `local_of(r)`/`own_of(r)` give rank r's windows as for local_part). Other
/// ranks send `local` and leave `global` alone.
void gather_owned(const MpiWorld& world, const runtime::Field& local, runtime::Field& global,
                  const std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>>& local_of,
                  const std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>>& own_of);

}  // namespace weir::distributed
