// Combinations of the single choices that won alone (tune_winners.h).
#include "tune_winners.h"

#include <algorithm>
#include <map>
#include <set>

namespace weir::cli {

std::vector<TuneCandidate> winner_combinations(const std::vector<SingleWin>& wins, std::size_t limit) {
  // The best value of every knob.
  std::map<std::string, SingleWin> best;
  for (const auto& w : wins) {
    auto it = best.find(w.choice.first);
    if (it == best.end() || w.speedup > it->second.speedup) best[w.choice.first] = w;
  }
  std::vector<SingleWin> ranked;
  for (const auto& [knob, w] : best) ranked.push_back(w);
  std::stable_sort(ranked.begin(), ranked.end(), [](const SingleWin& a, const SingleWin& b) {
    if (a.speedup != b.speedup) return a.speedup > b.speedup;
    return a.choice < b.choice;
  });
  std::vector<std::vector<std::size_t>> picks;  // indices into `ranked`
  for (std::size_t n = 2; n <= ranked.size(); ++n) {
    std::vector<std::size_t> prefix(n);
    for (std::size_t k = 0; k < n; ++k) prefix[k] = k;
    picks.push_back(prefix);
  }
  for (std::size_t a = 0; a < ranked.size(); ++a)
    for (std::size_t b = a + 1; b < ranked.size(); ++b)
      if (b > 1) picks.push_back({a, b});  // {0, 1} is the first prefix
  std::vector<TuneCandidate> out;
  for (const auto& p : picks) {
    if (out.size() >= limit) break;
    std::vector<std::pair<std::string, std::string>> changed;
    for (std::size_t k : p) changed.push_back(ranked[k].choice);
    TuneCandidate c = tune_candidate(changed);
    c.phase = "winners";
    out.push_back(std::move(c));
  }
  return out;
}

void insert_before(std::vector<TuneCandidate>& candidates, std::size_t at,
                   const std::vector<TuneCandidate>& added) {
  using ChoiceSet = std::set<std::pair<std::string, std::string>>;
  std::set<ChoiceSet> sets;
  for (const auto& c : added) sets.emplace(c.choices.begin(), c.choices.end());
  at = std::min(at, candidates.size());
  std::vector<TuneCandidate> rest;
  for (std::size_t i = at; i < candidates.size(); ++i)
    if (!sets.count(ChoiceSet(candidates[i].choices.begin(), candidates[i].choices.end())))
      rest.push_back(std::move(candidates[i]));
  candidates.resize(at);
  candidates.insert(candidates.end(), added.begin(), added.end());
  candidates.insert(candidates.end(), std::make_move_iterator(rest.begin()),
                    std::make_move_iterator(rest.end()));
}

}  // namespace weir::cli
