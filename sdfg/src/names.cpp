#include "weir/sdfg/names.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace weir {

bool is_ascii_identifier(std::string_view name) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (name.empty() || !alpha(name.front())) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return alpha(c) || digit(c); });
}

bool is_python_keyword(std::string_view name) {
  static constexpr std::array<std::string_view, 35> kPythonKeywords = {
      "False", "None",   "True",    "and",      "as",     "assert", "async", "await", "break",
      "class", "continue", "def",   "del",      "elif",   "else",   "except", "finally", "for",
      "from",  "global", "if",      "import",   "in",     "is",     "lambda", "nonlocal", "not",
      "or",    "pass",   "raise",   "return",   "try",    "while",  "with",  "yield"};
  return std::find(kPythonKeywords.begin(), kPythonKeywords.end(), name) != kPythonKeywords.end();
}

bool is_identifier(std::string_view name) { return is_ascii_identifier(name) && !is_python_keyword(name); }

}  // namespace weir

namespace weir {

std::set<std::string> code_identifiers(std::string_view code) {
  auto ident_start = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  auto ident_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::set<std::string> out;
  char quote = 0;
  for (std::size_t i = 0; i < code.size();) {
    char c = code[i];
    if (quote) {
      i += c == '\\' ? 2 : 1;
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
      ++i;
    } else if (ident_start(c)) {
      std::size_t j = i;
      while (j < code.size() && ident_char(code[j])) ++j;
      if (i == 0 || code[i - 1] != '.') out.emplace(code.substr(i, j - i));
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      // A number, with its exponent or suffix letters (1e5, 0x1f): never an identifier.
      while (i < code.size() && (ident_char(code[i]) || code[i] == '.')) ++i;
    } else {
      ++i;
    }
  }
  return out;
}

}  // namespace weir
