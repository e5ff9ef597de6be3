// DecomposedProgram::run and PartitionedProgram::run with an MPI_Comm (docs/distributed.md "From C++ and
// Python"). Header only: it includes <mpi.h>, which a program embedding weir with MPI has; weir's own
// libraries include <mpi.h> in distributed/src/mpi_world.cpp alone and pass communicators as their Fortran
// handles (MPI_Comm_c2f), so weir's other headers need no MPI.
#pragma once

#include <mpi.h>

#include <vector>

#include "weir/distributed/decomposed_program.h"
#include "weir/distributed/partitioned_program.h"

namespace weir::distributed {

/// This process's coordinates in `program`'s process grid as a rank of `comm` (row-major, the
/// last dimension fastest: grid_coordinates(rank, program.grid().sizes)). Needs MPI initialized.
inline std::vector<int> grid_coordinates(const DecomposedProgram& program, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return grid_coordinates(rank, program.grid().sizes);
}

/// Runs `program` on this rank's local arrays `local` on the communicator `comm`, this rank
/// being at `coords` of the grid (which must be its coordinates as a rank of `comm`):
/// program.run(local, MPI_Comm_c2f(comm), coords). Every rank of `comm` must call it; the
/// arrays' layout, shapes and the errors are DecomposedProgram::run's.
inline void run(const DecomposedProgram& program, runtime::Arguments& local, MPI_Comm comm,
                const std::vector<int>& coords) {
  program.run(local, static_cast<std::int64_t>(MPI_Comm_c2f(comm)), coords);
}

/// The same at this rank's own coordinates (grid_coordinates(program, comm)).
inline void run(const DecomposedProgram& program, runtime::Arguments& local, MPI_Comm comm) {
  run(program, local, comm, grid_coordinates(program, comm));
}

/// Runs the unstructured `program` on this rank's local arrays `local` with its send/receive
/// lists `lists` on the communicator `comm`: program.run(local, lists, MPI_Comm_c2f(comm)).
/// Every rank of `comm` must call it; the layout and the errors are PartitionedProgram::run's.
inline void run(const PartitionedProgram& program, runtime::Arguments& local, const RowLists& lists,
                MPI_Comm comm) {
  program.run(local, lists, static_cast<std::int64_t>(MPI_Comm_c2f(comm)));
}

}  // namespace weir::distributed
