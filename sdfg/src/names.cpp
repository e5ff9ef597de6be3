#include "weir/sdfg/names.h"

#include <algorithm>
#include <array>

namespace weir {

bool is_ascii_identifier(std::string_view name) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (name.empty() || !alpha(name.front())) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return alpha(c) || digit(c); });
}

bool is_python_keyword(std::string_view name) {
  static constexpr std::array<std::string_view, 35> kPythonKeywords = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  return std::find(kPythonKeywords.begin(), kPythonKeywords.end(), name) != kPythonKeywords.end();
}

bool is_identifier(std::string_view name) { return is_ascii_identifier(name) && !is_python_keyword(name); }

}  // namespace weir
