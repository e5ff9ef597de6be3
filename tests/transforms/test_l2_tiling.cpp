// cpu-schedules' l2_tiling (docs/adr/0059, session 37): a stencil map whose reuse window (the
// planes it reads with offsets along I) exceeds half of the L2 cache runs J tile by J tile.
// Structure with hand-computed tile sizes, the reference interpreter and the compiled program
// before and after, and the maps left alone.
#include <catch2/catch.hpp>

#include "support/builders.h"
#include "support/cpu_run.h"
#include "weir/transforms/cpu_schedules.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;

namespace {

/// B[i, j, k] = A[i-2, j, k] + 2 A[i+2, j, k] - A[i, j-1, k] + A[i, j+1, k] * A[i, j, k] over
/// i in 2:N-2, j in 1:M-1, k in 0:L: A is read on five I-planes. `sizes`: "N, M, L" as
/// symbols, or numbers. `reads`: "offsets" as above, "indirect" (A[i*i, j, k] for A[i+2, j, k]:
/// no constant offset along I) or "one plane" (A[i, ...] for both: no offsets along I).
std::unique_ptr<SDFG> make_stencil(const std::string& n, const std::string& m, const std::string& l,
                                   const std::string& reads = "offsets") {
  auto sdfg = std::make_unique<SDFG>("stencil");
  for (const std::string& s : {n, m, l})
    if (!E(s).as_integer()) sdfg->add_symbol(s);
  sdfg->add_array("A", ScalarType::Float64, {E(n), E(m), E(l)});
  sdfg->add_array("B", ScalarType::Float64, {E(n), E(m), E(l)});
  SDFGState& st = sdfg->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  const std::string range = "2:" + n + "-2, 1:" + m + "-1, 0:" + l;
  auto& map = st.add_map("stencil", {"i", "j", "k"}, S(range));
  auto& t = st.add_tasklet("compute", {"b = w + 2 * e - s + nn * c", Language::Python},
                           {"w", "e", "s", "nn", "c"}, {"b"});
  const std::string all = "0:" + n + ", 0:" + m + ", 0:" + l;
  const bool flat = reads == "one plane";
  path_in(st, a.id(), {map.id()}, t.id(), "w", {M("A", all), M("A", flat ? "i, j, k" : "i - 2, j, k")});
  path_in(st, a.id(), {map.id()}, t.id(), "e",
          {M("A", all), M("A", reads == "indirect" ? "i*i, j, k"
                               : flat              ? "i, j, k"
                                                   : "i + 2, j, k")});
  path_in(st, a.id(), {map.id()}, t.id(), "s", {M("A", all), M("A", "i, j - 1, k")});
  path_in(st, a.id(), {map.id()}, t.id(), "nn", {M("A", all), M("A", "i, j + 1, k")});
  path_in(st, a.id(), {map.id()}, t.id(), "c", {M("A", all), M("A", "i, j, k")});
  path_out(st, t.id(), "b", {map.exit}, b.id(), {M("B", "i, j, k"), M("B", range)});
  return sdfg;
}

/// cpu-schedules with l2_tiling assuming an L2 of `l2` bytes; returns the state's maps,
/// outermost first.
std::vector<MapEntry*> schedule(SDFG& sdfg, long long l2) {
  AnalysisCache cache;
  CpuSchedules pass;
  pass.options().set("l2_tiling", true);
  pass.options().set("l2_bytes", l2);
  pass.run(sdfg, cache);
  require_valid(sdfg);
  SDFGState& st = only_state(sdfg);
  auto maps = maps_of(st);
  auto tree = st.scope_tree();
  auto depth = [&](const MapEntry* e) {
    int d = 0;
    for (NodeId n = e->id(); tree.parent[n] != kNoNode; n = tree.parent[n]) ++d;
    return d;
  };
  std::stable_sort(maps.begin(), maps.end(), [&](MapEntry* x, MapEntry* y) { return depth(x) < depth(y); });
  return maps;
}

}  // namespace

TEST_CASE("l2_tiling: a window over half of L2 runs J tile by J tile, tiles spread evenly",
          "[transforms][cpu-schedules][l2-tiling]") {
  // N = 8, M = 22, L = 4: J has 20 points; a J column of the window is 5 planes x 4 points x 8
  // bytes = 160 bytes, the whole window 3,200 > 1,024 = half of 2,048. At most floor(1024 / 160)
  // = 6 points a tile: ceil(20 / 6) = 4 tiles of ceil(20 / 4) = 5 points.
  auto sdfg = make_stencil("8", "22", "4");
  auto before = sdfg->clone_sdfg();
  auto maps = schedule(*sdfg, 2048);
  REQUIRE(maps.size() == 3);
  CHECK(maps[0]->map->params == std::vector<std::string>{"tile_j", "i"});
  CHECK(maps[0]->map->range[0] == Range(E("1"), E("20"), E("5")));
  CHECK(maps[0]->map->range[1] == Range(E("2"), E("5")));
  CHECK(maps[0]->map->schedule == ScheduleType::CPU_Multicore);
  CHECK(maps[0]->map->collapse == 2);
  CHECK(maps[1]->map->params == std::vector<std::string>{"j"});
  CHECK(maps[1]->map->range[0] == Range(E("tile_j"), E("Min(20, tile_j + 4)")));
  CHECK(maps[1]->map->schedule == ScheduleType::Sequential);
  CHECK_FALSE(maps[1]->map->extra.find(kVectorizeAttribute));
  // The innermost map as cpu-schedules' split makes it: K, sequential, SIMD-hinted.
  CHECK(maps[2]->map->params == std::vector<std::string>{"k"});
  CHECK(maps[2]->map->label == "stencil_inner");
  CHECK(maps[2]->map->schedule == ScheduleType::Sequential);
  CHECK(maps[2]->map->extra.find(kVectorizeAttribute));
  for (unsigned seed : {1u, 7u}) CHECK(run_program(*before, {}, seed) == run_program(*sdfg, {}, seed));
  // Compiled: the same values as the untiled program compiled.
  auto untiled = before->clone_sdfg();
  schedule(*untiled, 1LL << 30);
  CHECK(maps_of(only_state(*untiled)).size() == 2);
  CHECK(run_on_cpu(*untiled, {}, 3) == run_on_cpu(*sdfg, {}, 3));
}

TEST_CASE("l2_tiling: a window that fits stays untiled", "[transforms][cpu-schedules][l2-tiling]") {
  // 3,200 bytes <= half of 8,192: the usual schedule (I, J parallel, K split off).
  auto sdfg = make_stencil("8", "22", "4");
  auto maps = schedule(*sdfg, 8192);
  REQUIRE(maps.size() == 2);
  CHECK(maps[0]->map->params == std::vector<std::string>{"i", "j"});
  CHECK(maps[1]->map->params == std::vector<std::string>{"k"});
  // No offsets along I (one plane): no window to keep, untiled at any L2.
  auto flat = make_stencil("8", "22", "4", "one plane");
  auto flat_maps = schedule(*flat, 64);
  REQUIRE(flat_maps.size() == 2);
  CHECK(flat_maps[0]->map->params == std::vector<std::string>{"i", "j"});
}

TEST_CASE("l2_tiling: reads not at constant offsets along I are no stencil of this kind",
          "[transforms][cpu-schedules][l2-tiling]") {
  auto sdfg = make_stencil("8", "22", "4", "indirect");
  auto maps = schedule(*sdfg, 64);
  REQUIRE(maps.size() == 2);
  CHECK(maps[0]->map->params == std::vector<std::string>{"i", "j"});
}

TEST_CASE("l2_tiling: symbolic sizes choose the tile when the map runs",
          "[transforms][cpu-schedules][l2-tiling]") {
  auto sdfg = make_stencil("N", "M", "L");
  auto before = sdfg->clone_sdfg();
  auto maps = schedule(*sdfg, 2048);
  REQUIRE(maps.size() == 3);
  CHECK(maps[0]->map->params == std::vector<std::string>{"tile_j", "i"});
  const sym::Expr step = maps[0]->map->range[0].step;
  // The hand-computed tile sizes of the first test case, and one tile where the window fits
  // (M = 6, L = 2: 4 points x 80 bytes = 320 <= 1,024), and M = 12, L = 8: 320 bytes a column, at
  // most floor(1024 / 320) = 3 points a tile, ceil(10 / 3) = 4 tiles of ceil(10 / 4) = 3.
  CHECK(step.evaluate({{"M", 22}, {"L", 4}}) == 5);
  CHECK(step.evaluate({{"M", 6}, {"L", 2}}) == 4);
  CHECK(step.evaluate({{"M", 12}, {"L", 8}}) == 3);
  for (const Symbols& syms : std::vector<Symbols>{
           {{"N", 8}, {"M", 22}, {"L", 4}}, {{"N", 7}, {"M", 6}, {"L", 2}}, {{"N", 6}, {"M", 12}, {"L", 8}}})
    for (unsigned seed : {1u, 42u}) CHECK(run_program(*before, syms, seed) == run_program(*sdfg, syms, seed));
}

TEST_CASE("l2_tiling: off by default, and a negative l2_bytes is refused",
          "[transforms][cpu-schedules][l2-tiling]") {
  auto sdfg = make_stencil("8", "22", "4");
  AnalysisCache cache;
  CpuSchedules pass;
  pass.options().set("l2_bytes", 2048LL);
  pass.run(*sdfg, cache);
  CHECK(maps_of(only_state(*sdfg))[0]->map->params.size() == 2);
  CHECK(maps_of(only_state(*sdfg))[0]->map->params[0] == "i");
  CpuSchedules bad;
  bad.options().set("l2_bytes", -1LL);
  CHECK_THROWS_WITH(bad.run(*sdfg, cache), Catch::Matchers::Contains("option 'l2_bytes' is -1"));
}
