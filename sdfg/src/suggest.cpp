#include "weir/sdfg/suggest.h"

#include <algorithm>
#include <cctype>

namespace weir {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  // d[i][j]: distance of a[0, i) and b[0, j); three rows suffice for adjacent swaps.
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::optional<std::string> closest_name(const std::string& word, const std::vector<std::string>& candidates) {
  // A known word needs no suggestion (and must not be answered with a neighbour: "cpu" -> "gpu").
  if (std::find(candidates.begin(), candidates.end(), word) != candidates.end()) return std::nullopt;
  const std::size_t limit = word.size() <= 4 ? 1 : word.size() <= 8 ? 2 : 3;
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  auto lower = [](std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  for (const auto& c : candidates) {
    std::size_t dist = edit_distance(word, c);
    // A name that differs only in letter case ("F" for "f") is close however short (this
    // refines the rule of suggest.h: fewer edits than `word` has characters).
    bool case_only = lower(c) == lower(word);
    if (dist < best_distance && (dist < word.size() || case_only)) {
      best = c;
      best_distance = dist;
    }
  }
  return best;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  auto c = closest_name(word, candidates);
  return c ? "; did you mean '" + *c + "'?" : "";
}

}  // namespace weir
