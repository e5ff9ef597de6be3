// The gather of a run on a partitioned unstructured mesh (`weir run --parts`;
// docs/adr/0060-unstructured-partitioning.md): the owned rows of a field (its first dimension is
// the partitioned entity, a row is everything after it: K levels, neighbours) collected on rank
// 0 by global id. The halo exchange itself is a library node of the program
// (weir/distributed/unstructured_exchange.h).
#pragma once

#include <cstdint>
#include <vector>

#include "weir/distributed/mpi_world.h"
#include "weir/runtime/field.h"

namespace weir::distributed {

/// Collects the first `owned` rows of every rank's `local` into `global` on rank 0, at the rows
/// `owned_global` gives (one global row index per owned row). Other ranks send and leave
/// `global` alone. Throws weir::Error on rank 0 for a row outside `global` or rows of another
/// size.
void gather_rows(const MpiWorld& world, const runtime::Field& local,
                 const std::vector<std::int32_t>& owned_global, runtime::Field& global);

}  // namespace weir::distributed
