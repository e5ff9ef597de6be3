// `weir run --domain I=1:9,K=0:5`: the domain a @field_operator run directly would be computed
// on. weir runs a field operator over its whole output `__out`; a smaller domain is a @program's
// call (a sliced out=), so --domain answers with that call, written out for the operator.
#pragma once

#include <string>

#include "run_target.h"

namespace weir::cli {

/// Throws UsageError for `--domain TEXT` on `t`: for a @field_operator run directly, the message
/// gives the @program call that computes it on that domain (`lap(f, out=out[1:9, :, 0:5])`);
/// otherwise it says that a @program's calls give their domains. Malformed TEXT, or a dimension
/// the result does not have, is a UsageError naming it.
[[noreturn]] void refuse_domain(const std::string& text, const RunTarget& t);

}  // namespace weir::cli
