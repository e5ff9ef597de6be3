// Checks of connectivity tables before a field-view program runs: their entries are indices
// the generated code reads through without a bounds check (indirect, dynamic reads), so an
// entry outside the indexed dimension would read out of bounds (docs/adr/0005).
#pragma once

#include <memory>
#include <vector>

#include "weir/runtime/arguments.h"
#include "weir/runtime/field_view_program.h"
#include "weir/runtime/program.h"

namespace weir::runtime {

/// Checks every table of `connectivities` present in `args` (one pass over each): an entry must
/// be -1 (no neighbour) or in [0, extent of dimension `to`), that extent being the smallest
/// extent along `to` of the other array arguments (a field `f` over `to` has the size symbol
/// `__f_<to>_size` in `sig`). Tables over a dimension no argument has, and tables of a dtype
/// other than int32/int64 or not 2-d (binding reports those), are not checked. Throws
/// ArgumentError "connectivity 'C2E2CO': entry [3, 1] = 100000000 is outside Cell (size 24)".
void check_connectivities(const std::vector<ConnectivityParameter>& connectivities, const Signature& sig,
                          const Arguments& args);

/// Refuses tables with -1 in a column the program reads directly (`direct`): compiled code has
/// no value to give there, and must not invent one (the embedded backend refuses the same
/// program where such a point reaches an output). Throws ProgramError "file.py:12:16:
/// neighbour 1 of 'E2V' is missing at row 3 (entry [3, 1] is -1) ...". Rows outside the
/// domain of the call are not told apart: the whole column is checked (docs/adr/0013).
void check_direct_neighbours(const std::vector<DirectNeighbourRead>& direct, const Arguments& args);

/// `program`, whose run() first checks its connectivity tables with check_connectivities and
/// check_direct_neighbours. Tables passed as int64 where the program takes int32 (the lowering
/// declares int32 tables; the README promises both) run through an int32 copy; the caller's
/// table is left as it was.
std::shared_ptr<Program> with_connectivity_checks(std::shared_ptr<Program> program,
                                                  std::vector<ConnectivityParameter> connectivities,
                                                  std::vector<DirectNeighbourRead> direct = {});

}  // namespace weir::runtime
