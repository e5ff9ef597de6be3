// Tests of MapVectorization: lanes and remainder after strip-mining, the generated SIMD loop,
// refusal reasons, validity and semantics (reference interpreter and cpu backend).
#include <catch2/catch.hpp>

#include "support/builders.h"
#include "support/cpu_run.h"
#include "support/map_bodies.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/transforms/cpu_schedules.h"
#include "weir/transforms/map_vectorization.h"
#include "weir/transforms/registry.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;

namespace {

/// Sizes with M a multiple of the width, below it, and neither.
const std::vector<Symbols> kSizes{{{"N", 3}, {"M", 8}}, {{"N", 2}, {"M", 3}}, {{"N", 4}, {"M", 13}}};

/// make_map2d's nest with a sequential inner map (as cpu-schedules leaves the K loop).
std::unique_ptr<SDFG> nest(const std::string& code = "b = a * 2 + 1") {
  auto sdfg = make_map2d(true, code);
  for (MapEntry* m : maps_of(only_state(*sdfg)))
    if (m->map->label == "inner") m->map->schedule = ScheduleType::Sequential;
  return sdfg;
}

}  // namespace

TEST_CASE("MapVectorization: lanes of constant width and a remainder map",
          "[transforms][map-vectorization]") {
  auto sdfg = nest();
  auto t = make_transformation("MapVectorization");
  t->options().set("vector_width", 4LL);
  apply_and_check(*sdfg, *t, kSizes);
  auto& st = only_state(*sdfg);
  MapEntry *lanes = nullptr, *rem = nullptr;
  for (MapEntry* m : maps_of(st)) {
    if (const auto* w = m->map->extra.find(kVectorizeAttribute); w && *w == "4") lanes = m;
    if (m->map->extra.find(kVectorRemainderAttribute)) rem = m;
  }
  REQUIRE(lanes);
  REQUIRE(rem);
  CHECK(lanes->map->range[0].end - lanes->map->range[0].start == E("3"));
  CHECK(rem->map->range == S("4*floor(M/4):M"));
  CHECK(maps_of(st).size() == 4);  // outer, vector origins, lanes, remainder
  // The generated loop over the lanes carries the width.
  auto code = codegen::generate_cpu(*sdfg);
  CHECK(code.source.find("#pragma omp simd simdlen(4)") != std::string::npos);
  // Nothing is vectorized twice.
  AnalysisCache cache;
  for (const auto& c : find_matches(*sdfg, *t, cache)) CHECK_FALSE(c.result);
  std::map<std::string, long long> sizes{{"N", 5}, {"M", 23}};
  auto before = nest();
  CHECK(run_on_cpu(*before, sizes, 3) == run_on_cpu(*sdfg, sizes, 3));
}

TEST_CASE("MapVectorization: refuses with reasons", "[transforms][map-vectorization]") {
  MapVectorization t;
  SECTION("a parallel map") {
    auto sdfg = make_map2d(false);
    CHECK(refusal(*sdfg, t) ==
          "map 'map' has 2 dimensions; only a one-dimensional (innermost) map is vectorized (MapExpansion "
          "first)");
  }
  SECTION("not sequential, or not innermost") {
    auto sdfg = make_map2d(true);
    AnalysisCache cache;
    auto cands = find_matches(*sdfg, t, cache);
    REQUIRE(cands.size() == 2);
    CHECK(cands[1].result.reason() ==
          "map 'inner' is scheduled Default; only a sequential map (an innermost loop) is vectorized");
    for (MapEntry* m : maps_of(only_state(*sdfg))) m->map->schedule = ScheduleType::Sequential;
    CHECK(check_match(*sdfg, t, cands[0].match, cache).reason() ==
          "the body of map 'outer' holds MapEntry 'inner'; SIMD lanes run tasklets only");
  }
  SECTION("a write with conflict resolution") {
    auto sdfg = nest();
    auto& st = only_state(*sdfg);
    for (const DataflowEdge* e : st.edges())
      if (e->memlet.data == "B") st.edge(e->id).memlet.wcr = "lambda x, y: x + y";
    AnalysisCache cache;
    auto cands = find_matches(*sdfg, t, cache);
    REQUIRE(cands.size() == 2);
    CHECK(cands[1].result.reason() ==
          "the write to 'B' in map 'inner' has conflict resolution; SIMD lanes would race on it");
  }
  SECTION("a width that is not a register's lanes, or wider than the map (user33's J4)") {
    auto sdfg = nest();
    AnalysisCache cache;
    t.options().set("vector_width", 3LL);
    CHECK(find_matches(*sdfg, t, cache)[1].result.reason() ==
          "option 'vector_width' is 3, not a power of two: SIMD registers hold 2, 4, 8, 16, 32 or 64 lanes");
    t.options().set("vector_width", 100000LL);
    CHECK(find_matches(*sdfg, t, cache)[1].result.reason() ==
          "option 'vector_width' is 100000, more than the 64 lanes of the widest SIMD register (64 bytes of "
          "int8)");
    t.options().set("vector_width", 64LL);
    CHECK(find_matches(*sdfg, t, cache)[1].result.ok());  // M is symbolic: any width up to 64
    for (MapEntry* m : maps_of(only_state(*sdfg)))
      if (m->map->label == "inner") m->map->range = S("0:20");
    t.options().set("vector_width", 32LL);
    AnalysisCache fresh;
    CHECK(find_matches(*sdfg, t, fresh)[1].result.reason() ==
          "map 'inner' has 20 points, fewer than option 'vector_width' 32: every point would run in the "
          "remainder map");
    t.options().set("vector_width", 16LL);
    CHECK(find_matches(*sdfg, t, fresh)[1].result.ok());
  }
}
