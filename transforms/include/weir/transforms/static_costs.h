// Static costs of the elements a profile times (docs/adr/0048-profiling.md): bytes moved across
// an element's boundary and floating-point operations counted from tasklet code, as expressions
// of the SDFG's symbols (DaCe's SDFV overlays "memory volume" and "FLOPs" show the same kind of
// numbers, computed there from propagated memlets).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "weir/sdfg/instrumented.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/symbolic.h"

namespace weir::transforms {

/// The element type of each name a tasklet's code may read or write.
using TaskletNameTypes = std::map<std::string, ScalarType>;

/// The types of tasklet `t`'s names in state `st` of `sdfg`: each connector's declared type,
/// else the element type of its memlet's container (a table connector of an unstructured
/// stencil is int32), the SDFG's symbols with their types and the parameters of the state's
/// maps (integers).
TaskletNameTypes tasklet_name_types(const SDFG& sdfg, const SDFGState& st, const Tasklet& t);

/// Floating-point operations of one execution of a tasklet's Python code, counted on its syntax
/// tree with the type of every subexpression (names typed by `types`, a name not there as
/// float64; locals by the value assigned; an int literal int64; promotion as the code
/// generator's, promotion.h). An operation counts 1 when its result is floating point (float or
/// complex): a binary arithmetic operator (+ - * / // % **, augmented assignments included;
/// `/` of integers too, Python's true division), a call of abs, min, max, minimum, maximum,
/// floor, ceil, pow or power on floating-point arguments (on integers: 0, the index clamps
/// `max(e, 0)` of an unstructured stencil's table entries, user31's G19), and any call of a
/// float-only math function (sqrt, exp, log, sin, cos, tan, their inverse and hyperbolic forms,
/// fabs, fmin, fmax, hypot, atan2, cbrt). Unary minus, comparisons, boolean operators, casts,
/// subscripts (integer index arithmetic included) and constants count 0. Both arms of a
/// conditional count (an upper bound). A C++ tasklet, or code that does not parse, counts 0.
long long tasklet_flops(const Tasklet& t, const TaskletNameTypes& types = {});

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
/// scope (typed by tasklet_name_types), plus 1 for each of its floating-point outputs written
/// with a write-conflict resolution (the update),
/// times the iterations of the maps around it up to the element; a nested SDFG call counts the
/// FLOPs of its blocks where they form one chain (no conditions, no assignments): a state once,
/// a for loop (`k = a; k < b; k = k + c`, parse_loop) its body's FLOPs times its trip count where
/// those do not depend on the loop variable. Anything else (conditional blocks, other loops) and
/// every library node count 0 and mark the sum a lower bound (`flops_partial`). `dynamic`: some
/// memlet's volume is only an upper bound.
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

/// `cost` (static_cost(e)) per execution of `e`, averaged over its executions in one call: for an
/// element whose cost depends on the parameters of the maps around it or the variables of the for
/// loops around its state (in its SDFG and around the nested SDFG calls above it: a scan's
/// per-level state inside the SDFG called per column block, whose block width is Min(J - j, 8)),
/// which evaluate() cannot give from the program's `symbols` alone. Every execution is enumerated
/// (the maps' points, the loops' trips, with `symbols`); `executions` is their number. A value
/// stays nullopt where some execution's cannot be evaluated, a range or trip count cannot, a loop
/// around is not a for loop, or there are more than `max_executions` executions.
struct ExecutionAverage {
  std::optional<double> bytes, flops;
  long long executions = 0;
};
ExecutionAverage average_over_executions(const TimedElement& e, const StaticCost& cost,
                                         const std::map<std::string, long long>& symbols,
                                         long long max_executions = 1LL << 22);

/// evaluate(cost, symbols), and where a value needs a map parameter or loop variable around `e`,
/// its average_over_executions: what a profile report and the viewer's static overlay show per
/// execution.
EvaluatedCost evaluate_per_execution(const TimedElement& e, const StaticCost& cost,
                                     const std::map<std::string, long long>& symbols);

}  // namespace weir::transforms
