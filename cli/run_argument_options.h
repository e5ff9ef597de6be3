// The options of `weir run` and `weir tune` that give a program's arguments: -I, --in,
// --in-dir, --set, --set-json (gather_arguments reads them).
#pragma once

#include "run_options.h"

namespace CLI {
class App;
}

namespace weir::cli {

/// Adds -I/--include, --in, --in-dir, --set and --set-json to `cmd`, stored in `o`.
void add_argument_options(CLI::App& cmd, RunOptions& o);

}  // namespace weir::cli
