// greedy-map-fusion where recomputation is refused: the transient a producer map writes is read
// at the same points by a consumer map that passes it into a nested SDFG (OTFMapFusion copies
// producers only into tasklets) and by a second consumer map. npbench's mandelbrot1 has this
// shape in its time loop (`I = np.less(np.absolute(Z), horizon)`, read by `N[I] = k` and by
// `Z[I] = Z[I] ** 2 + C[I]`); the pass left two parallel maps there, a fork/join more per step
// than DaCe's SDFG (issue 37). Step 4 of the pass fuses them by MapFusion: one map.
#include "support/builders.h"
#include "support/cpu_run.h"
#include "weir/transforms/pipeline.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;

namespace {

/// prod: tmp[i] = a * 2 + 1 over 0:N; nest: C[i] = inner(tmp[i]) with inner y = x * 3 + 1 in a
/// nested SDFG; cons: D[i] = tmp[i] - 4. With `second` false, only the nested consumer.
std::unique_ptr<SDFG> nested_consumer(bool second) {
  auto sdfg = std::make_unique<SDFG>("nested_consumer");
  sdfg->add_symbol("N");
  sdfg->add_array("A", ScalarType::Float64, {E("N")});
  sdfg->add_array("C", ScalarType::Float64, {E("N")});
  sdfg->add_array("tmp", ScalarType::Float64, {E("N")}, true);
  SDFGState& st = sdfg->add_state("main", true);
  auto& a = st.add_access("A");
  auto& tmp = st.add_access("tmp");
  auto& prod = st.add_map("prod", {"i"}, S("0:N"));
  auto& tp = st.add_tasklet("produce", {"t = a * 2 + 1", Language::Python}, {"a"}, {"t"});
  path_in(st, a.id(), {prod.id()}, tp.id(), "a", {M("A", "0:N"), M("A", "i")});
  path_out(st, tp.id(), "t", {prod.exit}, tmp.id(), {M("tmp", "i"), M("tmp", "0:N")});

  auto inner = std::make_unique<SDFG>("inner");
  inner->add_scalar("x", ScalarType::Float64);
  inner->add_scalar("y", ScalarType::Float64);
  auto& ist = inner->add_state("s", true);
  auto& it = ist.add_tasklet("k", {"q = p * 3 + 1", Language::Python}, {"p"}, {"q"});
  ist.add_edge(ist.add_access("x").id(), "", it.id(), "p", M("x", "0"));
  ist.add_edge(it.id(), "q", ist.add_access("y").id(), "", M("y", "0"));
  auto& c = st.add_access("C");
  auto& nest = st.add_map("nest", {"j"}, S("0:N"));
  auto& ns = st.add_nested_sdfg("inner", std::move(inner), {"x"}, {"y"});
  path_in(st, tmp.id(), {nest.id()}, ns.id(), "x", {M("tmp", "0:N"), M("tmp", "j")});
  path_out(st, ns.id(), "y", {nest.exit}, c.id(), {M("C", "j"), M("C", "0:N")});

  if (second) {
    sdfg->add_array("D", ScalarType::Float64, {E("N")});
    auto& d = st.add_access("D");
    auto& cons = st.add_map("cons", {"k"}, S("0:N"));
    auto& tc = st.add_tasklet("consume", {"o = t - 4", Language::Python}, {"t"}, {"o"});
    path_in(st, tmp.id(), {cons.id()}, tc.id(), "t", {M("tmp", "0:N"), M("tmp", "k")});
    path_out(st, tc.id(), "o", {cons.exit}, d.id(), {M("D", "k"), M("D", "0:N")});
  }
  return sdfg;
}

/// Top-level maps of the SDFG's only state.
std::size_t top_level_maps(SDFG& sdfg) {
  SDFGState& st = only_state(sdfg);
  ScopeTree tree = st.scope_tree();
  std::size_t n = 0;
  for (MapEntry* me : maps_of(st)) n += tree.parent[me->id()] == kNoNode;
  return n;
}

/// C and D worked out by hand from A (run_on_cpu's seeded integers): C = (2a + 1) * 3 + 1,
/// D = 2a + 1 - 4.
void check_values(SDFG& sdfg, bool second) {
  for (unsigned seed : {2u, 11u}) {
    CpuOutputs out = run_on_cpu(sdfg, {{"N", 13}}, seed);
    const auto& a = out.at("A");
    REQUIRE(a.size() == 13);
    for (std::size_t i = 0; i < a.size(); ++i) {
      CHECK(out.at("C")[i] == (2 * a[i] + 1) * 3 + 1);
      if (second) CHECK(out.at("D")[i] == 2 * a[i] + 1 - 4);
    }
  }
}

}  // namespace

TEST_CASE("greedy fusion: a producer read into a nested SDFG and by a second map fuses into one map",
          "[transforms][greedy-fusion][nested-consumer]") {
  auto sdfg = nested_consumer(true);
  require_valid(*sdfg);
  REQUIRE(top_level_maps(*sdfg) == 3);
  std::size_t fused = parse_pipeline("greedy-map-fusion")->run(*sdfg);
  require_valid(*sdfg);
  // Horizontal fusion of the two consumers, then the producer by MapFusion (before: 2 maps).
  CHECK(fused == 2);
  CHECK(top_level_maps(*sdfg) == 1);
  // tmp was read only by the fused consumers: it is a scalar of the fused map now.
  CHECK(sdfg->arrays.count("tmp") == 0);
  check_values(*sdfg, true);
}

TEST_CASE("greedy fusion: a producer read only into a nested SDFG fuses by MapFusion",
          "[transforms][greedy-fusion][nested-consumer]") {
  auto sdfg = nested_consumer(false);
  std::size_t fused = parse_pipeline("greedy-map-fusion")->run(*sdfg);
  require_valid(*sdfg);
  CHECK(fused == 1);
  CHECK(top_level_maps(*sdfg) == 1);
  check_values(*sdfg, false);
}

TEST_CASE("greedy fusion: auto-optimize for cpu leaves one parallel map for the nested consumers",
          "[transforms][greedy-fusion][nested-consumer]") {
  auto sdfg = nested_consumer(true);
  parse_pipeline("auto-optimize-cpu")->run(*sdfg);
  require_valid(*sdfg);
  CHECK(top_level_maps(*sdfg) == 1);
  check_values(*sdfg, true);
}
