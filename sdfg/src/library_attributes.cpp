#include "weir/sdfg/library_attributes.h"

#include <cctype>

namespace weir {

std::optional<std::string> numeric_library_attribute(const LibraryNode& n, const std::string& key,
                                                     const std::string& dflt) {
  const std::string* v = n.extra.find(key);
  if (!v || *v == "null") return dflt;
  std::string s = *v;
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  if (s == "True" || s == "true") return "true";
  if (s == "False" || s == "false") return "false";
  bool numeric = !s.empty();
  for (char c : s)
    numeric = numeric && (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' ||
                          c == 'e' || c == 'E');
  if (!numeric) return std::nullopt;
  return s;
}

}  // namespace weir
