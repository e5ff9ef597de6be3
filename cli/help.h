// `weir COMMAND --help`: examples under every command's options, and option values described
// in words (N, DIR, NAME=FILE.npy) instead of CLI11's type notation (UINT, TEXT, INT in [..]).
#pragma once

namespace CLI {
class App;
}

namespace weir::cli {

/// Adds the examples of each registered command (by name) as its help footer and replaces the
/// type notation of every option with a word; call after all commands are registered.
void add_help_examples(CLI::App& app);

}  // namespace weir::cli
