// The check of a scalar argument shared by argument binding and the embedded backend, so that
// every backend and the Python API's repeated-call fast path refuse the same values with the
// same message.
#pragma once

#include "weir/runtime/arguments.h"
#include "weir/runtime/signature.h"

namespace weir::runtime {

/// Checks that `n` converts to scalar parameter `p`'s dtype as bind_arguments converts it (an
/// integer parameter takes only integral numbers in its range). Throws ArgumentError, e.g.
/// "argument 'nx': expected int32 scalar, got 4294967320 (out of range)".
void check_scalar_argument(const Parameter& p, const Number& n);

}  // namespace weir::runtime
