// CLI11's parse errors in weir's terms (option_values.h).
#include "option_values.h"

#include <CLI/CLI.hpp>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <optional>
#include <vector>

#include "weir/sdfg/suggest.h"
#include "weir/sdfg/text.h"

namespace weir::cli {
namespace {

bool all_digits(const std::string& s, std::size_t from) {
  return s.size() > from && s.find_first_not_of("0123456789", from) == std::string::npos;
}

// The option name (`-` and more non-space characters) that starts at m[at] and is followed by
// `sep`, the longest such (as the pattern `(-\S+)SEP` would match); nullopt if none.
std::optional<std::string> option_at(const std::string& m, std::size_t at, const std::string& sep) {
  if (at >= m.size() || m[at] != '-') return std::nullopt;
  std::size_t end = at;
  while (end < m.size() && !std::isspace(static_cast<unsigned char>(m[end]))) ++end;
  for (std::size_t k = end; k > at + 1; --k)
    if (m.compare(k, sep.size(), sep) == 0) return m.substr(at, k - at);
  return std::nullopt;
}

bool is_integer(const std::string& s) { return all_digits(s, s[0] == '-' || s[0] == '+' ? 1 : 0); }

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  std::strtod(s.c_str(), &end);
  return *end == '\0';
}

// The text a check returns: CLI11 makes it "--threads: '-3': expected ...", which
// usage_error_text turns into "--threads -3: expected ...".
std::string refused(const std::string& value, const std::string& expected) {
  return "'" + value + "': expected " + expected;
}

// Every long name of `level`'s options ("--threads", "--include"): what a misspelt long option
// is compared with (one letter of a short one is too little to guess from).
std::vector<std::string> long_option_names(const CLI::App& level) {
  std::vector<std::string> names;
  for (const CLI::Option* o : level.get_options())
    if (o->nonpositional())
      for (const auto& l : o->get_lnames()) names.push_back("--" + l);
  return names;
}

// The first word of `argv` that is written as an option ("--threds", "-x") and names none of
// `level`'s, or "". Values of the options it knows are skipped ("--threads -3").
std::string unknown_option(const CLI::App& level, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    if (a.size() < 2 || a[0] != '-' || is_number(a)) continue;
    const bool long_form = a[1] == '-';
    std::string name = long_form ? a.substr(0, a.find('=')) : a.substr(0, 2);
    const CLI::Option* o = level.get_option_no_throw(name);
    if (!o) return name;
    bool value_attached = long_form ? a.find('=') != std::string::npos : a.size() > 2;
    if (o->get_items_expected_max() > 0 && !value_attached) ++i;
  }
  return "";
}

// "unexpected argument 'b': ..." for the first word of `argv` that is one of CLI11's extras.
std::string stray_positional(const CLI::App& level, const std::string& command, int argc, char** argv) {
  std::vector<std::string> extras = level.remaining();
  std::string word;
  for (int i = 1; i < argc && word.empty(); ++i)
    for (const auto& e : extras)
      if (e == argv[i]) word = e;
  if (word.empty()) return "";
  std::string took;  // what the positionals took: "one program ('a.py::p')"
  for (const CLI::Option* o : level.get_options()) {
    if (o->nonpositional() || o->results().empty()) continue;
    took += (took.empty() ? "" : ", ") + std::string("one ") + o->get_name() + " ('" + o->results().front() +
            "')";
  }
  return "unexpected argument '" + word + "': '" + command + "' takes " +
         (took.empty() ? "no more words" : took) + "\n  hint: is an option's name missing before it? '" +
         command + " --help' lists the options";
}

}  // namespace

CLI::Validator integer_in(long long min, long long max) {
  return CLI::Validator(
      [min, max](std::string& v) -> std::string {
        const std::string range = max >= INT_MAX
                                      ? "of at least " + std::to_string(min)
                                      : "from " + std::to_string(min) + " to " + std::to_string(max);
        if (!is_integer(v)) return refused(v, "an integer " + range);
        errno = 0;
        long long n = std::strtoll(v.c_str(), nullptr, 10);
        // Above an upper bound the range text leaves out ("of at least"): say it (user31 G18:
        // `--repeat 99999999999: expected an integer of at least 1`, which it is).
        if (max >= INT_MAX && ((errno == ERANGE && v[0] != '-') || n > max))
          return refused(v, "an integer from " + std::to_string(min) + " to " + std::to_string(max));
        if (errno == ERANGE || n < min || n > max) return refused(v, "an integer " + range);
        return "";
      },
      "");
}

void check_number_options(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    if (!o->nonpositional()) continue;
    const std::string type = o->get_type_name();
    if (type.rfind("UINT", 0) == 0)
      o->check(CLI::Validator(
          [](std::string& v) {
            return all_digits(v, v[0] == '+') ? "" : refused(v, "a non-negative integer");
          },
          ""));
    else if (type.rfind("INT", 0) == 0)
      o->check(
          CLI::Validator([](std::string& v) { return is_integer(v) ? "" : refused(v, "an integer"); }, ""));
    else if (type.rfind("FLOAT", 0) == 0)
      o->check(CLI::Validator([](std::string& v) { return is_number(v) ? "" : refused(v, "a number"); }, ""));
  }
  for (CLI::App* sub : app.get_subcommands({})) check_number_options(*sub);
}

std::string usage_error_text(const CLI::ParseError& e, CLI::App& level, const std::string& command, int argc,
                             char** argv) {
  const std::string m = e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    if (std::string name = unknown_option(level, argc, argv); !name.empty()) {
      std::string near = name[1] == '-' ? did_you_mean(name, long_option_names(level)) : "";
      return "unknown option '" + name + "'" +
             (near.empty() ? " for '" + command + "'\n  hint: '" + command + " --help' lists the options"
                           : near);
    }
    return stray_positional(level, command, argc, argv);
  }
  // The messages are read by scanning, not std::regex: its matcher recursed per character and
  // overflowed the stack on a 128 KiB option value (issue 35). One line only, as CLI11 writes them.
  if (m.find('\n') != std::string::npos) return "";
  // A check of ours: "--threads: '-3': expected ..." -> "--threads -3: expected ...".
  if (auto name = option_at(m, 0, ": '")) {
    const std::size_t value = name->size() + 3, end = m.rfind("': expected ");
    if (end != std::string::npos && end >= value)
      return *name + " " + m.substr(value, end - value) + ": " + m.substr(end + 3);
  }
  // A number too large for its option: "Could not convert: --threads = 1e999".
  const std::string convert = "Could not convert: ";
  if (m.rfind(convert, 0) == 0)
    if (auto name = option_at(m, convert.size(), " = "))
      return *name + " " + m.substr(convert.size() + name->size() + 3) + ": out of range";
  // An option that takes one value, given more than once: "--threads: At Most 1 required but
  // received 2".
  const std::string repeated = ": At Most 1 required but received ";
  if (auto name = option_at(m, 0, repeated)) {
    const std::string count = m.substr(name->size() + repeated.size());
    if (!count.empty() && all_digits(count, 0)) {
      std::string values;
      if (const CLI::Option* o = level.get_option_no_throw(*name))
        for (const auto& r : o->results()) values += (values.empty() ? "" : ", ") + r;
      return *name + " is given " + (count == "2" ? std::string("twice") : count + " times") +
             (values.empty() ? "" : " (" + values + ")") + "; it takes one value";
    }
  }
  return "";
}

}  // namespace weir::cli
