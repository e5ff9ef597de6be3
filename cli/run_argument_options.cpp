// The argument options of `weir run` and `weir tune` (run_argument_options.h).
#include "run_argument_options.h"

#include <CLI/CLI.hpp>

namespace weir::cli {

void add_argument_options(CLI::App& cmd, RunOptions& o) {
  cmd.add_option("-I,--include", o.includes,
                 "Directory searched for modules a .py program imports (repeatable; "
                 "WEIR_PATH is searched too)");
  cmd.add_option("--in", o.ins, "NAME=FILE.npy: an array argument (repeatable)");
  cmd.add_option("--in-dir", o.in_dirs,
                 "DIR: every array argument NAME that has a DIR/NAME.npy (repeatable: fields in one folder, "
                 "connectivity tables in another; a NAME.npy in two of them is an error; --in NAME=FILE.npy "
                 "wins)");
  cmd.add_option("--set", o.sets, "NAME=VALUE: a scalar argument or symbol (repeatable)");
  cmd.add_option("--set-json", o.set_jsons, "FILE: a JSON object of names to numbers (repeatable)");
}

}  // namespace weir::cli
