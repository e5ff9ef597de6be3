// The folders `-I DIR` adds to the module search path (weir check, sdfg, run, compile, view):
// checked after parsing, before any work, so that a misspelt folder is not ignored silently.
#pragma once

namespace CLI {
class App;
}

namespace weir::cli {

/// Throws UsageError "-I DIR: no such directory (...)" (or "... is not a directory") for the first
/// value of an `-I,--include` option of `cmd` (and of its parsed subcommands) that names no
/// existing directory.
void check_include_dirs(CLI::App& cmd);

}  // namespace weir::cli
