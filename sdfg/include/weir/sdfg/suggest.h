// "Did you mean" suggestions for misspelt names (passes, transformations, backends, commands,
// program arguments): the known name closest to what was typed by edit distance.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace weir {

/// The edit distance of `a` and `b`: insertions, deletions, substitutions and swaps of two
/// adjacent characters cost 1 each (optimal string alignment, Damerau-Levenshtein); a
/// substitution that changes only the letter case costs 1 as well.
std::size_t edit_distance(const std::string& a, const std::string& b);

/// The candidate closest to `word` when it is close enough to be a misspelling of it: at most 1
/// edit for words up to 4 characters, 2 up to 8, 3 beyond (and fewer edits than `word` has
/// characters). Ties go to the first candidate; `word` itself is never suggested.
std::optional<std::string> closest_name(const std::string& word, const std::vector<std::string>& candidates);

/// "; did you mean 'NAME'?" for closest_name, or "" when no candidate is close: appended to
/// messages such as "unknown pass 'simplfy'".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace weir
