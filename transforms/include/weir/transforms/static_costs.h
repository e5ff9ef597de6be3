// Static costs of the elements a profile times (docs/adr/0048-profiling.md): bytes moved across
// an element's boundary and floating-point operations counted from tasklet code, as expressions
// of the SDFG's symbols (DaCe's SDFV overlays "memory volume" and "FLOPs" show the same kind of
// numbers, computed there from propagated memlets).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "weir/sdfg/instrumented.h"
#include "weir/sdfg/symbolic.h"

namespace weir::transforms {

/// Operations of one execution of a tasklet's Python code. The counting rule: every binary
/// arithmetic operator (+ - * / // % **, augmented assignments included) and every call of a
/// math function (sqrt, exp, log, sin, cos, tan, their inverse and hyperbolic forms, pow, abs,
/// fabs, floor, ceil, min, max, minimum, maximum, fmin, fmax, hypot, atan2) counts 1; unary
/// minus, comparisons, boolean operators, subscripts and constants count 0. Both arms of a
/// conditional count (an upper bound). Operations on integers count as well (a tasklet rarely
/// has any). A C++ tasklet, or code that does not parse, counts 0.
long long tasklet_flops(const Tasklet& t);

/// An element's costs per execution, in the symbols of the root SDFG (a nested SDFG's symbols
/// are mapped through its symbol_mapping). `bytes`: for a map, library node or nested SDFG call,
/// the elements of the outer memlets into and out of it (each memlet's subset, the footprint,
/// not the propagated volume that counts a stencil's overlapping reads again) times the element
/// size; for a copy, its subset twice (read and written); for a state, the sum over its
/// top-level elements. An element inside map scopes runs once per iteration of the maps around
/// it, and neighbouring iterations read overlapping subsets (a K map inside an IJ map reads the
/// 3 x 3 column box of a 5-point stencil at every (i, j)): its `bytes` are the union over all
/// those executions, each container's memlets widened over the enclosing maps' ranges into one
/// bounding box (memlet propagation), and `bytes_shared_by` is the number of executions they are
/// shared among (the product of the enclosing maps' iterations; 1 for an element at the top of
/// its state), so that bytes per execution times executions is that union, never the same
/// element counted once per neighbour that reads it. `flops`: tasklet_flops of each tasklet in the element's
/// scope, plus one per element it writes with write-conflict resolution, times the iterations of the maps
/// around it up to the element; a nested SDFG call counts its states' FLOPs where each of them runs once per
/// call (a chain of states, no conditions, no assignments), otherwise it and every library node count 0 and
/// mark the sum a lower bound
/// (`flops_partial`). `dynamic`: some memlet's volume is only an upper bound.
struct StaticCost {
  sym::Expr bytes, flops;
  sym::Expr bytes_shared_by = 1;
  bool dynamic = false, flops_partial = false;
};
StaticCost static_cost(const TimedElement& e);

/// `cost`'s expressions evaluated with the root SDFG's symbol values; nullopt for a value that
/// needs a symbol not given (one the control flow defines, such as a loop variable). `bytes` is
/// per execution: `cost.bytes / cost.bytes_shared_by` (a fraction where the union does not
/// divide evenly); nullopt when that count is not positive.
struct EvaluatedCost {
  std::optional<double> bytes, flops;
};
EvaluatedCost evaluate(const StaticCost& cost, const std::map<std::string, long long>& symbols);

}  // namespace weir::transforms
