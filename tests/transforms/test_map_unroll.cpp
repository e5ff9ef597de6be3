// Tests of MapUnroll: structure after unrolling, refusal reasons, validity and semantics
// (reference interpreter, outputs equal on random inputs) after every application.
#include <catch2/catch.hpp>

#include "support/builders.h"
#include "support/cpu_run.h"
#include "support/map_bodies.h"
#include "weir/transforms/map_unroll.h"
#include "weir/transforms/registry.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;

namespace {

/// Every size covers the constant ranges of the tests (indices up to 3).
const std::vector<Symbols> kSizes{{{"N", 5}, {"M", 4}}, {{"N", 4}, {"M", 7}}, {{"N", 9}, {"M", 6}}};

int tasklets(const SDFGState& st) {
  int n = 0;
  for (const Node* node : st.nodes()) n += node->kind() == NodeKind::Tasklet ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("MapUnroll: a constant inner map becomes one tasklet per iteration", "[transforms][map-unroll]") {
  auto sdfg = make_map2d(true, "b = a * j + 1", "0:3");
  MapUnroll t;
  apply_and_check(*sdfg, t, kSizes);  // the outer map (0:N) is refused; the inner one unrolls
  auto& st = only_state(*sdfg);
  auto maps = maps_of(st);
  REQUIRE(maps.size() == 1);
  CHECK(maps[0]->map->params == std::vector<std::string>{"i"});
  CHECK(tasklets(st) == 3);
  std::set<std::string> codes;
  for (const Node* n : st.nodes())
    if (const auto* tk = n->as<Tasklet>()) codes.insert(tk->code.code);
  CHECK(codes == std::set<std::string>{"b = a * (0) + 1", "b = a * (1) + 1", "b = a * (2) + 1"});
}

TEST_CASE("MapUnroll: local transients are copied per iteration, strided 2-D range from a script",
          "[transforms][map-unroll]") {
  auto sdfg = two_parts(true, "0:3:2, 1:3");
  auto t = make_transformation("MapUnroll");
  apply_and_check(*sdfg, *t, kSizes);
  auto& st = only_state(*sdfg);
  CHECK(maps_of(st).empty());
  CHECK(tasklets(st) == 12);  // 2 x 2 points, 3 tasklets each
  CHECK_FALSE(sdfg->has_data("t"));
  for (const char* name : {"t_u0", "t_u1", "t_u2", "t_u3"}) CHECK(sdfg->has_data(name));
}

TEST_CASE("MapUnroll: the cpu backend computes the same after unrolling", "[transforms][map-unroll][cpu]") {
  auto sdfg = make_map2d(true, "b = a * j + 1", "0:4");
  auto before = sdfg->clone_sdfg();
  MapUnroll t;
  apply_and_check(*sdfg, t, kSizes);
  std::map<std::string, long long> sizes{{"N", 37}, {"M", 4}};
  CHECK(run_on_cpu(*before, sizes, 3) == run_on_cpu(*sdfg, sizes, 3));
}

TEST_CASE("MapUnroll: refuses with reasons", "[transforms][map-unroll]") {
  MapUnroll t;
  SECTION("a symbolic range") {
    auto sdfg = make_map2d(false);
    CHECK(refusal(*sdfg, t) == "the range of parameter 'i' (0:N) is not a constant with a positive step");
  }
  SECTION("too many iterations") {
    auto sdfg = make_map2d(true, "b = a", "0:17");
    t.options().set("max_copies", 16LL);
    AnalysisCache cache;
    auto cands = find_matches(*sdfg, t, cache);
    REQUIRE(cands.size() == 2);
    REQUIRE_FALSE(cands[1].result);
    CHECK(cands[1].result.reason() == "map 'inner' has more than 16 iterations (max_copies)");
    t.options().set("max_copies", 17LL);
    CHECK(check_match(*sdfg, t, cands[1].match, cache));
  }
  SECTION("an empty range") {
    auto sdfg = make_map2d(true, "b = a", "3:3");
    AnalysisCache cache;
    auto cands = find_matches(*sdfg, t, cache);
    REQUIRE(cands.size() == 2);
    CHECK(cands[1].result.reason() == "map 'inner' has an empty range");
  }
  SECTION("a GPU kernel") {
    auto sdfg = make_map2d(true, "b = a", "0:2");
    for (MapEntry* m : maps_of(only_state(*sdfg))) m->map->schedule = ScheduleType::GPU_Device;
    AnalysisCache cache;
    auto cands = find_matches(*sdfg, t, cache);
    REQUIRE(cands.size() == 2);
    CHECK(cands[1].result.reason() ==
          "map 'inner' is a GPU kernel (GPU_Device): unrolled, its body would run on the host");
  }
}
