// Global reductions of an orchestration function on a mesh partition (`weir run --parts`, docs/
// adr/0060, section "2026-12-06, session 30"): `np.max(psi)` over a field on a partitioned entity
// is a Reduce library node over all the part's local rows, owned rows first, then halo rows (the
// local numbering of `weir mesh --parts`). Each rank reduces its owned rows only (a halo row is
// another rank's, and its value may be stale or NaN), and an Allreduce node after the Reduce
// combines the ranks' values, as for Cartesian decompositions (global_reductions.h).
#pragma once

#include <set>
#include <string>

#include "weir/sdfg/sdfg.h"

namespace weir::distributed {

/// The int64 symbol holding the number of owned rows of `entity` on the rank's part
/// ("__weir_owned_Cell"); a program with reductions over that entity takes it as an argument.
std::string owned_symbol(const std::string& entity);

/// What insert_row_reductions rewrote.
struct RowReductions {
  int count = 0;                   ///< Reduce nodes now followed by an Allreduce
  std::set<std::string> entities;  ///< entities whose owned_symbol the program takes
};

/// Restricts every Reduce node of `sdfg` (an orchestration function, at any depth of its control
/// flow, not in nested SDFGs) whose input's first dimension is an entity of `entities` to the
/// rows [0, owned_symbol(entity)) of that dimension, and adds an Allreduce node after it; adds
/// the owned symbols as arguments. Throws weir::Error naming the statement (the node's debuginfo)
/// and the field for a slice along the entity (`np.max(psi[1:])`: a range of the global
/// numbering, which names other entities on a part) and for a reduction over an array whose
/// other dimension is an entity too. Reductions over arrays on no partitioned entity (held whole
/// on every rank) are left alone.
RowReductions insert_row_reductions(SDFG& sdfg, const std::set<std::string>& entities);

}  // namespace weir::distributed
