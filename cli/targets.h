// What the positional arguments of `weir` commands name (SDFG files, field-view files,
// FILE.py::NAME references), checked before any work with one message and exit code (2, a
// usage error) per kind of mistake, in every command.
#pragma once

#include <stdexcept>
#include <string>

namespace CLI {
class App;
}

namespace weir::cli {

/// What FILE.py::NAME may name, in the help of every command that takes one.
inline constexpr const char* kDefinitionReferenceHelp =
    "FILE.py::NAME: a @program, @field_operator or orchestration function (a plain Python function that "
    "calls programs) of the file";

/// A mistake in how a command was called (exit code 2); main() prints "weir: error: WHAT".
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws UsageError when `arg` (a positional of `weir COMMAND`) is a field-view file or
/// FILE.py::NAME where the command reads SDFG files (.sdfg, .sdfgz), saying how to make one.
void require_sdfg_file(const std::string& command, const std::string& arg);

/// Throws UsageError unless `arg` is FILE.py::NAME (a .py file without ::NAME, or an SDFG file).
void require_definition_reference(const std::string& command, const std::string& arg);

/// Throws UsageError when `arg` is an SDFG file or FILE::NAME where a field-view file is read.
void require_python_file(const std::string& command, const std::string& arg);

/// `message` with a hint to add an import root (-I DIR or WEIR_PATH) when a frontend error says
/// a name comes from a module that is not on the search path.
std::string with_search_path_hint(const std::string& message);

/// A frontend `message` written for `weir run` as `weir COMMAND` says it: the refusal of a
/// @scan_operator named directly suggests its caller to `command` ("e.g. weir sdfg F.py::c -o
/// c.sdfg") instead of to run. Other messages are returned unchanged.
std::string for_command(const std::string& message, const std::string& command);

/// Every option of `app` and its subcommands (recursively) takes one value per occurrence, so
/// that options may come before or after positionals (`weir sdfg -I DIR FILE.py::NAME`):
/// CLI11 lets a repeatable option swallow every following word otherwise.
void one_value_per_option(CLI::App& app);

}  // namespace weir::cli
