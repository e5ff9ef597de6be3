// Read-after-write overlaps of program calls (internal to the type checker): `f(a, out=a)` where
// `f` reads `a` at a point that another point of the call writes.
#pragma once

#include "weir/frontend/typed_ir.h"

namespace weir::frontend {

/// Decides, for every output of `call`, whether computing it in place could change the result,
/// and sets `ProgramCall::Out::copy` (and `copy_reason`, the read) for those outputs: the
/// lowering then computes them into a temporary and copies it to the output afterwards, which
/// is gt4py's meaning (the whole right-hand side is evaluated before anything is written).
///
/// The analysis follows values, not names: every tuple element separately (`a2, b2 =
/// astype((a, b), float64)`, a helper's tuple result), with the offset at which each value
/// reads the output (Cartesian shifts add up; a neighbour or as_offset shift may reach any
/// point) and the part of the domain where the value is used (concat_where branches whose
/// condition is a domain condition). An output is copied when a point of the call's domain
/// reads it, where the value is used, at a point that another point writes; a read at the
/// point itself is in place (the tasklet reads before it writes). Bounds weir cannot compare
/// count as overlapping. Never throws for an overlap.
void check_out_hazards(ProgramCall& call);

}  // namespace weir::frontend
