// Which arrays of an unstructured program need their halo rows (docs/adr/0060, section
// "2026-12-06, session 29"): on a partition every map of the program runs over all local rows,
// owned and halo, but only the owned rows of what it writes are kept (they are gathered, or
// exchanged before a later read at halo rows). An array read only at the row a map writes (nabla's
// `sign` and `vol`: `sign[v, n]` for output row `v`) needs no halo rows; one read through a
// connectivity table (a dynamic memlet, `pp[E2V[e, 0], k]`) or at another row does, and so does
// one read at the written row by a map whose output is itself read at other rows.
#pragma once

#include <set>
#include <string>

#include "weir/sdfg/sdfg.h"

namespace weir::distributed {

/// The containers of `sdfg` (names of its own arrays; nested SDFGs are not entered) whose halo
/// rows some computation of `sdfg` reads: read by a dynamic memlet, at a first index that is not
/// the single map parameter the reading map writes its outputs at, by anything at the top level
/// of a state other than a map (a copy, a tasklet, a nested SDFG, a library node), or at the
/// written row by a map that writes a container of the set (to the fixpoint). Conservative: a
/// read the rules do not recognise counts as a read at halo rows, so an exchange is never
/// dropped where it is needed.
std::set<std::string> halo_rows_read(const SDFG& sdfg);

}  // namespace weir::distributed
