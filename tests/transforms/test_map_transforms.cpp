// Tests of the map transformations: structure after applying, refusal reasons, validity and
// semantics (reference interpreter) after every application.
#include <catch2/catch.hpp>

#include "support/builders.h"
#include "weir/transforms/map_collapse.h"
#include "weir/transforms/map_expansion.h"
#include "weir/transforms/map_interchange.h"
#include "weir/transforms/map_tiling.h"
#include "weir/transforms/trivial_map_elimination.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {
const std::vector<Symbols> kSizes{{{"N", 5}, {"M", 7}}, {{"N", 1}, {"M", 3}}, {{"N", 8}, {"M", 6}}};
/// Sizes large enough for the fixed indices of the TrivialMapElimination tests.
const std::vector<Symbols> kLarge{{{"N", 5}, {"M", 7}}, {{"N", 8}, {"M", 6}}};
}  // namespace

TEST_CASE("MapCollapse: nested maps become one 2-D map", "[transforms][map-collapse]") {
  auto sdfg = make_map2d(true);
  MapCollapse t;
  apply_and_check(*sdfg, t, kSizes);
  auto maps = maps_of(only_state(*sdfg));
  REQUIRE(maps.size() == 1);
  CHECK(maps[0]->map->params == std::vector<std::string>{"i", "j"});
  CHECK(maps[0]->map->range == S("0:N, 0:M"));
  CHECK(only_state(*sdfg).num_nodes() == 5);
}

TEST_CASE("MapCollapse: refuses with a reason", "[transforms][map-collapse]") {
  MapCollapse t;
  SECTION("one map only") {
    auto sdfg = make_map2d(false);
    // No nested map exists, so the reason names none.
    CHECK_THAT(refusal(*sdfg, t),
               StartsWith("map 'map' has no map nested directly inside (it contains node ") &&
                   !Contains("the nested map"));
  }
  SECTION("inner range depends on the outer parameter") {
    auto sdfg = make_map2d(true, "b = a", "0:i+1");
    AnalysisCache cache;
    auto cands = find_matches(*sdfg, t, cache);
    REQUIRE(cands.size() == 2);
    CHECK_FALSE(cands[0].result);
    CHECK(cands[0].result.reason() == "the range of inner parameter 'j' depends on outer parameter 'i'");
  }
  SECTION("a node between the maps") {
    auto sdfg = make_map2d(true);
    SDFGState& st = only_state(*sdfg);
    auto maps = maps_of(st);
    auto& outer = *maps[0];
    auto& extra = st.add_tasklet("between", {"x = 1", Language::Python}, {}, {"x"});
    st.add_edge(outer.id(), "", extra.id(), "", Memlet{});
    sdfg->add_scalar("tmp", ScalarType::Float64, true);
    auto& tmp = st.add_access("tmp");
    st.add_edge(extra.id(), "x", tmp.id(), "", M("tmp", "0"));
    st.add_edge(tmp.id(), "", outer.exit, "", Memlet{});
    require_valid(*sdfg);
    AnalysisCache cache;
    auto cands = find_matches(*sdfg, t, cache);
    REQUIRE_FALSE(cands[0].result);
    CHECK_THAT(cands[0].result.reason(), Contains("('between') lies between map 'outer' and the nested map"));
  }
}

TEST_CASE("MapExpansion: a 2-D map becomes two nested maps", "[transforms][map-expansion]") {
  auto sdfg = make_map2d(false);
  MapExpansion t;
  apply_and_check(*sdfg, t, kSizes);
  auto& st = only_state(*sdfg);
  auto maps = maps_of(st);
  REQUIRE(maps.size() == 2);
  auto tree = st.scope_tree();
  // One is inside the other; the outer iterates i.
  MapEntry* outer = tree.parent[maps[0]->id()] == kNoNode ? maps[0] : maps[1];
  MapEntry* inner = outer == maps[0] ? maps[1] : maps[0];
  CHECK(tree.parent[inner->id()] == outer->id());
  CHECK(outer->map->params == std::vector<std::string>{"i"});
  CHECK(inner->map->params == std::vector<std::string>{"j"});
  CHECK(inner->map->schedule == ScheduleType::Sequential);
}

TEST_CASE("MapExpansion then MapCollapse round trip", "[transforms][map-expansion][map-collapse]") {
  auto sdfg = make_map2d(false, "b = a - 3");
  MapExpansion e;
  apply_and_check(*sdfg, e, kSizes);
  MapCollapse c;
  apply_and_check(*sdfg, c, kSizes);
  auto maps = maps_of(only_state(*sdfg));
  REQUIRE(maps.size() == 1);
  CHECK(maps[0]->map->params == std::vector<std::string>{"i", "j"});
}

TEST_CASE("MapExpansion: refuses one-dimensional maps", "[transforms][map-expansion]") {
  auto sdfg = make_map2d(true);
  MapExpansion t;
  CHECK(refusal(*sdfg, t) == "map 'outer' has only one dimension");
}

TEST_CASE("MapInterchange: swaps nested maps", "[transforms][map-interchange]") {
  auto sdfg = make_map2d(true, "b = a * a");
  MapInterchange t;
  apply_and_check(*sdfg, t, kSizes);
  auto& st = only_state(*sdfg);
  auto tree = st.scope_tree();
  for (MapEntry* m : maps_of(st)) {
    if (tree.parent[m->id()] == kNoNode)
      CHECK(m->map->params == std::vector<std::string>{"j"});
    else
      CHECK(m->map->params == std::vector<std::string>{"i"});
  }
}

TEST_CASE("MapInterchange: refuses dependent ranges", "[transforms][map-interchange]") {
  auto sdfg = make_map2d(true, "b = a", "0:i+1");
  MapInterchange t;
  AnalysisCache cache;
  auto cands = find_matches(*sdfg, t, cache);
  REQUIRE_FALSE(cands[0].result);
  CHECK(cands[0].result.reason() == "the range of parameter 'j' depends on parameter 'i'");
}

TEST_CASE("TrivialMapElimination: removes size-1 dimensions and substitutes",
          "[transforms][trivial-map-elimination]") {
  auto sdfg = make_map2d(false, "b = a + j * 10", "3:4");
  TrivialMapElimination t;
  apply_and_check(*sdfg, t, kLarge);
  auto maps = maps_of(only_state(*sdfg));
  REQUIRE(maps.size() == 1);
  CHECK(maps[0]->map->params == std::vector<std::string>{"i"});
  bool found = false;
  for (Node* n : only_state(*sdfg).nodes())
    if (auto* tk = n->as<Tasklet>()) {
      CHECK(tk->code.code == "b = a + (3) * 10");
      found = true;
    }
  CHECK(found);
}

TEST_CASE("TrivialMapElimination: a map with only trivial dimensions disappears",
          "[transforms][trivial-map-elimination]") {
  auto sdfg = make_map2d(false, "b = a + i", "2:3");
  // Make dimension 0 trivial as well.
  maps_of(only_state(*sdfg))[0]->map->range = S("1:2, 2:3");
  TrivialMapElimination t;
  apply_and_check(*sdfg, t, kLarge);
  CHECK(maps_of(only_state(*sdfg)).empty());
  CHECK(only_state(*sdfg).num_nodes() == 3);
}

TEST_CASE("TrivialMapElimination: refuses maps without trivial dimensions",
          "[transforms][trivial-map-elimination]") {
  auto sdfg = make_map2d(false);
  TrivialMapElimination t;
  CHECK(refusal(*sdfg, t) == "no dimension of map 'map' has exactly one iteration");
}

TEST_CASE("MapTiling: tiles with Min-bounded inner ranges", "[transforms][map-tiling]") {
  auto sdfg = make_map2d(false, "b = a * 3");
  MapTiling t;
  t.options().set("tile_sizes", std::vector<long long>{2, 3});
  apply_and_check(*sdfg, t, kSizes);
  auto& st = only_state(*sdfg);
  auto tree = st.scope_tree();
  auto maps = maps_of(st);
  REQUIRE(maps.size() == 2);
  MapEntry* outer = tree.parent[maps[0]->id()] == kNoNode ? maps[0] : maps[1];
  MapEntry* inner = outer == maps[0] ? maps[1] : maps[0];
  CHECK(outer->map->params == std::vector<std::string>{"tile_i", "tile_j"});
  CHECK(outer->map->range[0] == Range(E("0"), E("N - 1"), E("2")));
  CHECK(outer->map->range[1] == Range(E("0"), E("M - 1"), E("3")));
  CHECK(inner->map->range[0] == Range(E("tile_i"), E("Min(N - 1, tile_i + 1)")));
  CHECK(inner->map->range[1] == Range(E("tile_j"), E("Min(M - 1, tile_j + 2)")));
  CHECK(inner->map->params == std::vector<std::string>{"i", "j"});
}

TEST_CASE("MapTiling: divides_evenly drops the Min, the last size repeats, size 1 skips",
          "[transforms][map-tiling]") {
  auto sdfg = make_map2d(false);
  MapTiling t;
  t.options().set_text("tile_sizes", "2");
  t.options().set_text("divides_evenly", "true");
  apply_and_check(*sdfg, t, {{{"N", 4}, {"M", 6}}, {{"N", 2}, {"M", 2}}});
  auto maps = maps_of(only_state(*sdfg));
  for (MapEntry* m : maps)
    if (m->map->params[0] == "i") CHECK(m->map->range[1] == Range(E("tile_j"), E("tile_j + 1")));

  auto sdfg2 = make_map2d(false);
  MapTiling t2;
  t2.options().set("tile_sizes", std::vector<long long>{1, 4});
  apply_and_check(*sdfg2, t2, kSizes);
  for (MapEntry* m : maps_of(only_state(*sdfg2)))
    if (m->map->label == "tile_map") CHECK(m->map->params == std::vector<std::string>{"tile_j"});
}

TEST_CASE("MapTiling: tiling twice nests tiles", "[transforms][map-tiling]") {
  auto sdfg = make_map2d(true, "b = a + 1");
  MapTiling t;
  t.options().set("tile_sizes", std::vector<long long>{3});
  apply_and_check(*sdfg, t, kSizes, 0);
  apply_and_check(*sdfg, t, kSizes, 1);
  CHECK(maps_of(only_state(*sdfg)).size() == 4);
}

TEST_CASE("MapTiling: refuses with reasons", "[transforms][map-tiling]") {
  auto sdfg = make_map2d(false);
  MapTiling t;
  // A tile size below 1 is an invalid option, not a transformation that matches nothing.
  CHECK_THROWS_WITH(t.options().set("tile_sizes", std::vector<long long>{4, 0}),
                    "option 'tile_sizes' must be at least 1, not 0");
  CHECK_THROWS_WITH(t.options().set_text("tile_sizes", "-4"),
                    "option 'tile_sizes' must be at least 1, not -4");
  t.options().set("tile_sizes", std::vector<long long>{1});
  CHECK(refusal(*sdfg, t) == "every tile size is 1: nothing to tile");
  // More sizes than parameters (user33 J1): refused, not applied with the extra sizes dropped.
  t.options().set("tile_sizes", std::vector<long long>{32, 8, 4});
  CHECK(refusal(*sdfg, t) ==
        "tile_sizes has 3 values (32, 8, 4) but map 'map' has 2 parameters (i, j); give at most 2");
  t.options().set("tile_sizes", std::vector<long long>{4});
  maps_of(only_state(*sdfg))[0]->map->range = S("0:N:2, 0:M");
  CHECK(refusal(*sdfg, t) == "dimension 0 of map 'map' has step 2; only unit-step ranges are tiled");
  // divides_evenly on a range whose number of points is known and not a multiple of the tile
  // (user31 G10): refused here, not out of bounds at run time. i in [2, 12): 10 points, tile 4:
  // 2 tiles and 2 left over. With 12 points ([0, 12)) it applies.
  t.options().set_text("divides_evenly", "true");
  maps_of(only_state(*sdfg))[0]->map->range = S("2:12, 0:M");
  CHECK(refusal(*sdfg, t) ==
        "divides_evenly=true, but i=2:12 of map 'map' has 10 points, not a multiple of the tile size 4 "
        "(2 tiles of 4 and 2 left over); give divides_evenly=false");
  maps_of(only_state(*sdfg))[0]->map->range = S("0:12, 0:M");
  transforms::AnalysisCache cache;
  auto cands = transforms::find_matches(*sdfg, t, cache);
  REQUIRE(cands.size() == 1);
  CHECK(cands.front().result);
  CHECK_THROWS_WITH(t.options().set_text("tile_sizes", "4,x"),
                    Contains("must be a comma-separated list of integers"));
  CHECK_THROWS_WITH(t.options().set("tile_sizes", 3LL),
                    Contains("must be a comma-separated list of integers"));
}
