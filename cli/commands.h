// Subcommands of the `weir` command-line tool. Each registers itself on the CLI11 app and
// returns the process exit code: 0 success, 1 invalid input, 2 usage error.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace weir::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalidInput = 1;
inline constexpr int kExitUsage = 2;

/// Help of --trust-code (weir run, weir compile): the opt-in of docs/security.md.
inline constexpr const char* kTrustCodeHelp =
    "Compile C++ written into SDFG files (CPP tasklets, global_code, init_code, ...); only for SDFGs whose "
    "author you trust (docs/security.md)";

/// Help of --no-bounds-checks (weir run, weir compile): the unsafe escape hatch of ADR 0005's
/// checks (docs/security.md).
inline constexpr const char* kNoBoundsChecksHelp =
    "UNSAFE: generate no bounds checks (neither the checks of memlets before each scope nor those of "
    "indices computed from data, such as connectivity tables): an index outside its field reads or "
    "writes memory that is not the field's, silently or with a crash. For measuring what the checks "
    "cost; never for input you do not control (docs/security.md)";

/// Help of --verbose (weir run, weir compile, weir optimize).
inline constexpr const char* kVerboseHelp =
    "Say on stderr what loading changed in an SDFG file: C++ tasklets that are DaCe's CBLAS calls "
    "(cblas_?gemm, ?gemv, ?dot) recognised as library nodes, which need no --trust-code; for a "
    "field-view program run compiled (weir run): each out= field computed into a temporary and copied "
    "because the call reads it at a point another point writes; for weir compile: the connectivity "
    "tables whose entry check in the program stands for the bounds checks of the indices read through "
    "them (docs/adr/0051)";

/// A subcommand's action, run after parsing succeeded.
using Action = std::function<int()>;

Action add_validate_command(CLI::App& app);
Action add_info_command(CLI::App& app);
Action add_convert_command(CLI::App& app);
Action add_run_command(CLI::App& app);
Action add_compile_command(CLI::App& app);
Action add_cache_command(CLI::App& app);
Action add_transforms_command(CLI::App& app);
Action add_check_command(CLI::App& app);
Action add_sdfg_command(CLI::App& app);
Action add_mesh_command(CLI::App& app);
Action add_optimize_command(CLI::App& app);
Action add_view_command(CLI::App& app);
Action add_compose_command(CLI::App& app);
Action add_tune_command(CLI::App& app);

/// The whole `weir` command line (main() of the `weir` binary, and of test binaries that
/// register test-only passes first): parses `argv`, runs the command, returns its exit code.
int run_cli(int argc, char** argv);

/// Prints "weir: error: MESSAGE" to stderr (the form of every command's errors); returns `exit_code`.
/// A located MESSAGE ("FILE:LINE:COL: error: what") loses its "error: ".
int print_error(const std::string& message, int exit_code);

/// Where the "error: " of a located error ("FILE:LINE:COL: error: what", as a compiler prints
/// it) starts in `message`: the first ":LINE:COL: error: " of its first line, which starts with
/// neither a space nor a colon (a file name may hold colons); nullopt if it is not one.
std::optional<std::size_t> located_error_word(const std::string& message);

}  // namespace weir::cli
