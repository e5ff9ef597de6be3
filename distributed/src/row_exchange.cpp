// gather_rows (weir/distributed/row_exchange.h).
#include "weir/distributed/row_exchange.h"

// The C API only, as mpi_world.cpp.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstring>
#include <string>

#include "weir/sdfg/errors.h"

namespace weir::distributed {
namespace {

std::size_t row_bytes(const runtime::Field& f) {
  std::size_t n = f.itemsize();
  for (std::size_t k = 1; k < f.shape().size(); ++k) n *= static_cast<std::size_t>(f.shape()[k]);
  return n;
}

}  // namespace

void gather_rows(const MpiWorld& world, const runtime::Field& local,
                 const std::vector<std::int32_t>& owned_global, runtime::Field& global) {
  const std::size_t rb = row_bytes(local);
  const int tag = 11;
  if (world.rank() != 0) {
    const int n = static_cast<int>(owned_global.size());
    MPI_Send(&n, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
    MPI_Send(owned_global.data(), n, MPI_INT, 0, tag, MPI_COMM_WORLD);
    MPI_Send(local.data(), static_cast<int>(static_cast<std::size_t>(n) * rb), MPI_BYTE, 0, tag,
             MPI_COMM_WORLD);
    return;
  }
  if (row_bytes(global) != rb)
    throw Error("gather: rows of " + std::to_string(rb) + " bytes into a global array with rows of " +
                std::to_string(row_bytes(global)));
  auto* g = static_cast<unsigned char*>(global.data());
  auto place = [&](const std::int32_t* ids, int n, const unsigned char* rows) {
    for (int i = 0; i < n; ++i) {
      if (ids[i] < 0 || ids[i] >= global.shape()[0])
        throw Error("gather: global row " + std::to_string(ids[i]) + " outside the output's " +
                    std::to_string(global.shape()[0]) + " rows");
      std::memcpy(g + static_cast<std::size_t>(ids[i]) * rb, rows + static_cast<std::size_t>(i) * rb, rb);
    }
  };
  place(owned_global.data(), static_cast<int>(owned_global.size()),
        static_cast<const unsigned char*>(local.data()));
  for (int r = 1; r < world.size(); ++r) {
    int n = 0;
    MPI_Recv(&n, 1, MPI_INT, r, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    std::vector<std::int32_t> ids(static_cast<std::size_t>(n));
    std::vector<unsigned char> rows(static_cast<std::size_t>(n) * rb);
    MPI_Recv(ids.data(), n, MPI_INT, r, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(rows.data(), static_cast<int>(rows.size()), MPI_BYTE, r, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    place(ids.data(), n, rows.data());
  }
}

}  // namespace weir::distributed
