// Tests of the library-expansion pass: Reduce library nodes become nested SDFGs of maps and
// tasklets (structure), which compute what NumPy computes (compiled and run on the cpu backend,
// values worked by hand). The compile path expands by itself: the programs here are compiled as
// built, once expanded by the pass and once not.
#include <unistd.h>

#include <catch2/catch.hpp>

#include "../runtime/runtime_test_util.h"
#include "support/builders.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/transforms/library_expansion.h"
#include "weir/transforms/registry.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;

namespace {

/// `out` (shape `out_shape`) = Reduce(`wcr`, `axes`, `identity`) of `in_subset` of A (shape
/// `a_shape`), with connectors `_in`/`_out` (or none, as DaCe writes them).
std::unique_ptr<SDFG> make_reduce(const std::vector<sym::Expr>& a_shape, const std::string& in_subset,
                                  const std::vector<sym::Expr>& out_shape, const std::string& out_subset,
                                  const std::string& wcr, std::optional<std::vector<int>> axes,
                                  const std::string& identity, bool connectors = true) {
  auto s = std::make_unique<SDFG>("reduce");
  for (const auto* sym : {"N", "M"}) s->add_symbol(sym);
  s->add_array("A", ScalarType::Float64, a_shape);
  s->add_array("B", ScalarType::Float64, out_shape);
  SDFGState& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto lib = std::make_unique<LibraryNode>("Reduce (Sum)", "Reduce");
  lib->classpath = "dace.libraries.standard.nodes.reduce.Reduce";
  lib->wcr = wcr;
  lib->axes = std::move(axes);
  lib->identity = identity;
  const std::string in = connectors ? "_in" : "", out = connectors ? "_out" : "";
  if (connectors) {
    lib->in_connectors["_in"] = std::nullopt;
    lib->out_connectors["_out"] = std::nullopt;
  }
  Node& r = st.add_node(std::move(lib));
  st.add_edge(a.id(), "", r.id(), in, Memlet::simple("A", S(in_subset)));
  st.add_edge(r.id(), out, b.id(), "", Memlet::simple("B", S(out_subset)));
  return s;
}

/// Runs `sdfg` on the cpu backend with A = `a` and B = `b` (shapes `a_shape`, `b_shape`) and
/// symbols N, M; returns B.
std::vector<double> run_reduce(const SDFG& sdfg, const std::vector<std::int64_t>& a_shape,
                               const std::vector<double>& a, const std::vector<std::int64_t>& b_shape,
                               const std::vector<double>& b, std::int64_t n, std::int64_t m) {
  // One cache per process: ctest runs the test cases of this file at the same time, and a
  // shared directory would be emptied under another case's compile.
  fresh_cache("library-expansion-" + std::to_string(::getpid()));
  runtime::Arguments args;
  args.arrays.emplace("A", runtime::Allocator::cpu().allocate(ScalarType::Float64, a_shape));
  args.arrays.emplace("B", runtime::Allocator::cpu().allocate(ScalarType::Float64, b_shape));
  std::copy(a.begin(), a.end(), static_cast<double*>(args.arrays.at("A").data()));
  auto* out = static_cast<double*>(args.arrays.at("B").data());
  std::copy(b.begin(), b.end(), out);
  args.values["N"] = n;
  args.values["M"] = m;
  runtime::CompilableProgram p;
  p.sdfg = sdfg.clone_sdfg();
  p.origin = sdfg.name;
  auto backend = runtime::make_cpu_backend();
  runtime::run(*backend, p, args);
  return std::vector<double>(out, out + b.size());
}

/// Expands with the pass (checking it changed `expected` nodes and leaves a valid SDFG).
std::unique_ptr<SDFG> expanded(const SDFG& sdfg, std::size_t expected = 1) {
  auto copy = sdfg.clone_sdfg();
  AnalysisCache cache;
  LibraryExpansion pass;
  CHECK(pass.run(*copy, cache) == expected);
  require_valid(*copy);
  return copy;
}

}  // namespace

TEST_CASE("library-expansion: a Reduce becomes a nested SDFG of an identity map and a WCR map",
          "[transforms][library-expansion]") {
  auto s = make_reduce({E("N"), E("M")}, "0:N, 0:M", {E("N")}, "0:N", "lambda a, b: a + b",
                       std::vector<int>{1}, "0");
  REQUIRE(has_expandable_library_nodes(*s));
  auto x = expanded(*s);
  CHECK_FALSE(has_expandable_library_nodes(*x));
  SDFGState& st = only_state(*x);
  NestedSDFGNode* nest = nullptr;
  for (Node* n : st.nodes()) {
    CHECK(n->kind() != NodeKind::Library);
    if (auto* ns = n->as<NestedSDFGNode>()) nest = ns;
  }
  REQUIRE(nest);
  CHECK(nest->label == "Reduce_Sum");
  CHECK(nest->in_connectors.count("_in"));
  CHECK(nest->out_connectors.count("_out"));
  CHECK(nest->symbol_mapping.count("N"));
  CHECK(nest->symbol_mapping.count("M"));
  const SDFG& inner = *nest->sdfg;
  auto states = inner.all_states();
  REQUIRE(states.size() == 2);
  // The identity over B's N elements, then the sum over A's N x M with the node's WCR.
  auto init_maps = maps_of(*states[0]), red_maps = maps_of(*states[1]);
  REQUIRE(init_maps.size() == 1);
  REQUIRE(red_maps.size() == 1);
  CHECK(init_maps[0]->map->params == std::vector<std::string>{"__o0"});
  CHECK(red_maps[0]->map->params == std::vector<std::string>{"__r0", "__r1"});
  CHECK(red_maps[0]->map->schedule == ScheduleType::Sequential);
  bool wcr = false;
  for (const DataflowEdge* e : states[1]->edges()) wcr = wcr || e->memlet.wcr == "lambda a, b: a + b";
  CHECK(wcr);
  // Nothing left: a second run changes nothing.
  AnalysisCache cache;
  CHECK(make_pass("library-expansion")->run(*x, cache) == 0);
  // A = [[1, 2, 3], [4, 5, 6]]: row sums 6 and 15 replace B's 9s (the identity first).
  std::vector<double> a{1, 2, 3, 4, 5, 6};
  CHECK(run_reduce(*x, {2, 3}, a, {2}, {9, 9}, 2, 3) == std::vector<double>{6, 15});
  CHECK(run_reduce(*s, {2, 3}, a, {2}, {9, 9}, 2, 3) == std::vector<double>{6, 15});
}

TEST_CASE("library-expansion: a Reduce without identity accumulates into the output",
          "[transforms][library-expansion]") {
  // max over axis 0 of [[1, 5, 2], [4, 0, 3]] into B = [2, 7, 0]: [max(2, 1, 4), max(7, 5, 0),
  // max(0, 2, 3)] = [4, 7, 3]. No connectors on the edges (as DaCe writes them).
  auto s = make_reduce({E("N"), E("M")}, "0:N, 0:M", {E("M")}, "0:M", "lambda a, b: max(a, b)",
                       std::vector<int>{0}, "", false);
  auto x = expanded(*s);
  REQUIRE(only_state(*x).nodes().size() == 3);
  for (Node* n : only_state(*x).nodes())
    if (auto* ns = n->as<NestedSDFGNode>()) CHECK(ns->sdfg->all_states().size() == 1);
  std::vector<double> a{1, 5, 2, 4, 0, 3};
  CHECK(run_reduce(*x, {2, 3}, a, {3}, {2, 7, 0}, 2, 3) == std::vector<double>{4, 7, 3});
}

TEST_CASE("library-expansion: a Reduce of a strided sub-block over all axes",
          "[transforms][library-expansion]") {
  // A = 0..11 as 3 x 4; rows 1, 2 and columns 1, 3 (step 2): 5 + 7 + 9 + 11 = 32, then + 100
  // (the identity) into B[1] of B = [-1, -2, -3]; B[0], B[2] stay.
  auto s =
      make_reduce({E("N"), E("M")}, "1:3, 1:4:2", {E("3")}, "1", "lambda a, b: a + b", std::nullopt, "100");
  auto x = expanded(*s);
  std::vector<double> a(12);
  for (std::size_t k = 0; k < a.size(); ++k) a[k] = static_cast<double>(k);
  CHECK(run_reduce(*x, {3, 4}, a, {3}, {-1, -2, -3}, 3, 4) == std::vector<double>{-1, 132, -3});
}

TEST_CASE("library-expansion: a Reduce it cannot express is an error naming the node",
          "[transforms][library-expansion]") {
  auto s = make_reduce({E("N"), E("M")}, "0:N, 0:M", {E("N")}, "0:N", "lambda a, b: a + b",
                       std::vector<int>{2}, "0");
  AnalysisCache cache;
  CHECK_THROWS_WITH(LibraryExpansion().run(*s, cache), Catch::Contains("node 2 ('Reduce (Sum)')") &&
                                                           Catch::Contains("Reduce axis 2 out of range"));
  // The pass rolled the SDFG back: the node is still there.
  CHECK(has_expandable_library_nodes(*s));
  auto bad = make_reduce({E("N"), E("M")}, "0:N, 0:M", {E("N")}, "0:N", "lambda a, b: a + b",
                         std::vector<int>{1}, "\"pi\"");
  CHECK_THROWS_WITH(LibraryExpansion().run(*bad, cache),
                    Catch::Contains("invalid Reduce identity \"pi\" (not a number"));
}

namespace {

/// `C` = Einsum(`spec`) of A and B (on connectors `a`, `b`) with `attrs` (alpha, beta as DaCe
/// writes them).
std::unique_ptr<SDFG> make_einsum(const std::string& spec, const std::vector<sym::Expr>& a_shape,
                                  const std::vector<sym::Expr>& b_shape,
                                  const std::vector<sym::Expr>& c_shape,
                                  const std::map<std::string, std::string>& attrs = {}) {
  auto s = std::make_unique<SDFG>("einsum");
  for (const auto* sym : {"N", "M"}) s->add_symbol(sym);
  s->add_array("A", ScalarType::Float64, a_shape);
  s->add_array("B", ScalarType::Float64, b_shape);
  s->add_array("C", ScalarType::Float64, c_shape);
  SDFGState& st = s->add_state("main", true);
  auto lib = std::make_unique<LibraryNode>("einsum", "LibraryNode");
  lib->classpath = "dace.libraries.blas.nodes.einsum.Einsum";
  lib->extra.set("einsum_str", "\"" + spec + "\"");
  for (const auto& [k, v] : attrs) lib->extra.set(k, v);
  // Connectors in reverse order of their names: the operands are taken sorted (a, then b).
  for (const auto* c : {"b", "a"}) lib->in_connectors[c] = std::nullopt;
  lib->out_connectors["out"] = std::nullopt;
  Node& e = st.add_node(std::move(lib));
  auto full = [](const std::vector<sym::Expr>& shape) {
    std::vector<Range> r;
    for (const auto& d : shape) r.emplace_back(sym::Expr(0), d - sym::Expr(1));
    return Subset(r);
  };
  st.add_edge(st.add_access("B").id(), "", e.id(), "b", Memlet::simple("B", full(b_shape)));
  st.add_edge(st.add_access("A").id(), "", e.id(), "a", Memlet::simple("A", full(a_shape)));
  st.add_edge(e.id(), "out", st.add_access("C").id(), "", Memlet::simple("C", full(c_shape)));
  return s;
}

/// Runs an Einsum program with A, B, C (shapes given) and symbols N, M; returns C.
std::vector<double> run_einsum(const SDFG& sdfg, const std::vector<std::int64_t>& a_shape,
                               const std::vector<double>& a, const std::vector<std::int64_t>& b_shape,
                               const std::vector<double>& b, const std::vector<std::int64_t>& c_shape,
                               const std::vector<double>& c, std::int64_t n, std::int64_t m) {
  // One cache per process: ctest runs the test cases of this file at the same time, and a
  // shared directory would be emptied under another case's compile.
  fresh_cache("library-expansion-" + std::to_string(::getpid()));
  runtime::Arguments args;
  for (const auto& [name, shape, values] :
       {std::tuple{"A", a_shape, a}, {"B", b_shape, b}, {"C", c_shape, c}}) {
    args.arrays.emplace(name, runtime::Allocator::cpu().allocate(ScalarType::Float64, shape));
    std::copy(values.begin(), values.end(), static_cast<double*>(args.arrays.at(name).data()));
  }
  args.values["N"] = n;
  if (sdfg.free_symbols().count("M")) args.values["M"] = m;  // the shapes may not use it
  runtime::CompilableProgram p;
  p.sdfg = sdfg.clone_sdfg();
  p.origin = sdfg.name;
  auto backend = runtime::make_cpu_backend();
  runtime::run(*backend, p, args);
  const auto* out = static_cast<const double*>(args.arrays.at("C").data());
  return std::vector<double>(out, out + c.size());
}

}  // namespace

TEST_CASE("library-expansion: an Einsum contraction becomes an output map with an accumulator",
          "[transforms][library-expansion]") {
  // C = A @ B with A 2 x 3 = [[1, 2, 3], [4, 5, 6]], B 3 x 2 = [[1, 0], [0, 1], [2, 2]]:
  // [[1 + 6, 2 + 6], [4 + 12, 5 + 12]] = [[7, 8], [16, 17]].
  auto s = make_einsum("ik,kj->ij", {E("N"), E("M")}, {E("M"), E("N")}, {E("N"), E("N")});
  auto x = expanded(*s);
  NestedSDFGNode* nest = nullptr;
  for (Node* n : only_state(*x).nodes())
    if (auto* ns = n->as<NestedSDFGNode>()) nest = ns;
  REQUIRE(nest);
  CHECK(nest->in_connectors.count("a"));
  CHECK(nest->in_connectors.count("b"));
  CHECK(nest->out_connectors.count("out"));
  SDFGState& inner = only_state(*nest->sdfg);
  auto maps = maps_of(inner);
  REQUIRE(maps.size() == 2);
  std::vector<std::vector<std::string>> params{maps[0]->map->params, maps[1]->map->params};
  std::sort(params.begin(), params.end());
  CHECK(params == std::vector<std::vector<std::string>>{{"__ei", "__ej"}, {"__ek"}});
  REQUIRE(nest->sdfg->has_data("__acc"));
  CHECK(nest->sdfg->data("__acc").storage == StorageType::Register);
  CHECK(nest->sdfg->data("__acc").transient);
  std::vector<double> a{1, 2, 3, 4, 5, 6}, b{1, 0, 0, 1, 2, 2};
  const std::vector<double> want{7, 8, 16, 17};
  CHECK(run_einsum(*x, {2, 3}, a, {3, 2}, b, {2, 2}, {-1, -1, -1, -1}, 2, 3) == want);
  CHECK(run_einsum(*s, {2, 3}, a, {3, 2}, b, {2, 2}, {-1, -1, -1, -1}, 2, 3) == want);
}

TEST_CASE("library-expansion: Einsum with alpha and beta, a transpose and an implicit output",
          "[transforms][library-expansion]") {
  // C = 2 * (A * B^T elementwise, "ij,ji->ij") + 0.5 * C: A = [[1, 2], [3, 4]], B = [[5, 6],
  // [7, 8]], C = [[2, 4], [6, 8]]: 2 * [[5, 14], [18, 32]] + [[1, 2], [3, 4]] = [[11, 30], [39, 68]].
  auto s = make_einsum("ij,ji->ij", {E("N"), E("N")}, {E("N"), E("N")}, {E("N"), E("N")},
                       {{"alpha", "\"2.0\""}, {"beta", "0.5"}});
  auto x = expanded(*s);
  for (Node* n : only_state(*x).nodes())
    if (auto* ns = n->as<NestedSDFGNode>()) {
      // No contracted index: one map and one tasklet, no accumulator.
      CHECK(maps_of(only_state(*ns->sdfg)).size() == 1);
      CHECK_FALSE(ns->sdfg->has_data("__acc"));
    }
  CHECK(run_einsum(*x, {2, 2}, {1, 2, 3, 4}, {2, 2}, {5, 6, 7, 8}, {2, 2}, {2, 4, 6, 8}, 2, 1) ==
        std::vector<double>{11, 30, 39, 68});
  // "ii,i" (implicit output: none, a scalar): the diagonal of A times x, summed: 1 * 5 + 4 * 6 = 29
  // into C[0] (shape 1).
  auto t = make_einsum("ii,i", {E("N"), E("N")}, {E("N")}, {E("1")});
  auto tx = expanded(*t);
  CHECK(run_einsum(*tx, {2, 2}, {1, 2, 3, 4}, {2}, {5, 6}, {1}, {-7}, 2, 1) == std::vector<double>{29});
}

TEST_CASE("library-expansion: an Einsum it cannot express is an error naming the node",
          "[transforms][library-expansion]") {
  auto s = make_einsum("ik,kj,jl->il", {E("N"), E("M")}, {E("M"), E("N")}, {E("N"), E("N")});
  AnalysisCache cache;
  CHECK_THROWS_WITH(LibraryExpansion().run(*s, cache),
                    Catch::Contains("node 0 ('einsum')") &&
                        Catch::Contains("Einsum 'ik,kj,jl->il' names 3 operands but has 2 input edges"));
  auto e = make_einsum("i...,i->i", {E("N"), E("M")}, {E("N")}, {E("N")});
  CHECK_THROWS_WITH(LibraryExpansion().run(*e, cache), Catch::Contains("an ellipsis (...) is not supported"));
}
