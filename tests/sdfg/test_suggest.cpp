// "Did you mean" suggestions (weir/sdfg/suggest.h): edit distances worked out by hand.
#include <catch2/catch.hpp>

#include "weir/sdfg/suggest.h"

TEST_CASE("suggest: edit distance counts insertions, deletions, substitutions and swaps", "[suggest]") {
  CHECK(weir::edit_distance("", "") == 0);
  CHECK(weir::edit_distance("abc", "") == 3);
  CHECK(weir::edit_distance("simplfy", "simplify") == 1);       // one insertion
  CHECK(weir::edit_distance("optimise", "optimize") == 1);      // one substitution
  CHECK(weir::edit_distance("mpa-fusion", "map-fusion") == 1);  // one swap of neighbours
  CHECK(weir::edit_distance("kitten", "sitting") == 3);         // k->s, e->i, +g
  CHECK(weir::edit_distance("Cpu", "cpu") == 1);                // case counts
}

TEST_CASE("suggest: the closest name when close enough, else none", "[suggest]") {
  const std::vector<std::string> backends = {"cpu", "embedded", "gpu"};
  CHECK(weir::closest_name("cpp", backends) == "cpu");              // 1 edit of 3 letters
  CHECK(weir::closest_name("embeded", backends) == "embedded");     // 1 edit
  CHECK_FALSE(weir::closest_name("tensor", backends).has_value());  // 5+ edits from every one
  CHECK_FALSE(weir::closest_name("cpu", backends).has_value());     // the word itself is known
  CHECK_FALSE(weir::closest_name("g", {"f"}).has_value());          // as many edits as letters
  // Ties go to the first candidate; longer words allow more edits (2 up to 8 letters, 3 beyond).
  CHECK(weir::closest_name("xpu", backends) == "cpu");
  CHECK(weir::closest_name("mapfuson", {"map-fusion"}) == "map-fusion");  // 2 edits, 8 letters
  CHECK_FALSE(weir::closest_name("mapfsn", {"map-fusion"}).has_value());  // 4 edits, 6 letters
  CHECK(weir::closest_name("greedymapfuson", {"greedy-map-fusion"}) == "greedy-map-fusion");  // 3 edits
  CHECK(weir::did_you_mean("simplfy", {"simplify", "map-fusion"}) == "; did you mean 'simplify'?");
  CHECK(weir::did_you_mean("zzz", {"simplify"}).empty());
}
