// What `weir run` adds to a "missing argument" error: the command-line option that gives each
// missing argument (--set qmin=VALUE, --in E2V=FILE.npy), where connectivity tables come from
// (`weir mesh`), and what `__out` is for a @field_operator run directly.
#pragma once

#include <string>

#include "run_target.h"
#include "weir/runtime/arguments.h"

namespace weir::cli {

/// "\n  hint: give it with --set qmin=VALUE" and similar lines for every parameter of `t` that
/// `args` lacks (scalars: --set NAME=VALUE; arrays and connectivity tables: --in NAME=FILE.npy;
/// tables `weir mesh` writes: that command; `__out`: the result of the field operator), in
/// signature order; "" when nothing is missing. Return values and symbols are not arguments
/// the user gives, so they are never listed.
std::string missing_argument_hint(const RunTarget& t, const runtime::Arguments& args);

}  // namespace weir::cli
