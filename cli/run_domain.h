// `weir run --domain I=1:9,K=0:5`: the domain a @field_operator run directly would be computed
// on. weir runs a field operator over its whole output `__out`; a smaller domain is a @program's
// call (a sliced out=), so --domain answers with that call, written out for the operator.
#pragma once

#include <string>
#include <vector>

#include "run_target.h"

namespace weir::cli {

/// Throws UsageError for `--domain TEXT` on `t`: for a @field_operator run directly, the message
/// gives the @program call that computes it on that domain (`lap(f, out=out[1:9, :, 0:5])`);
/// otherwise it says that a @program's calls give their domains. Malformed TEXT, or a dimension
/// the result does not have, is a UsageError naming it.
[[noreturn]] void refuse_domain(const std::string& text, const RunTarget& t);

/// The @program call that computes the @field_operator `t` (run directly) into `out_slice`:
/// "smooth(f, w, out=out[1:-1, :])", with every argument the operator takes (fields and scalars,
/// in order), so that the line works pasted into a @program.
std::string operator_call(const RunTarget& t, const std::string& out_slice);

/// The slice of out= a @field_operator run directly needs, from the embedded backend's message
/// that its shifted reads do not cover `__out` ("computed over (I: [1, 23), J: [0, 20), ...),
/// which does not cover the output domain of '__out' (I: [0, 24), ...)"): "out[1:-1, :, :]" for
/// a stencil that reads f(I + 1) and f(I - 1) over (I, J, K). `dims`: the result's dimensions in
/// order; or from a compiled backend's bounds check ("'f' is read over I: [-1, 7) and J: [-1, 6),
/// outside its domain I: [0, 6) and J: [0, 5)", every dimension of the first field read outside).
/// "" for other messages.
std::string needed_out_slice(const std::string& message, const std::vector<std::string>& dims);

}  // namespace weir::cli
