// Tests of MapFission: structure after the split, refusal reasons, validity and semantics
// (reference interpreter, outputs equal on random inputs) after every application.
#include <catch2/catch.hpp>

#include <map>

#include "support/builders.h"
#include "support/cpu_run.h"
#include "support/map_bodies.h"
#include "weir/transforms/map_expansion.h"
#include "weir/transforms/map_fission.h"
#include "weir/transforms/registry.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;
using Catch::Matchers::Contains;

namespace {

const std::vector<Symbols> kSizes{{{"N", 5}, {"M", 4}}, {{"N", 1}, {"M", 3}}, {{"N", 9}, {"M", 2}}};

}  // namespace

TEST_CASE("MapFission: independent tasklets become two maps", "[transforms][map-fission]") {
  auto sdfg = two_parts(false);
  MapFission t;
  apply_and_check(*sdfg, t, kSizes);
  auto maps = maps_of(only_state(*sdfg));
  REQUIRE(maps.size() == 2);
  for (MapEntry* m : maps) {
    CHECK(m->map->params == std::vector<std::string>{"i", "j"});
    CHECK(m->map->range == S("0:N, 0:M"));
  }
  CHECK_FALSE(sdfg->data("A").transient);
}

TEST_CASE("MapFission: a linking scalar transient gets the map's range as dimensions",
          "[transforms][map-fission]") {
  auto sdfg = two_parts(true, "1:N, 0:M-1");
  MapFission t;
  apply_and_check(*sdfg, t, kSizes);
  auto& st = only_state(*sdfg);
  REQUIRE(maps_of(st).size() == 3);  // the writer, then one map per reading tasklet
  const DataDescriptor& d = sdfg->data("t");
  REQUIRE(d.shape.size() == 2);
  CHECK(d.shape[0] == E("N - 1"));
  CHECK(d.shape[1] == E("M - 1"));
  auto tree = st.scope_tree();
  int outside = 0;
  for (AccessNode* an : st.access_nodes("t")) {
    if (tree.parent[an->id()] == kNoNode) {
      ++outside;
      continue;
    }
    for (EdgeId e : st.in_edges(an->id()))
      if (st.node(st.edge(e).src).kind() == NodeKind::Tasklet)
        CHECK(st.edge(e).memlet.subset == S("i - 1, j"));
  }
  CHECK(outside == 1);
  // Fission again finds nothing left to split.
  AnalysisCache cache;
  for (const auto& c : find_matches(*sdfg, t, cache)) {
    REQUIRE_FALSE(c.result);
    CHECK_THAT(c.result.reason(), Contains("is one connected piece: nothing to split"));
  }
}

TEST_CASE("MapFission: a 1-D chain through two transients splits into three maps from a script",
          "[transforms][map-fission]") {
  Builder g({"i"}, "0:N");
  g.sdfg->add_scalar("u", ScalarType::Float64, true);
  g.sdfg->add_array("v", ScalarType::Float64, {E("2")}, true);
  auto& t1 = g.tasklet("first", "o = a + 1", {"a"}, {"o"});
  auto& un = g.st->add_access("u");
  auto& t2 = g.tasklet("second", "v0 = x * 3\nv1 = x - 1", {"x"}, {"v0", "v1"});
  auto& vn = g.st->add_access("v");
  auto& t3 = g.tasklet("third", "b = v0 * v1", {"v0", "v1"}, {"b"});
  g.read(t1.id(), "a", "A", "i, 0");
  g.st->add_edge(t1.id(), "o", un.id(), "", M("u", "0"));
  g.st->add_edge(un.id(), "", t2.id(), "x", M("u", "0"));
  g.st->add_edge(t2.id(), "v0", vn.id(), "", M("v", "0"));
  g.st->add_edge(t2.id(), "v1", vn.id(), "", M("v", "1"));
  g.st->add_edge(vn.id(), "", t3.id(), "v0", M("v", "0"));
  g.st->add_edge(vn.id(), "", t3.id(), "v1", M("v", "1"));
  g.write(t3.id(), "b", "B", "i, 0");
  auto sdfg = std::move(g.sdfg);
  auto t = make_transformation("MapFission");
  apply_and_check(*sdfg, *t, kSizes);
  CHECK(maps_of(only_state(*sdfg)).size() == 3);
  CHECK(sdfg->data("v").shape == std::vector<sym::Expr>{E("N"), E("2")});
  CHECK(sdfg->data("u").shape == std::vector<sym::Expr>{E("N")});
}

TEST_CASE("MapFission: refuses with reasons", "[transforms][map-fission]") {
  MapFission t;
  SECTION("one piece") {
    auto sdfg = make_map2d(false);
    CHECK(refusal(*sdfg, t) == "the body of map 'map' is one connected piece: nothing to split");
  }
  SECTION("one part writes what another reads") {
    Builder g({"i"}, "0:N");
    auto& t1 = g.tasklet("producer", "b = a", {"a"}, {"b"});
    auto& t2 = g.tasklet("consumer", "c = b", {"b"}, {"c"});
    g.read(t1.id(), "a", "A", "i, 0");
    g.write(t1.id(), "b", "B", "i, 0");
    // Reads B from outside the map: a different iteration's element in general.
    path_in(*g.st, g.st->add_access("B").id(), {g.map->id()}, t2.id(), "b",
            {M("B", "0:N, 0:M"), M("B", "i, 1")});
    g.write(t2.id(), "c", "C", "i, 0");
    CHECK(refusal(*g.sdfg, t) ==
          "the part of 'producer' writes 'B', which the part of 'consumer' also accesses: consecutive maps "
          "would run every iteration of one before the other");
  }
  SECTION("a transient read before it is written") {
    Builder g({"i"}, "0:N");
    g.sdfg->add_scalar("t", ScalarType::Float64, true);
    auto& t1 = g.tasklet("store", "o = a", {"a"}, {"o"});
    auto& tw = g.st->add_access("t");
    auto& tr = g.st->add_access("t");
    auto& t2 = g.tasklet("load", "c = x", {"x"}, {"c"});
    g.read(t1.id(), "a", "A", "i, 0");
    g.st->add_edge(t1.id(), "o", tw.id(), "", M("t", "0"));
    g.st->add_edge(g.map->id(), "", tr.id(), "", Memlet{});
    g.st->add_edge(tr.id(), "", t2.id(), "x", M("t", "0"));
    g.st->add_edge(tw.id(), "", g.map->exit, "", Memlet{});
    g.write(t2.id(), "c", "C", "i, 0");
    CHECK(refusal(*g.sdfg, t) ==
          "transient 't' is read before it is written in an iteration (the part of 'load'): its value is "
          "carried across iterations, a write-after-read that splitting the map would break");
  }
  SECTION("a linking transient and a strided range") {
    auto sdfg = two_parts(true, "0:N:2, 0:M");
    CHECK(refusal(*sdfg, t) ==
          "dimension 0 of map 'm' has step 2; a linking transient is expanded only by unit-step ranges");
  }
  SECTION("a nested SDFG as the whole body") {
    auto sdfg = make_map2d(false);
    auto& st = only_state(*sdfg);
    auto inner = std::make_unique<SDFG>("inner");
    inner->add_scalar("x", ScalarType::Float64);
    inner->add_scalar("y", ScalarType::Float64);
    // Tasklet connectors must not shadow the containers.
    auto& ist = inner->add_state("s", true);
    auto& it = ist.add_tasklet("k", {"q = p", Language::Python}, {"p"}, {"q"});
    ist.add_edge(ist.add_access("x").id(), "", it.id(), "p", M("x", "0"));
    ist.add_edge(it.id(), "q", ist.add_access("y").id(), "", M("y", "0"));
    Tasklet* old = nullptr;
    for (Node* n : st.nodes())
      if (auto* tk = n->as<Tasklet>()) old = tk;
    auto& ns = st.add_nested_sdfg("nest", std::move(inner), {"x"}, {"y"});
    for (EdgeId e : std::vector<EdgeId>(st.in_edges(old->id()))) {
      DataflowEdge d = st.edge(e);
      st.add_edge(d.src, d.src_conn, ns.id(), "x", d.memlet);
    }
    for (EdgeId e : std::vector<EdgeId>(st.out_edges(old->id()))) {
      DataflowEdge d = st.edge(e);
      st.add_edge(ns.id(), "y", d.dst, d.dst_conn, d.memlet);
    }
    st.remove_node(old->id());
    sdfg->relink_nested();
    require_valid(*sdfg);
    CHECK(refusal(*sdfg, t) ==
          "the body of map 'map' is one nested SDFG ('nest'); splitting its states is not supported");
  }
}

TEST_CASE("MapFission: the cpu backend computes the same after a split through a transient",
          "[transforms][map-fission][cpu]") {
  auto sdfg = two_parts(true, "1:N, 0:M-1");
  auto before = sdfg->clone_sdfg();
  MapFission t;
  apply_and_check(*sdfg, t, kSizes);
  std::map<std::string, long long> sizes{{"N", 7}, {"M", 5}};
  CHECK(run_on_cpu(*before, sizes, 3) == run_on_cpu(*sdfg, sizes, 3));
}

TEST_CASE("MapFission: splits a map nested in another one, the outer map unchanged",
          "[transforms][map-fission][cpu]") {
  auto sdfg = two_parts(true, "1:N, 0:M-1");
  MapExpansion expansion;
  apply_and_check(*sdfg, expansion, kSizes);
  auto before = sdfg->clone_sdfg();
  MapFission t;
  apply_and_check(*sdfg, t, kSizes);
  auto& st = only_state(*sdfg);
  auto tree = st.scope_tree();
  int top = 0, nested = 0;
  for (MapEntry* m : maps_of(st)) (tree.parent[m->id()] == kNoNode ? top : nested) += 1;
  CHECK(top == 1);
  CHECK(nested == 3);
  // The transient is expanded by the inner range only: one slot per j, inside each i.
  CHECK(sdfg->data("t").shape == std::vector<sym::Expr>{E("M - 1")});
  // The outer map runs in parallel: the transient must live inside it, one per iteration.
  std::map<std::string, long long> sizes{{"N", 40}, {"M", 33}};
  CHECK(run_on_cpu(*before, sizes, 5) == run_on_cpu(*sdfg, sizes, 5));
}
