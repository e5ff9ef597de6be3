// LoopToMap over loops that update a row slice per iteration, as DaCe's frontend writes
// `C[i, :i+1] *= beta; C[i, :i+1] += tmp` (npbench syrk): a map of one point in a dimension
// (`p0 = i:i`), a transient sized by the loop variable (`tmp` of i + 1 elements), and the maps of
// the body, now in a nested SDFG, fused by greedy-map-fusion there. Values against a hand
// formula and the untransformed program on the cpu backend; validation after every step.
#include <catch2/catch.hpp>

#include "support/builders.h"
#include "support/cpu_run.h"
#include "weir/transforms/greedy_map_fusion.h"
#include "weir/transforms/loop_to_map.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;
using Catch::Matchers::Contains;

namespace {

/// for i in [0, N):
///   C[i, 0:i+1] = A[0:i+1] * 2            (map p0 = i:i, p1 = 0:i, DaCe's one-point dimension)
///   tmp[0:i+1] = A[0:i+1] + 1             (tmp: a transient of i + 1 elements)
///   C[i, 0:i+1] = C[i, 0:i+1] + tmp[0:i+1]
/// so C[i, j] = 3 A[j] + 1 for j <= i, and C keeps its input above the diagonal.
std::unique_ptr<SDFG> make_row_slices() {
  auto sdfg = std::make_unique<SDFG>("row_slices");
  sdfg->add_symbol("N");
  sdfg->add_symbol("i");  // declared, as DaCe declares loop variables
  sdfg->add_array("A", ScalarType::Float64, {E("N")});
  sdfg->add_array("C", ScalarType::Float64, {E("N"), E("N")});
  sdfg->add_array("tmp", ScalarType::Float64, {E("i + 1")}, true);
  auto& L = sdfg->add_loop("for_i", "i", "i = 0", "i < N", "i = i + 1");

  SDFGState& s1 = L.add_state("scale", true);
  {
    auto& a = s1.add_access("A");
    auto& c = s1.add_access("C");
    auto& m = s1.add_map("scale_map", {"p0", "p1"}, S("i:i+1, 0:i+1"));
    auto& t = s1.add_tasklet("scale", {"o = a * 2", Language::Python}, {"a"}, {"o"});
    path_in(s1, a.id(), {m.id()}, t.id(), "a", {M("A", "0:i+1"), M("A", "p1")});
    path_out(s1, t.id(), "o", {m.exit}, c.id(), {M("C", "p0, p1"), M("C", "i, 0:i+1")});
  }
  SDFGState& s2 = L.add_state("accumulate");
  L.add_edge(s1.id(), s2.id());
  {
    auto& a = s2.add_access("A");
    auto& tmp = s2.add_access("tmp");
    auto& cin = s2.add_access("C");
    auto& cout = s2.add_access("C");
    auto& m1 = s2.add_map("plus_one", {"q"}, S("0:i+1"));
    auto& t1 = s2.add_tasklet("plus_one", {"o = a + 1", Language::Python}, {"a"}, {"o"});
    path_in(s2, a.id(), {m1.id()}, t1.id(), "a", {M("A", "0:i+1"), M("A", "q")});
    path_out(s2, t1.id(), "o", {m1.exit}, tmp.id(), {M("tmp", "q"), M("tmp", "0:i+1")});
    auto& m2 = s2.add_map("add", {"r"}, S("0:i+1"));
    auto& t2 = s2.add_tasklet("add", {"o = c + t", Language::Python}, {"c", "t"}, {"o"});
    path_in(s2, cin.id(), {m2.id()}, t2.id(), "c", {M("C", "i, 0:i+1"), M("C", "i, r")});
    path_in(s2, tmp.id(), {m2.id()}, t2.id(), "t", {M("tmp", "0:i+1"), M("tmp", "r")});
    path_out(s2, t2.id(), "o", {m2.exit}, cout.id(), {M("C", "i, r"), M("C", "i, 0:i+1")});
  }
  return sdfg;
}

const std::map<std::string, long long> kN{{"N", 9}};

LoopToMap& loop_to_map() {
  static LoopToMap t;
  return t;
}

}  // namespace

TEST_CASE(
    "LoopToMap: a row-slice loop with a one-point map dimension and a transient sized by the loop variable",
    "[transforms][loop-to-map]") {
  auto sdfg = make_row_slices();
  require_valid(*sdfg);
  auto before = run_on_cpu(*sdfg, kN, 5);
  const auto& A = before["A"];
  const auto& C = before["C"];
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j <= i; ++j) REQUIRE(C[i * 9 + j] == 3 * A[j] + 1);

  // Before: "C is written at the same element(s) [p0, p1] in every iteration" (p0 = i:i was a
  // free parameter), and earlier "loop variable i is used after loop" (tmp's size).
  AnalysisCache cache;
  auto cs = find_matches(*sdfg, loop_to_map(), cache);
  REQUIRE(cs.size() == 1);
  INFO(cs[0].result.reason());
  REQUIRE(cs[0].result.ok());
  apply_transactional(*sdfg, loop_to_map(), cs[0].match, cache);
  require_valid(*sdfg);
  CHECK(!sdfg->has_data("tmp"));  // moved into the nested SDFG, where i is a symbol
  CHECK(run_on_cpu(*sdfg, kN, 5) == before);

  // The body's two maps over 0:i+1 are fused inside the nested SDFG.
  NestedSDFGNode* ns = nullptr;
  for (Node* n : only_state(*sdfg).nodes())
    if (auto* x = n->as<NestedSDFGNode>()) ns = x;
  REQUIRE(ns);
  auto maps_in_nested = [&] {
    std::size_t k = 0;
    for (SDFGState* st : ns->sdfg->all_states()) k += maps_of(*st).size();
    return k;
  };
  CHECK(maps_in_nested() == 3);
  GreedyMapFusion pass;
  AnalysisCache cache2;
  CHECK(pass.run(*sdfg, cache2) == 1);
  require_valid(*sdfg);
  CHECK(maps_in_nested() == 2);
  CHECK(run_on_cpu(*sdfg, kN, 5) == before);
}

TEST_CASE("LoopToMap: a transient sized by the loop variable and read after the loop is refused by name",
          "[transforms][loop-to-map]") {
  auto sdfg = make_row_slices();
  // B[0] = tmp[0] after the loop: tmp's last value is read, so it cannot move into the body.
  sdfg->add_array("B", ScalarType::Float64, {E("1")});
  auto& after = sdfg->add_state("after");
  sdfg->add_edge(sdfg->blocks()[0]->id(), after.id());
  auto& t = after.add_tasklet("last", {"o = x", Language::Python}, {"x"}, {"o"});
  after.add_edge(after.add_access("tmp").id(), "", t.id(), "x", M("tmp", "0"));
  after.add_edge(t.id(), "o", after.add_access("B").id(), "", M("B", "0"));
  CHECK_THAT(refusal(*sdfg, loop_to_map()),
             Contains("loop variable i sizes container 'tmp', which is used outside loop 'for_i'"));
}
