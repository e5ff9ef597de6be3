// The one form every command prints errors in (README: "weir: error: MESSAGE").
#include <cctype>
#include <iostream>
#include <string>
#include <string_view>

#include "commands.h"

namespace weir::cli {

namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

}  // namespace

// A scan, not std::regex: libstdc++'s regex recurses per character and overflowed the stack on a
// first line of 400,000 characters (issue 35).
std::optional<std::size_t> located_error_word(const std::string& message) {
  if (message.empty() || std::isspace(static_cast<unsigned char>(message[0])) || message[0] == ':')
    return std::nullopt;
  const std::string_view first = std::string_view(message).substr(0, message.find('\n'));
  constexpr std::string_view kError = ": error: ";
  for (std::size_t at = first.find(':', 1); at != std::string_view::npos; at = first.find(':', at + 1)) {
    std::size_t i = at + 1;
    const std::size_t line = i;
    while (i < first.size() && is_digit(first[i])) ++i;
    if (i == line || i >= first.size() || first[i] != ':') continue;
    const std::size_t column = ++i;
    while (i < first.size() && is_digit(first[i])) ++i;
    if (i == column || first.substr(i, kError.size()) != kError) continue;
    return i + 2;
  }
  return std::nullopt;
}

int print_error(const std::string& message, int exit_code) {
  // After "weir: error: " a located error's own "error:" says nothing new.
  const std::optional<std::size_t> word = located_error_word(message);
  std::cerr << "weir: error: " << (word ? message.substr(0, *word) + message.substr(*word + 7) : message)
            << "\n";
  return exit_code;
}

}  // namespace weir::cli
