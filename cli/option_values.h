// What CLI11 refuses on a command line, said in weir's terms and with one exit code (2): an
// unknown option (with the closest known one), a word no positional takes, a malformed number
// ("--threads: expected a non-negative integer, got '-3'"), an option that takes one value given
// twice.
#pragma once

#include <string>

namespace CLI {
class App;
class ParseError;
class Validator;
}  // namespace CLI

namespace weir::cli {

/// Adds to every numeric option of `app` and its subcommands (recursively) a check of its text
/// that names what it accepts ("expected a non-negative integer, got '-3'"), instead of CLI11's
/// "Could not convert"; call after all commands are registered.
void check_number_options(CLI::App& app);

/// A CLI11 check that an integer option is in [min, max] ("expected an integer from -1 to 8, got '9'").
CLI::Validator integer_in(long long min, long long max);

/// The message (without "weir: error: ") for CLI11's parse error `e` of `argv` for the command
/// `level` (its command path `command`, "weir run"), or "" when weir has no words of its own for it.
std::string usage_error_text(const CLI::ParseError& e, CLI::App& level, const std::string& command, int argc,
                             char** argv);

}  // namespace weir::cli
