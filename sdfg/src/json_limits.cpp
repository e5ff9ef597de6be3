#include "weir/sdfg/json_limits.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace weir {

std::optional<std::string> json_limit_problem(std::string_view text) {
  auto p = json_limit_problem_at(text);
  if (!p) return std::nullopt;
  return "at " + json_text_position(text, p->offset) + ": " + p->what;
}

std::optional<JsonLimitProblem> json_limit_problem_at(std::string_view text) {
  std::size_t depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        return JsonLimitProblem{i, "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels"};
    } else if (c == ']' || c == '}') {
      if (depth > 0) --depth;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t end = i + 1;
      while (end < text.size() &&
             (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.' || text[end] == 'e' ||
              text[end] == 'E' || text[end] == '+' || text[end] == '-'))
        ++end;
      std::string number(text.substr(i, end - i));
      double v = std::strtod(number.c_str(), nullptr);
      if (std::isinf(v))
        return JsonLimitProblem{i, "number " + (number.size() > 40 ? number.substr(0, 40) + "..." : number) +
                                       " is outside the range of a double"};
      i = end - 1;
    }
  }
  return std::nullopt;
}

}  // namespace weir
