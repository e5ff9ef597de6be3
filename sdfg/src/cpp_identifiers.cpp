// The identifiers of C++ text (cpp_identifiers.h).
#include "weir/sdfg/cpp_identifiers.h"

#include <cctype>
#include <set>

namespace weir {

std::vector<std::string> cpp_identifiers(std::string_view text) {
  std::vector<std::string> out;
  std::set<std::string, std::less<>> seen;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == std::string_view::npos) break;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      i = text.find("*/", i + 2);
      if (i == std::string_view::npos) break;
      i += 2;
    } else if (c == '"' || c == '\'') {
      for (++i; i < n && text[i] != c; ++i)
        if (text[i] == '\\') ++i;
      ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      while (i < n && (word(text[i]) || text[i] == '.')) ++i;  // 1e5, 0x1F, 2.0f: no names
    } else if (word(c)) {
      const std::size_t b = i;
      while (i < n && word(text[i])) ++i;
      if (seen.insert(std::string(text.substr(b, i - b))).second) out.emplace_back(text.substr(b, i - b));
    } else {
      ++i;
    }
  }
  return out;
}

}  // namespace weir
