// The halo exchange and the gather of a run on a partitioned unstructured mesh (`weir run
// --parts`; docs/adr/0060-unstructured-partitioning.md): rows of a field (its first dimension
// is the partitioned entity, a row is everything after it: K levels, neighbours) travel between
// ranks along the send/receive lists of the partition, with non-blocking MPI.
#pragma once

#include <cstdint>
#include <vector>

#include "weir/distributed/mpi_world.h"
#include "weir/runtime/field.h"

namespace weir::distributed {

/// The rows one rank exchanges with rank `peer`: local row indices it sends (it owns them) and
/// receives (its halo), in the order the peer's lists give the same entities.
struct RowPeer {
  int peer = 0;
  std::vector<std::int32_t> send, recv;
};

/// Fills the halo rows of `field` (C-contiguous, ndim >= 1) from their owners: packs the rows
/// each peer needs, MPI_Irecv and MPI_Isend of every list (MPI_BYTE, tag `tag`), MPI_Waitall,
/// unpacks. Every rank must call it for the same fields in the same order. Throws weir::Error
/// for a row index outside the field.
void exchange_rows(runtime::Field& field, const std::vector<RowPeer>& peers, int tag);

/// Collects the first `owned` rows of every rank's `local` into `global` on rank 0, at the rows
/// `owned_global` gives (one global row index per owned row). Other ranks send and leave
/// `global` alone. Throws weir::Error on rank 0 for a row outside `global` or rows of another
/// size.
void gather_rows(const MpiWorld& world, const runtime::Field& local,
                 const std::vector<std::int32_t>& owned_global, runtime::Field& global);

}  // namespace weir::distributed
