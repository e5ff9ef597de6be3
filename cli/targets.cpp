#include "targets.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <regex>

#include "output_name.h"

namespace weir::cli {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_sdfg_file(const std::string& s) { return ends_with(s, ".sdfg") || ends_with(s, ".sdfgz"); }

// "x.py::p" -> "p", "x.py" -> "NAME".
std::string definition_name(const std::string& arg) {
  auto sep = arg.rfind("::");
  return sep == std::string::npos || sep + 2 == arg.size() ? "NAME" : arg.substr(sep + 2);
}

std::string file_part(const std::string& arg) { return arg.substr(0, arg.rfind("::")); }

}  // namespace

void require_sdfg_file(const std::string& command, const std::string& arg) {
  bool reference = arg.find("::") != std::string::npos;
  if (!reference && !ends_with(arg, ".py")) return;
  std::string name = definition_name(arg);
  throw UsageError("weir " + command + ": '" + arg + "' is " +
                   (reference ? "a field-view definition" : "a field-view source file") +
                   "; this command reads an SDFG file (.sdfg, .sdfgz): make one with 'weir sdfg " +
                   file_part(arg) + "::" + name + " -o " + (name == "NAME" ? "OUT" : name) + ".sdfg'");
}

void warn_sdfg_output_name(const std::string& path) {
  if (is_sdfg_file(path) || ends_with(path, ".json")) return;
  std::cerr << "weir: warning: -o " << path
            << ": the file gets an SDFG (JSON); SDFG files are named .sdfg (or .sdfgz, gzip-compressed)\n";
}

void require_definition_reference(const std::string& command, const std::string& arg) {
  if (is_sdfg_file(arg))
    throw UsageError("weir " + command + ": '" + arg +
                     "' is an SDFG file; this command takes a field-view definition FILE.py::NAME");
  auto sep = arg.rfind("::");
  if (sep == std::string::npos || sep == 0 || sep + 2 == arg.size())
    throw UsageError("weir " + command + ": '" + arg +
                     "' names no definition: expected FILE.py::NAME (a @program, @field_operator " +
                     "or orchestration function of the file; 'weir check " + file_part(arg) +
                     "' lists them)");
}

void require_python_file(const std::string& command, const std::string& arg) {
  if (is_sdfg_file(arg))
    throw UsageError("weir " + command + ": '" + arg +
                     "' is an SDFG file; this command reads field-view source " +
                     "(FILE.py); 'weir validate " + arg + "' checks an SDFG");
  if (arg.find("::") != std::string::npos)
    throw UsageError("weir " + command + ": '" + arg + "': give the file without ::NAME ('" + file_part(arg) +
                     "'); every definition in it is checked");
}

std::string for_command(const std::string& message, const std::string& command) {
  static const std::regex scan(
      R"(; run a @field_operator or @program that calls it (with fields over \S+ \(in this file: [^;]*; )e\.g\. weir run (\S+)::(\w+)\))");
  if (command == "run" || !std::regex_search(message, scan)) return message;
  const std::string verb = command == "sdfg" ? "lower" : command;
  const std::string example = "e.g. weir " + command + " $2::$3" + (command == "sdfg" ? " -o $3.sdfg" : "");
  return std::regex_replace(message, scan,
                            "; " + verb + " a @field_operator or @program that calls it $1" + example + ")",
                            std::regex_constants::format_first_only);
}

void one_value_per_option(CLI::App& app) {
  for (CLI::Option* o : app.get_options())
    if (o->nonpositional()) o->allow_extra_args(false);
  for (CLI::App* sub : app.get_subcommands({})) one_value_per_option(*sub);
}

}  // namespace weir::cli
