// The arguments of a run completed after those the command line gave: sizes from --set,
// random inputs, outputs weir allocates, neighbour counts, and every check made before
// compiling (`weir run`, `weir tune`).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "run_arguments.h"
#include "run_options.h"
#include "run_target.h"
#include "weir/runtime/backend.h"

namespace weir::cli {

/// What complete_arguments added to the arguments given.
struct CompletedArguments {
  std::vector<std::string> made;       ///< arrays --random-inputs made, in call order
  std::vector<std::string> allocated;  ///< outputs allocated as zeros, in call order
};

/// Completes `given.args` for `t` on `backend`: checks --set names and sizes, makes the random
/// inputs (`o.random_inputs`), allocates the outputs the program only writes, takes the
/// neighbour counts of connectivity tables, then checks every argument (dtypes, shapes, table
/// kinds and widths, scalars, entries of connectivity tables). Throws UsageError for a --set
/// that sizes nothing it should, ArgumentError (with the option that gives a missing argument)
/// for arguments the program cannot take.
CompletedArguments complete_arguments(const RunOptions& o, const RunTarget& t,
                                      const runtime::Backend& backend, GivenArguments& given);

}  // namespace weir::cli
