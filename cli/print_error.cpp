// The one form every command prints errors in (README: "weir: error: MESSAGE").
#include <iostream>
#include <regex>
#include <string>

#include "commands.h"

namespace weir::cli {

namespace {

std::string without_located_error_word(const std::string& message) {
  // A located error reads "FILE:LINE:COL: error: what" (as a compiler prints it); after
  // "weir: error: " the second "error:" says nothing new.
  static const std::regex located(R"(^([^\s:][^\n]*?:[0-9]+:[0-9]+: )error: )");
  return std::regex_replace(message, located, "$1", std::regex_constants::format_first_only);
}

}  // namespace

int print_error(const std::string& message, int exit_code) {
  std::cerr << "weir: error: " << without_located_error_word(message) << "\n";
  return exit_code;
}

}  // namespace weir::cli
