// The embedded backend's interpreter: runs a field-view program by evaluating its typed IR
// field at a time, as gt4py's embedded execution does. It is weir's reference semantics: the
// compiled backends are tested against it (docs/adr/0009-embedded-backend.md).
//
// Semantics
// - A field is values over a domain: a list of dimensions, each with a half-open index range
//   [lo, hi). An array argument over (I, J) of shape (n, m) is the field over I: [0, n),
//   J: [0, m) (gt4py's default origin). A scalar is a field without dimensions.
// - Every expression evaluates to a whole field (or a tuple of them). Element-wise operations
//   (arithmetic, comparisons, where, math builtins, astype) work over the union of their
//   operands' dimensions; along a dimension several operands have, the result's range is the
//   intersection of theirs (gt4py's domain intersection). A dimension only one operand has
//   keeps that operand's range.
// - `f(I + 1)` (or `f(Ioff[1])`) is f moved by one: its value at i is f's value at i + 1, so its
//   range is [lo - 1, hi - 1).
// - `f(E2V[k])` gathers through the connectivity table `E2V` (an array argument named after
//   the offset, int32 or int64, shape (n_edges, max_neighbours)): the result is over Edge:
//   [0, n_edges) and its value at edge e is f at vertex E2V[e, k]. `f(E2V)` gathers every
//   neighbour and gains the local dimension E2VDim: [0, max_neighbours). Table entries -1 mean
//   "no neighbour": the value there is undefined. `neighbor_sum`, `max_over`, `min_over` over
//   the local dimension skip undefined values (a point without neighbours gives 0, the lowest,
//   the highest value of the dtype). `f[E2VDim(k)]` picks entry k of the local dimension.
//   An entry that is neither -1 nor inside f's range is an error.
// - `broadcast(x, dims)` gives x an unbounded range along the dimensions it gains.
// - `concat_where(cond, a, b)` takes a where the domain condition (`K > 0`, `K == n`,
//   combinations with & and |) holds and b elsewhere; along the condition's dimensions its range
//   is the smallest range holding every point covered by the branch the condition selects there.
// - `as_offset(Koff, idx)` reads f at k + idx(k); reads outside f's range are undefined values.
// - @scan_operator: per column (every point of the other dimensions) the scan walks the axis
//   from low to high (forward) or high to low, starting with `init`, and outputs the carry after
//   each level. Its arguments' domains intersect as for element-wise operations, except along
//   the axis: the scan walks the output domain's range there (gt4py's column range) and reads
//   every argument at every level of it, used by the body or not; an argument that does not
//   cover that range (a shifted read past its field's end, a field with fewer levels) is a
//   ProgramError at the scan's call naming the argument and the first level read outside.
// - A @program runs its calls in order. Each call computes the operator's result, then writes
//   it into `out=` over the output domain: the whole field, `out=f[1:-1, 2:]` slices, or
//   `domain={I: (lo, hi)}` (other dimensions: the whole field). It is a ProgramError, naming the
//   call and both domains, when the computed result does not cover the output domain or holds an
//   undefined value there. Later calls see what earlier calls wrote; the caller's arrays are
//   updated only after the whole program succeeded (a failed run leaves them unchanged).
// - A @field_operator run directly writes its result into `__out` (or
//   `__out_0`, `__out_1`, ... for a tuple) over that array's whole domain, so an operator that
//   shifts its inputs needs inputs larger than `__out` only in gt4py's sense of domains: with
//   arrays indexed from 0 its result does not cover `__out`; call it from a @program with a
//   sliced `out=` instead.
//
// Arguments are the Arguments/Field types compiled programs take (see
// field_view_signature()): fields by parameter name with the parameter's dtype and number of
// dimensions (any extents: sizes come from the shapes), scalars in `values`, connectivity
// tables by offset name. Inputs are never modified; only `out=` fields are written.
#pragma once

#include <memory>

#include "weir/runtime/arguments.h"
#include "weir/runtime/field_view_program.h"
#include "weir/runtime/program.h"

namespace weir::runtime {

/// A Program that interprets `program` (see above). Preparing is cheap (nothing is compiled);
/// every run() evaluates the program again. Throws BackendError for an empty `program` and for
/// a parameter type that cannot be an argument (a tuple parameter); run() throws ArgumentError
/// for arguments that do not fit (nothing is written then) and ProgramError for what goes wrong
/// while running (domain not covered, undefined values written, a connectivity entry outside
/// the field, integer division by zero).
std::shared_ptr<Program> make_embedded_program(const FieldViewProgram& program);

/// Checks `args` against the program's parameters without running anything: every field and
/// connectivity table present with the right dtype and number of dimensions, every scalar
/// given and convertible, no unknown names (values named like a size symbol of
/// field_view_signature() are accepted and ignored). Throws ArgumentError, e.g.
///   "missing argument 'u' (float64 field over (I, J, K))",
///   "argument 'u': expected a float64 field over (I, J, K) (3 dimensions), got float32 (4, 4)",
///   "missing connectivity table 'E2V' (an int32 or int64 array of shape (n_Edge, max_neighbours))".
void check_embedded_arguments(const FieldViewProgram& program, const Arguments& args);

}  // namespace weir::runtime
