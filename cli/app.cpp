// The `weir` command line: its commands, parsing and the mapping of errors to exit codes.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <new>
#include <vector>

#include "commands.h"
#include "help.h"
#include "include_dirs.h"
#include "option_values.h"
#include "targets.h"
#include "weir/frontend/definition_lookup.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/input_file.h"
#include "weir/sdfg/suggest.h"
#include "weir/sdfg/text.h"

namespace weir::cli {
namespace {

// "cache info" for `weir cache info`.
std::string command_path(const CLI::App& cmd) {
  const CLI::App* parent = cmd.get_parent();
  if (!parent || !parent->get_parent()) return cmd.get_name();
  return command_path(*parent) + " " + cmd.get_name();
}

// A CLI11 parse error as weir says it: CLI11's message ("--output is required"), without the
// option name it repeats when a validator's message names the option already ("--seed: --seed:
// ..."), and where the options are listed.
std::string parse_error_text(const CLI::ParseError& e, CLI::App& level, int argc, char** argv) {
  const std::string command = level.get_parent() ? "weir " + command_path(level) : "weir";
  // Unknown options, stray words, malformed and repeated values: in weir's own words.
  if (std::string own = usage_error_text(e, level, command, argc, argv); !own.empty()) return own;
  std::string m = e.what();
  if (m.rfind("A subcommand is required", 0) == 0) {
    std::vector<std::string> names;
    for (CLI::App* c : level.get_subcommands({})) names.push_back(c->get_name());
    m = "'" + command + "' needs a command (" + join(names) + ")";
  }
  if (auto colon = m.find(": "); colon != std::string::npos && colon > 0 && m[0] == '-') {
    std::string name = m.substr(0, colon + 2);
    if (m.compare(colon + 2, name.size(), name) == 0) m.erase(0, name.size());
  }
  return m + "\n  hint: '" + command + " --help' lists the options";
}

}  // namespace

int run_cli(int argc, char** argv) {
  // What the command reads, no output of it replaces (its sources, the SDFG's sources, arguments).
  ProtectedInputs inputs;
  CLI::App app{"weir: an optimizer and code generator for stateful dataflow graphs (SDFGs)", "weir"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("weir 0.1.0"));

  std::vector<std::pair<CLI::App*, Action>> commands;
  auto add = [&](Action (*reg)(CLI::App&)) {
    std::size_t before = app.get_subcommands({}).size();
    Action a = reg(app);
    commands.emplace_back(app.get_subcommands({})[before], std::move(a));
  };
  add(add_validate_command);
  add(add_info_command);
  add(add_convert_command);
  add(add_run_command);
  add(add_compile_command);
  add(add_cache_command);
  add(add_transforms_command);
  add(add_check_command);
  add(add_sdfg_command);
  add(add_mesh_command);
  add(add_optimize_command);
  add(add_view_command);
  add(add_compose_command);
  add(add_tune_command);
  one_value_per_option(app);
  check_number_options(app);
  add_help_examples(app);
  app.footer(
      "\nExit codes (every command):\n"
      "  0  success\n"
      "  1  the work failed: a file cannot be read or is invalid, a program does not type-check,\n"
      "     compile or run\n"
      "  2  the command line is wrong: an unknown command, option or name (of a program argument,\n"
      "     pass, transformation or backend), a missing or malformed value, an -I or --in-dir folder\n"
      "     that does not exist\n"
      "\n'weir COMMAND --help' lists a command's options, with examples.");

  // A word where a command must be that names none: CLI11 would only say "A subcommand is
  // required", so name the word and the commands.
  CLI::App* level = &app;
  for (int i = 1; i < argc && argv[i][0] != '-'; ++i) {
    CLI::App* sub = nullptr;
    for (CLI::App* c : level->get_subcommands({}))
      if (c->check_name(argv[i])) sub = c;
    if (sub) {
      level = sub;
      continue;
    }
    if (level->get_require_subcommand_min() == 0) break;
    std::vector<std::string> names;
    for (CLI::App* c : level->get_subcommands({})) names.push_back(c->get_name());
    return print_error("unknown command '" + std::string(argv[i]) + "'" +
                           (level == &app ? "" : " for 'weir " + level->get_name() + "'") +
                           did_you_mean(argv[i], names) + " (commands: " + join(names) + ")",
                       kExitUsage);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // In weir's form, with the command whose --help lists the options.
    return print_error(parse_error_text(e, *level, argc, argv), kExitUsage);
  }
  std::string command;  // the command that runs ("sdfg"), for its messages
  try {
    for (auto& [sub, action] : commands) {
      if (!sub->parsed()) continue;
      command = sub->get_name();
      check_include_dirs(*sub);
      return action();
    }
  } catch (const UsageError& e) {
    return print_error(e.what(), kExitUsage);
  } catch (const weir::UnknownNameError& e) {  // a misspelt NAME of FILE.py::NAME, ...
    return print_error(e.what(), kExitUsage);
  } catch (const weir::Error& e) {
    return print_error(with_search_path_hint(for_command(e.what(), command)), kExitInvalidInput);
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user named (or one beside it) cannot be read or written.
    std::cerr << "weir: error: cannot "
              << (e.path1().empty() ? std::string("access files") : "use " + e.path1().string()) << ": "
              << e.code().message() << "\n";
    return kExitInvalidInput;
  } catch (const std::bad_alloc&) {
    std::cerr
        << "weir: error: out of memory (the inputs or sizes given need more memory than is available)\n";
    return kExitInvalidInput;
  } catch (const std::exception& e) {
    std::cerr << "weir: internal error: " << e.what() << "\n";
    return kExitInvalidInput;
  }
  return kExitUsage;
}

}  // namespace weir::cli
