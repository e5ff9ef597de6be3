#include "targets.h"

#include <CLI/CLI.hpp>
#include <cctype>
#include <iostream>

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
  if (sep == 0) throw UsageError("weir " + command + ": '" + arg + "' names no file: expected FILE.py::NAME");
  if (sep != std::string::npos && arg.find("::") != sep)
    throw UsageError("weir " + command + ": '" + arg + "' has '::' twice: expected FILE.py::NAME, one file " +
                     "and one definition of it ('weir check " + arg.substr(0, arg.find("::")) +
                     "' lists them)");
  if (sep == std::string::npos || sep + 2 == arg.size())
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
  // "...; run a @field_operator or @program that calls it (with fields over D (in this file:
  // ...; )e.g. weir run FILE::NAME)" as the command given says it. Scanned, not std::regex
  // (whose matcher recursed per character: issue 35).
  const std::string lead = "; run a @field_operator or @program that calls it ";
  const std::string over = "with fields over ", in_file = " (in this file: ", eg = "; e.g. weir run ";
  if (command == "run") return message;
  for (std::size_t at = message.find(lead); at != std::string::npos; at = message.find(lead, at + 1)) {
    std::size_t i = at + lead.size();
    if (message.compare(i, over.size(), over) != 0) continue;
    i += over.size();
    const std::size_t dims = i;
    while (i < message.size() && !std::isspace(static_cast<unsigned char>(message[i]))) ++i;
    if (i == dims || message.compare(i, in_file.size(), in_file) != 0) continue;
    const std::size_t semi = message.find(';', i + in_file.size());
    if (semi == std::string::npos || message.compare(semi, eg.size(), eg) != 0) continue;
    const std::string with = message.substr(at + lead.size(), semi + 2 - (at + lead.size()));
    // FILE::NAME): the file is non-space, the name a word.
    const std::size_t file = semi + eg.size();
    std::size_t j = file;
    while (j < message.size() && !std::isspace(static_cast<unsigned char>(message[j]))) ++j;
    // The file is the longest non-space run before '::' + a word + ')'.
    for (std::size_t colons = message.rfind("::", j); colons != std::string::npos && colons > file;
         colons = colons == 0 ? std::string::npos : message.rfind("::", colons - 1)) {
      std::size_t k = colons + 2;
      while (k < message.size() &&
             (std::isalnum(static_cast<unsigned char>(message[k])) || message[k] == '_'))
        ++k;
      if (k == colons + 2 || k >= message.size() || message[k] != ')') continue;
      const std::string path = message.substr(file, colons - file),
                        name = message.substr(colons + 2, k - colons - 2);
      const std::string verb = command == "sdfg" ? "lower" : command;
      return message.substr(0, at) + "; " + verb + " a @field_operator or @program that calls it " + with +
             "e.g. weir " + command + " " + path + "::" + name +
             (command == "sdfg" ? " -o " + name + ".sdfg" : "") + ")" + message.substr(k + 1);
    }
  }
  return message;
}

void one_value_per_option(CLI::App& app) {
  for (CLI::Option* o : app.get_options())
    if (o->nonpositional()) o->allow_extra_args(false);
  for (CLI::App* sub : app.get_subcommands({})) one_value_per_option(*sub);
}

}  // namespace weir::cli
