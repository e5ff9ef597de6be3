// `weir run --random-inputs`: the array arguments not given, sized from --set values, the
// dimensions' extents and the arrays given, filled with seeded uniform values.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "run_options.h"
#include "run_target.h"
#include "weir/runtime/arguments.h"
#include "weir/runtime/backend.h"

namespace weir::cli {

/// Adds to `args` every array parameter of `t` it lacks (but the outputs weir allocates,
/// RunTarget::outputs_only), allocated by `backend` and filled with values seeded by `o.seed`:
/// [0, 1) for floats, 0..9 for integers, 0/1 for bool, valid neighbour indices in connectivity
/// tables; returns their names in call order. `hints` are the --set names that are dimensions
/// (size_hints). Throws ArgumentError naming the argument when a shape needs a symbol not given
/// (saying which --set gives it), or when the array is larger than the machine's memory.
std::vector<std::string> fill_random_inputs(const RunOptions& o, const RunTarget& t,
                                            const runtime::Backend& backend, runtime::Arguments& args,
                                            const std::set<std::string>& hints);

}  // namespace weir::cli
