// A @field_operator run directly on part of its output: gt4py's `op(args, out=out,
// domain={I: (1, 9)})` called from outside a @program. weir computes it as the @program call
// that says the same (docs/adr/0042-python-api.md, "Domains").
#pragma once

#include <string>
#include <vector>

#include "weir/runtime/field_view_program.h"

namespace weir::runtime {

/// The names of the bounds of dimension `dim` as arguments of with_output_domain's program:
/// "__domain_I_start" and "__domain_I_stop".
std::string domain_start_argument(const std::string& dim);
std::string domain_stop_argument(const std::string& dim);

/// The @field_operator `program` (run directly) computed on part of its output: a @program of
/// the same name making the one call `op(params..., out=__out, domain={D: (__domain_D_start,
/// __domain_D_stop), ...})` for each dimension named in `dims` (the others: the whole output),
/// which takes the operator's parameters, then its outputs (`__out`, or `__out_0`, ... for a
/// tuple result, as field_view_signature names them), then the bounds of each of `dims` in
/// that order, int64 scalars (start inclusive, stop exclusive, indices into the output). Points
/// outside the domain keep their values; the bounds are checked as a @program's domain= is
/// (the embedded backend: inside the output field). Shares ownership of `program`'s typed IR.
/// Throws BackendError when `program` is not a @field_operator run directly (a @program sets
/// the domains of its calls itself; an orchestration function calls programs), ArgumentError
/// when a name of `dims` is not a dimension of its result or is given twice.
FieldViewProgram with_output_domain(const FieldViewProgram& program, const std::vector<std::string>& dims);

}  // namespace weir::runtime
