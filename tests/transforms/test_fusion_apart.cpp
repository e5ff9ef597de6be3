// Fusion of maps that read and write one array at elements that never meet (a recursion's
// level j reads y[i, j - 2] and writes y[i, j], deriche's), its refusal where they may meet
// across iterations, and LoopMapInterchange of a loop whose state fusion left with scalars
// inside the map: structure, refusal reasons and semantics (reference interpreter).
#include <catch2/catch.hpp>

#include "support/builders.h"
#include "weir/transforms/auto_optimize.h"
#include "weir/transforms/loop_map_interchange.h"
#include "weir/transforms/map_fusion.h"
#include "weir/transforms/otf_map_fusion.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;
using Catch::Matchers::Contains;

namespace {

const std::vector<Symbols> kSizes{{{"N", 5}, {"M", 6}}, {{"N", 1}, {"M", 4}}, {{"N", 8}, {"M", 9}}};

/// One level of a recursion along dimension 1 of Y (N x M) at column `col`: map "scale" over i
/// writes T[i] = 2 * Y[`read`]; map "update" over k writes Y[k, col] = T[k] + X[k, col].
void add_level(SDFGState& st, const std::string& read, const std::string& col, const std::string& t_name) {
  auto& y_in = st.add_access("Y");
  auto& x = st.add_access("X");
  auto& t = st.add_access(t_name);
  auto& y_out = st.add_access("Y");
  auto& m1 = st.add_map("scale", {"i"}, S("0:N"));
  auto& m2 = st.add_map("update", {"k"}, S("0:N"));
  auto& t1 = st.add_tasklet("scale", {"b = a * 2", Language::Python}, {"a"}, {"b"});
  auto& t2 = st.add_tasklet("update", {"c = b + x", Language::Python}, {"b", "x"}, {"c"});
  path_in(st, y_in.id(), {m1.id()}, t1.id(), "a", {M("Y", "0:N, 0:M"), M("Y", read)});
  path_out(st, t1.id(), "b", {m1.exit}, t.id(), {M(t_name, "i"), M(t_name, "0:N")});
  path_in(st, t.id(), {m2.id()}, t2.id(), "b", {M(t_name, "0:N"), M(t_name, "k")});
  path_in(st, x.id(), {m2.id()}, t2.id(), "x", {M("X", "0:N, 0:M"), M("X", "k, " + col)});
  path_out(st, t2.id(), "c", {m2.exit}, y_out.id(), {M("Y", "k, " + col), M("Y", "0:N, " + col)});
}

/// Y and X (N + 1 x M), the transient T (N), sizes N and M.
std::unique_ptr<SDFG> make_arrays(const std::string& name) {
  auto sdfg = std::make_unique<SDFG>(name);
  sdfg->add_symbol("N");
  sdfg->add_symbol("M");
  sdfg->add_array("Y", ScalarType::Float64, {E("N + 1"), E("M")});
  sdfg->add_array("X", ScalarType::Float64, {E("N + 1"), E("M")});
  sdfg->add_array("T", ScalarType::Float64, {E("N")}, true);
  return sdfg;
}

std::unique_ptr<SDFG> make_level(const std::string& read, const std::string& col) {
  auto sdfg = make_arrays("level");
  add_level(sdfg->add_state("main", true), read, col, "T");
  return sdfg;
}

/// The recursion over j = 2 .. M - 1 of levels reading Y[i, j - 2] and writing Y[i, j].
std::unique_ptr<SDFG> make_recursion() {
  auto sdfg = make_arrays("recursion");
  auto& loop = sdfg->add_loop("levels", "j", "j = 2", "j < M", "j = j + 1");
  add_level(loop.add_state("level", true), "i, j - 2", "j", "T");
  return sdfg;
}

/// A map `label` over i in 0:N writing `out`[i] = `code`(`in`[i]) between the given access nodes.
void add_pointwise(SDFGState& st, const std::string& label, NodeId in, NodeId out, const std::string& code) {
  const std::string& a = st.node(in).as<AccessNode>()->data;
  const std::string& b = st.node(out).as<AccessNode>()->data;
  auto& m = st.add_map(label, {"i"}, S("0:N"));
  auto& t = st.add_tasklet(label, {code, Language::Python}, {"a"}, {"b"});
  path_in(st, in, {m.id()}, t.id(), "a", {M(a, "0:N"), M(a, "i")});
  path_out(st, t.id(), "b", {m.exit}, out, {M(b, "i"), M(b, "0:N")});
}

/// Y = X, then Y += 1 (two written access nodes of Y, in order), then T = 2 * Y and C = T + 1.
std::unique_ptr<SDFG> make_written_before() {
  auto sdfg = std::make_unique<SDFG>("written_before");
  sdfg->add_symbol("N");
  for (const char* a : {"X", "Y", "C"}) sdfg->add_array(a, ScalarType::Float64, {E("N")});
  sdfg->add_array("T", ScalarType::Float64, {E("N")}, true);
  SDFGState& st = sdfg->add_state("main", true);
  NodeId x = st.add_access("X").id(), y1 = st.add_access("Y").id(), y2 = st.add_access("Y").id();
  NodeId t = st.add_access("T").id(), c = st.add_access("C").id();
  add_pointwise(st, "init", x, y1, "b = a");
  add_pointwise(st, "bump", y1, y2, "b = a + 1");
  add_pointwise(st, "scale", y2, t, "b = a * 2");
  add_pointwise(st, "update", t, c, "b = a + 1");
  return sdfg;
}

}  // namespace

TEST_CASE("MapFusion: fuses maps that read and write one array at elements that never meet",
          "[transforms][map-fusion]") {
  auto sdfg = make_level("i, 0", "2");
  MapFusion t;
  apply_and_check(*sdfg, t, kSizes);
  CHECK(maps_of(only_state(*sdfg)).size() == 1);
}

TEST_CASE("MapFusion: refuses where the consumer writes what other iterations of the producer read",
          "[transforms][map-fusion]") {
  auto sdfg = make_level("i + 1, 2", "2");  // iteration k writes Y[k, 2], iteration k - 1 reads it
  MapFusion t;
  CHECK_THAT(refusal(*sdfg, t), Contains("map 'update' writes 'Y' at points map 'scale' accesses in other "
                                         "iterations (Y[i + 1, 2] and Y[i, 2])"));
}

TEST_CASE("OTFMapFusion: recomputes a producer whose reads the consumer never overwrites",
          "[transforms][otf-fusion]") {
  auto sdfg = make_level("i, 0", "2");
  OTFMapFusion t;
  apply_and_check(*sdfg, t, kSizes);
  CHECK(maps_of(only_state(*sdfg)).size() == 1);
  auto other = make_level("i + 1, 2", "2");
  CHECK_THAT(refusal(*other, t), Contains("recomputing inside 'update' would read overwritten values"));
}

TEST_CASE(
    "auto_optimize: a recursion whose levels held two maps runs inside one map over the other dimension",
    "[transforms][auto-optimize][loop-map-interchange]") {
  auto sdfg = make_recursion();
  auto before = sdfg->clone_sdfg();
  auto_optimize(*sdfg, DeviceType::CPU);
  require_valid(*sdfg);
  // The top level holds one state with one map around a nested SDFG (the loop), no loop.
  REQUIRE(sdfg->blocks().size() == 1);
  SDFGState* st = sdfg->all_states().front();
  REQUIRE(maps_of(*st).size() == 1);
  std::size_t nested = 0;
  for (Node* n : st->nodes())
    if (auto* ns = n->as<NestedSDFGNode>()) {
      ++nested;
      bool has_loop = false;
      for (const ControlFlowBlock* b : ns->sdfg->blocks()) has_loop = has_loop || b->as<LoopRegion>();
      CHECK(has_loop);
    }
  CHECK(nested == 1);
  for (const auto& syms : kSizes)
    for (unsigned seed : {1u, 7u}) {
      INFO("seed " << seed);
      REQUIRE(run_program(*before, syms, seed) == run_program(*sdfg, syms, seed));
    }
}

TEST_CASE(
    "OTFMapFusion: an input written earlier in the state, before the producer reads it, does not refuse",
    "[transforms][otf-fusion]") {
  auto sdfg = make_written_before();
  SDFGState& st = only_state(*sdfg);
  OTFMapFusion t;
  AnalysisCache cache;
  // scale into update: scale's input Y is also written by 'init', upstream of the node it reads.
  std::vector<Candidate> ok;
  for (auto& c : find_matches(*sdfg, t, cache))
    if (c.result) ok.push_back(c);
  std::size_t which = ok.size();
  for (std::size_t k = 0; k < ok.size(); ++k)
    for (auto n : ok[k].match.subgraph)
      if (const auto* e = st.node(n).as<MapEntry>(); e && e->map->label == "update") which = k;
  REQUIRE(which < ok.size());
  apply_and_check(*sdfg, t, {{{"N", 5}}, {{"N", 1}}}, which);
  CHECK(maps_of(st).size() == 3);
}
