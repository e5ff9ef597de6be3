// Read-after-write hazards of program calls (internal to the type checker): `f(a, out=a)` where
// `f` reads `a` anywhere but at the point it writes.
#pragma once

#include "weir/frontend/typed_ir.h"

namespace weir::frontend {

/// Throws FrontendError at the call when `call` writes a field (out=, sliced or not) that its
/// callee reads through a shift other than the identity (Cartesian by a nonzero amount, a
/// neighbour, as_offset), directly or through names and calls of other operators. Such a
/// result depends on the order in which points are computed (gt4py leaves it undefined), so
/// every backend refuses it alike. A read at the written point itself is allowed.
void check_out_hazards(const ProgramCall& call);

}  // namespace weir::frontend
