// Bounds checks of generated programs (CodegenOptions::bounds_checks): a top-level scope whose
// memlets reach outside a container makes weir_run fail with a message naming the state, the
// scope, the container, the dimension, the range and the shape, before anything is written; the
// same program with large enough arrays, or with a map of no iteration, runs. The option can be
// switched off.
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/validate.h"

using namespace weir;
using namespace weir::codegen;
using E = sym::Expr;

namespace {

std::string diagnostics(const SDFG& s) {
  std::string out;
  for (const Diagnostic& d : validate(s)) out += d.str() + "\n";
  return out;
}

/// B[write] = A[read] + 1 for i in `range`; A has `a_shape` elements, B has N. The outer memlets
/// get the propagated subsets `outer_read` / `outer_write` (as DaCe's propagation writes them);
/// empty: they stay the inner ones, as add_memlet_path leaves them before propagation (the
/// validator rejects that, loaders of older SDFGs accept it; codegen bounds them over the map).
std::unique_ptr<SDFG> shift_sdfg(const E& a_shape, const std::string& read, const std::string& outer_read,
                                 const std::string& write = "i", const std::string& outer_write = "0:N",
                                 const std::string& range = "0:N") {
  auto s = std::make_unique<SDFG>("shift");
  s->add_symbol("N");
  s->add_array("A", ScalarType::Float64, {a_shape});
  s->add_array("B", ScalarType::Float64, {E::symbol("N")});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& m = st.add_map("m", {"i"}, Subset::parse(range));
  auto& t = st.add_tasklet("t", {"o = x + 1", Language::Python}, {"x"}, {"o"});
  auto in = st.add_memlet_path({a.id(), m.id(), t.id()}, Memlet::simple("A", Subset::parse(read)), "", "x");
  auto out = st.add_memlet_path({t.id(), m.exit, b.id()}, Memlet::simple("B", Subset::parse(write)), "o", "");
  if (outer_read.empty()) return s;
  st.edge(in[0]).memlet.subset = Subset::parse(outer_read);
  st.edge(out[1]).memlet.subset = Subset::parse(outer_write);
  CHECK(diagnostics(*s) == "");
  return s;
}

struct Outcome {
  int rc = 0;
  std::string error;
};

/// Compiles `s` and runs it once with `args`; weir_run's return code and weir_last_error().
Outcome run_once(const SDFG& s, const std::string& name, const std::vector<void*>& args,
                 const CodegenOptions& o = {}) {
  GeneratedCode g = generate_cpu(s, o);
  INFO(g.source);
  auto so = test::compile_shared(g.source, test::scratch_dir("bounds_" + name));
  test::LoadedProgram p(so);
  void* h = p.init(args.data());
  REQUIRE(h != nullptr);
  Outcome out;
  out.rc = p.run(h, args.data());
  if (out.rc != 0) out.error = p.last_error();
  REQUIRE(p.finalize(h) == 0);
  return out;
}

}  // namespace

TEST_CASE("bounds checks: a map reading A[i+1] for i in 0..N-1 needs N+1 elements of A",
          "[codegen][run][bounds]") {
  std::vector<double> A = {1, 2, 3, 4}, B(3, -1.0);
  std::int64_t n = 3;
  SECTION("A of shape N: weir_run fails before writing anything") {
    auto s = shift_sdfg(E::symbol("N"), "i + 1", "1:N + 1");
    Outcome r = run_once(*s, "short", {A.data(), B.data(), &n});
    CHECK(r.rc != 0);
    CHECK(r.error ==
          "weir_run: state 'main', map 'm': reads A[1 .. 3] in dimension 0 of A with shape 3 (shifted reads "
          "need a "
          "larger input or a smaller output domain)");
    CHECK(B == std::vector<double>{-1, -1, -1});
  }
  SECTION("A of shape N + 1: runs") {
    auto s = shift_sdfg(E::symbol("N") + 1, "i + 1", "1:N + 1");
    Outcome r = run_once(*s, "fits", {A.data(), B.data(), &n});
    CHECK(r.rc == 0);
    CHECK(r.error == "");
    CHECK(B == std::vector<double>{3, 4, 5});
  }
  SECTION("an unpropagated outer memlet is bounded over the map's range") {
    auto s = shift_sdfg(E::symbol("N"), "i + 1", "");
    Outcome r = run_once(*s, "propagated", {A.data(), B.data(), &n});
    CHECK(r.rc != 0);
    CHECK_THAT(r.error, Catch::Contains("reads A[1 .. 3] in dimension 0 of A with shape 3"));
  }
  SECTION("reads below zero") {
    auto s = shift_sdfg(E::symbol("N"), "i - 1", "-1:N - 1");
    Outcome r = run_once(*s, "below", {A.data(), B.data(), &n});
    CHECK(r.rc != 0);
    CHECK_THAT(r.error, Catch::Contains("reads A[-1 .. 1] in dimension 0 of A with shape 3"));
  }
}

TEST_CASE("bounds checks: writes outside the output fail", "[codegen][run][bounds]") {
  auto s = shift_sdfg(E::symbol("N"), "i", "0:N", "i + 1", "1:N + 1");
  std::vector<double> A = {1, 2, 3}, B(3, -1.0);
  std::int64_t n = 3;
  Outcome r = run_once(*s, "write", {A.data(), B.data(), &n});
  CHECK(r.rc != 0);
  CHECK_THAT(r.error,
             Catch::StartsWith(
                 "weir_run: state 'main', map 'm': writes B[1 .. 3] in dimension 0 of B with shape 3 ("));
  CHECK(B == std::vector<double>{-1, -1, -1});
}

TEST_CASE("bounds checks: with DaCe debuginfo the error names the source line, the field and its domain",
          "[codegen][run][bounds]") {
  std::vector<double> A = {1, 2, 3, 4}, B(3, -1.0);
  std::int64_t n = 3;
  auto s = shift_sdfg(E::symbol("N"), "i + 1", "1:N + 1");
  SDFGState& st = *s->all_states()[0];
  const std::string info =
      R"({"type": "DebugInfo", "start_line": 7, "start_column": 12, "filename": "d.py"})";
  SECTION("the memlet's debuginfo locates the access") {
    for (const DataflowEdge* e : st.edges())
      if (e->memlet.data == "A") st.edge(e->id).memlet.extra.set("debuginfo", info);
    Outcome r = run_once(*s, "debuginfo_memlet", {A.data(), B.data(), &n});
    CHECK(r.rc != 0);
    // A's extent is N, not a field-view size symbol: the dimension goes by its number.
    CHECK(
        r.error ==
        "weir_run: d.py:7:12: 'A' is read over dimension 0: [1, 4), outside its domain dimension 0: [0, 3)\n"
        "  in the SDFG: state 'main', map 'm': reads A[1 .. 3] in dimension 0 of A with shape 3 (shifted "
        "reads need a larger input or a smaller output domain)");
  }
  SECTION("else the map's node does") {
    for (Node* x : st.nodes())
      if (x->kind() == NodeKind::MapEntry) x->extra.set("debuginfo", info);
    Outcome r = run_once(*s, "debuginfo_node", {A.data(), B.data(), &n});
    CHECK(r.rc != 0);
    CHECK_THAT(r.error, Catch::StartsWith("weir_run: d.py:7:12: 'A' is read over dimension 0: [1, 4), "));
  }
  CHECK(B == std::vector<double>{-1, -1, -1});
}

TEST_CASE("bounds checks: maps without iterations and strided maps are not flagged",
          "[codegen][run][bounds]") {
  SECTION("zero iterations") {
    // i in 0..N-1 with N = 0 reads A[i + 5] nowhere.
    auto s = shift_sdfg(E::symbol("N"), "i + 5", "5:N + 5");
    std::vector<double> A = {7}, B = {-1};
    std::int64_t n = 0;
    Outcome r = run_once(*s, "empty", {A.data(), B.data(), &n});
    CHECK(r.rc == 0);
    CHECK(B == std::vector<double>{-1});
  }
  SECTION("a step of 2 stops before the inclusive end") {
    // i in 0, 2 (range 0:N:2 with N = 4): reads A[1], A[3] of 4 elements; N = 5 reads A[5].
    auto s = shift_sdfg(E::symbol("N"), "i + 1", "1:N + 1:2", "i", "0:N:2", "0:N:2");
    std::vector<double> A = {1, 2, 3, 4, 5}, B(5, -1.0);
    std::int64_t n = 4;
    Outcome r = run_once(*s, "strided", {A.data(), B.data(), &n});
    CHECK(r.rc == 0);
    CHECK(B == std::vector<double>{3, -1, 5, -1, -1});
    n = 5;
    r = run_once(*s, "strided5", {A.data(), B.data(), &n});
    CHECK(r.rc != 0);
    CHECK_THAT(r.error, Catch::Contains("reads A[1 .. 5] in dimension 0 of A with shape 5"));
  }
}

TEST_CASE("bounds checks: copies, nested SDFGs and the option", "[codegen][run][bounds]") {
  SECTION("a copy A[0:N, 1] -> D[0:N] with A of shape (N, M), M = 1") {
    auto s = std::make_unique<SDFG>("copy");
    s->add_symbol("N");
    s->add_symbol("M");
    s->add_array("A", ScalarType::Float64, {E::symbol("N"), E::symbol("M")});
    s->add_array("D", ScalarType::Float64, {E::symbol("N")});
    auto& st = s->add_state("main", true);
    auto& a = st.add_access("A");
    auto& d = st.add_access("D");
    Memlet m = Memlet::simple("A", Subset::parse("0:N, 1"));
    m.other_subset = Subset::parse("0:N");
    st.add_edge(a.id(), "", d.id(), "", m);
    CHECK(diagnostics(*s) == "");
    std::vector<double> A = {1, 2, 3, 4}, D(2, -1.0);
    std::int64_t n = 2, msize = 1;
    REQUIRE(generate_cpu(*s).args.size() == 4);
    CHECK(generate_cpu(*s).args[2].name == "M");
    Outcome r = run_once(*s, "copy", {A.data(), D.data(), &msize, &n});
    CHECK(r.rc != 0);
    CHECK_THAT(r.error, Catch::Contains(
                            "state 'main', copy from 'A': reads A[1 .. 1] in dimension 1 of A with shape 1"));
    CHECK(D == std::vector<double>{-1, -1});
  }
  SECTION("a nested SDFG is checked at its outer memlets") {
    auto inner = std::make_unique<SDFG>("inner");
    inner->add_symbol("M");
    inner->add_array("X", ScalarType::Float64, {E::symbol("M")});
    inner->add_array("Y", ScalarType::Float64, {E::symbol("M")});
    {
      auto& st = inner->add_state("work", true);
      auto& x = st.add_access("X");
      auto& y = st.add_access("Y");
      auto& m = st.add_map("im", {"k"}, Subset::parse("0:M"));
      auto& t = st.add_tasklet("dbl", {"o = x * 2", Language::Python}, {"x"}, {"o"});
      auto in =
          st.add_memlet_path({x.id(), m.id(), t.id()}, Memlet::simple("X", Subset::parse("k")), "", "x");
      auto out =
          st.add_memlet_path({t.id(), m.exit, y.id()}, Memlet::simple("Y", Subset::parse("k")), "o", "");
      st.edge(in[0]).memlet.subset = Subset::parse("0:M");
      st.edge(out[1]).memlet.subset = Subset::parse("0:M");
    }
    auto s = std::make_unique<SDFG>("outer");
    s->add_symbol("N");
    s->add_array("A", ScalarType::Float64, {E::symbol("N")});
    s->add_array("B", ScalarType::Float64, {E::symbol("N")});
    auto& st = s->add_state("main", true);
    auto& a = st.add_access("A");
    auto& b = st.add_access("B");
    // B[1:N+1] = 2 * A[0:N]: one element past B.
    auto& ns = st.add_nested_sdfg("call", std::move(inner), {"X"}, {"Y"}, {{"M", E::symbol("N")}});
    st.add_edge(a.id(), "", ns.id(), "X", Memlet::simple("A", Subset::parse("0:N")));
    st.add_edge(ns.id(), "Y", b.id(), "", Memlet::simple("B", Subset::parse("1:N+1")));
    s->relink_nested();
    CHECK(diagnostics(*s) == "");
    std::vector<double> A = {1, 2, 3}, B(3, -1.0);
    std::int64_t n = 3;
    Outcome r = run_once(*s, "nested", {A.data(), B.data(), &n});
    CHECK(r.rc != 0);
    CHECK_THAT(r.error,
               Catch::Contains(
                   "state 'main', nested SDFG 'call': writes B[1 .. 3] in dimension 0 of B with shape 3"));
    CHECK(B == std::vector<double>{-1, -1, -1});
  }
  SECTION("bounds_checks = false emits no checks") {
    auto s = shift_sdfg(E::symbol("N") + 1, "i + 1", "1:N + 1");
    CodegenOptions off;
    off.bounds_checks = false;
    std::string with = generate_cpu(*s).source, without = generate_cpu(*s, off).source;
    std::string body_with = with.substr(with.find("// --- SDFG")),
                body_without = without.substr(without.find("// --- SDFG"));
    CHECK(body_with.find("weir_check_bounds(") != std::string::npos);
    CHECK(body_without.find("weir_check_bounds(") == std::string::npos);
    std::vector<double> A = {1, 2, 3, 4}, B(3, -1.0);
    std::int64_t n = 3;
    Outcome r = run_once(*s, "off", {A.data(), B.data(), &n}, off);
    CHECK(r.rc == 0);
    CHECK(B == std::vector<double>{3, 4, 5});
  }
}

namespace {

/// Adds to `s` the loop `label`: for `v` in range(`n`): [if v + 1 < `n_in`:] out[v] = in[v + 1] *
/// `factor` (tasklet `tasklet` in state `state`; `in`, `out` containers of `s`).
void add_shifted_loop(SDFG& s, const std::string& label, const std::string& v, const std::string& n,
                      const std::string& n_in, bool guarded, const std::string& state,
                      const std::string& tasklet, const std::string& factor, const std::string& in,
                      const std::string& out) {
  auto& loop = s.add_loop(label, v, v + " = 0", v + " < " + n, v + " = " + v + " + 1");
  ControlFlowRegion* body = &loop;
  if (guarded)
    body =
        &loop.add_conditional("branch").add_branch(CodeBlock{v + " + 1 < " + n_in, Language::Python}, "yes");
  auto& st = body->add_state(state, true);
  auto& a = st.add_access(in);
  auto& b = st.add_access(out);
  auto& t = st.add_tasklet(tasklet, {"o = x * " + factor, Language::Python}, {"x"}, {"o"});
  st.add_edge(a.id(), "", t.id(), "x", Memlet::simple(in, Subset::parse(v + " + 1")));
  st.add_edge(t.id(), "o", b.id(), "", Memlet::simple(out, Subset::parse(v)));
}

/// for i in range(N): [if i + 1 < N:] B[i] = A[i + 1] * 10, with A and B of shape N: the tasklet
/// outside any map uses the loop variable, so its check runs in each iteration.
std::unique_ptr<SDFG> loop_sdfg(bool guarded) {
  auto s = std::make_unique<SDFG>("loop");
  s->add_symbol("N");
  s->add_array("A", ScalarType::Float64, {E::symbol("N")});
  s->add_array("B", ScalarType::Float64, {E::symbol("N")});
  add_shifted_loop(*s, "loop", "i", "N", "N", guarded, "scale", "t", "10", "A", "B");
  CHECK(diagnostics(*s) == "");
  return s;
}

}  // namespace

TEST_CASE("bounds checks: symbols defined by the control flow are checked where they are defined",
          "[codegen][run][bounds]") {
  std::vector<double> A = {1, 2, 3}, B(3, -1.0);
  std::int64_t n = 3;
  SECTION("the last iteration reads A[3]") {
    auto s = loop_sdfg(false);
    Outcome r = run_once(*s, "loop", {A.data(), B.data(), &n});
    CHECK(r.rc != 0);
    CHECK(r.error ==
          "weir_run: state 'loop/scale', tasklet 't': reads A[3 .. 3] in dimension 0 of A with shape 3 "
          "(shifted reads "
          "need a larger input or a smaller output domain)");
    // The iterations before it ran.
    CHECK(B == std::vector<double>{20, 30, -1});
  }
  SECTION("a condition that keeps the read inside A") {
    auto s = loop_sdfg(true);
    Outcome r = run_once(*s, "loop_guarded", {A.data(), B.data(), &n});
    CHECK(r.rc == 0);
    CHECK(B == std::vector<double>{20, 30, -1});
  }
}

TEST_CASE("bounds checks: indirect reads are not checked, their index table is", "[codegen][run][bounds]") {
  // B[i] = A[idx[i]] for i in 0..N-1: A (M elements) is read through a dynamic memlet, idx (N
  // elements) directly.
  auto s = std::make_unique<SDFG>("gather");
  s->add_symbol("N");
  s->add_symbol("M");
  s->add_symbol("L");
  s->add_array("A", ScalarType::Float64, {E::symbol("M")});
  s->add_array("idx", ScalarType::Int64, {E::symbol("L")});
  s->add_array("B", ScalarType::Float64, {E::symbol("N")});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& ix = st.add_access("idx");
  auto& b = st.add_access("B");
  auto& m = st.add_map("m", {"i"}, Subset::parse("0:N"));
  auto& t = st.add_tasklet("t", {"o = a[k]", Language::Python}, {"a", "k"}, {"o"});
  Memlet dyn = Memlet::simple("A", Subset::parse("0:M"));
  dyn.dynamic = true;
  st.add_memlet_path({a.id(), m.id(), t.id()}, dyn, "", "a");
  auto in = st.add_memlet_path({ix.id(), m.id(), t.id()}, Memlet::simple("idx", Subset::parse("i")), "", "k");
  auto out = st.add_memlet_path({t.id(), m.exit, b.id()}, Memlet::simple("B", Subset::parse("i")), "o", "");
  st.edge(in[0]).memlet.subset = Subset::parse("0:N");
  st.edge(out[1]).memlet.subset = Subset::parse("0:N");
  CHECK(diagnostics(*s) == "");
  GeneratedCode g = generate_cpu(*s);
  std::string body = g.source.substr(g.source.find("// --- SDFG"));
  CHECK(body.find("\"A\", 0") == std::string::npos);  // no check of A
  std::vector<double> A = {10, 20, 30}, B(3, -1.0);
  std::vector<std::int64_t> idx = {2, 0, 1};
  std::int64_t l = 3, mm = 3, n = 3;
  REQUIRE(g.args.size() == 6);
  CHECK(g.args[3].name == "L");
  Outcome r = run_once(*s, "gather", {A.data(), B.data(), idx.data(), &l, &mm, &n});
  CHECK(r.rc == 0);
  CHECK(B == std::vector<double>{30, 10, 20});
  l = 2;  // idx has 2 elements, the map reads 3
  r = run_once(*s, "gather_short", {A.data(), B.data(), idx.data(), &l, &mm, &n});
  CHECK(r.rc != 0);
  CHECK_THAT(r.error, Catch::Contains("map 'm': reads idx[0 .. 2] in dimension 0 of idx with shape 2"));
}

TEST_CASE("bounds checks: a map running past its outer memlets is caught from its inner memlets",
          "[codegen][run][bounds][security]") {
  // B[i] = A[i] + 1 for i in 0..M-1, but the outer memlets claim A[0:N] and B[0:N]: the
  // validator cannot tell M from N, the outer memlets fit, the body would write B[N..M-1].
  auto s = std::make_unique<SDFG>("past");
  s->add_symbol("M");
  s->add_symbol("N");
  s->add_array("A", ScalarType::Float64, {E::symbol("N")});
  s->add_array("B", ScalarType::Float64, {E::symbol("N")});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& m = st.add_map("m", {"i"}, Subset::parse("0:M"));
  auto& t = st.add_tasklet("t", {"o = x + 1", Language::Python}, {"x"}, {"o"});
  auto in = st.add_memlet_path({a.id(), m.id(), t.id()}, Memlet::simple("A", Subset::parse("i")), "", "x");
  auto out = st.add_memlet_path({t.id(), m.exit, b.id()}, Memlet::simple("B", Subset::parse("i")), "o", "");
  st.edge(in[0]).memlet.subset = Subset::parse("0:N");
  st.edge(out[1]).memlet.subset = Subset::parse("0:N");
  CHECK(diagnostics(*s) == "");
  std::vector<double> A = {1, 2, 3}, B(3, -1.0);
  std::int64_t mm = 3, n = 3;
  Outcome ok = run_once(*s, "past_ok", {A.data(), B.data(), &mm, &n});
  CHECK(ok.rc == 0);
  CHECK(B == std::vector<double>{2, 3, 4});
  B.assign(3, -1.0);
  mm = 5;
  Outcome r = run_once(*s, "past", {A.data(), B.data(), &mm, &n});
  CHECK(r.rc != 0);
  CHECK(r.error ==
        "weir_run: state 'main', map 'm': reads A[0 .. 4] in dimension 0 of A with shape 3 (the input is "
        "smaller "
        "than the domain it is read over; pass a larger input or a smaller domain)");
  CHECK(B == std::vector<double>{-1, -1, -1});
}

TEST_CASE("bounds checks: data that only flows through an inner map without iterations is not checked",
          "[codegen][run][bounds]") {
  // B[i, k] = A[i, k + 1] + 1 for i in 0..1, k in S..K-1: map expansion's split of a 2D map
  // (issue 10: the part K > 5 of concat_where(K == 5, ...) over K = 6 has no iteration). The
  // outer memlets are hulls as DaCe's propagation writes them for reads of k and k + 1 (and a
  // write of k and k + 1): [S, K], which for S = K (no iteration) is [K, K], outside A and B.
  // The outer map runs; only the inner map's range says that nothing is accessed.
  auto s = std::make_unique<SDFG>("expanded");
  s->add_symbol("K");
  s->add_symbol("S");
  s->add_array("A", ScalarType::Float64, {E(2), E::symbol("K")});
  s->add_array("B", ScalarType::Float64, {E(2), E::symbol("K")});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& outer = st.add_map("outer", {"i"}, Subset::parse("0:2"));
  auto& inner = st.add_map("inner", {"k"}, Subset::parse("S:K"));
  auto& t = st.add_tasklet("t", {"o = x + 1", Language::Python}, {"x"}, {"o"});
  auto in = st.add_memlet_path({a.id(), outer.id(), inner.id(), t.id()},
                               Memlet::simple("A", Subset::parse("i, k + 1")), "", "x");
  auto out = st.add_memlet_path({t.id(), inner.exit, outer.exit, b.id()},
                                Memlet::simple("B", Subset::parse("i, k")), "o", "");
  st.edge(in[0]).memlet.subset = Subset::parse("0:2, S:K + 1");
  st.edge(in[1]).memlet.subset = Subset::parse("i, S:K + 1");
  st.edge(out[1]).memlet.subset = Subset::parse("i, S:K + 1");
  st.edge(out[2]).memlet.subset = Subset::parse("0:2, S:K + 1");
  CHECK(diagnostics(*s) == "");
  REQUIRE(generate_cpu(*s).args.size() == 4);
  CHECK(generate_cpu(*s).args[2].name == "K");
  std::vector<double> A = {1, 2, 3, 10, 20, 30}, B(6, -1.0);
  std::int64_t k = 3, start = 3;
  SECTION("S = K: the inner map has no iteration, nothing is accessed, no error") {
    Outcome r = run_once(*s, "expanded_empty", {A.data(), B.data(), &k, &start});
    CHECK(r.rc == 0);
    CHECK(r.error == "");
    CHECK(B == std::vector<double>{-1, -1, -1, -1, -1, -1});
  }
  SECTION("S = K - 1: the inner map runs once and writes B[i, K], which is caught") {
    // (It reads A[i, K] too; writes are checked first: the domain's fault, not the input's.)
    start = 2;
    Outcome r = run_once(*s, "expanded_past", {A.data(), B.data(), &k, &start});
    CHECK(r.rc != 0);
    CHECK_THAT(r.error,
               Catch::StartsWith("weir_run: state 'main', map 'outer': writes B[2 .. 3] in dimension 1 "
                                 "of B with shape 3"));
    CHECK(B == std::vector<double>{-1, -1, -1, -1, -1, -1});
  }
}

namespace {

/// Y[k] = X[k] * 2 for k in 0..K-1 in a nested SDFG whose X and Y have M elements: the outer
/// memlets say M elements, the inner map's K comes from another outer symbol (the validator
/// cannot compare them), so only checks inside the nested SDFG see K > M.
std::unique_ptr<SDFG> doubling_sdfg() {
  auto inner = std::make_unique<SDFG>("inner");
  inner->add_symbol("M");
  inner->add_symbol("K");
  inner->add_array("X", ScalarType::Float64, {E::symbol("M")});
  inner->add_array("Y", ScalarType::Float64, {E::symbol("M")});
  auto& st = inner->add_state("work", true);
  auto& x = st.add_access("X");
  auto& y = st.add_access("Y");
  auto& m = st.add_map("im", {"k"}, Subset::parse("0:K"));
  auto& t = st.add_tasklet("dbl", {"o = x * 2", Language::Python}, {"x"}, {"o"});
  auto in = st.add_memlet_path({x.id(), m.id(), t.id()}, Memlet::simple("X", Subset::parse("k")), "", "x");
  auto out = st.add_memlet_path({t.id(), m.exit, y.id()}, Memlet::simple("Y", Subset::parse("k")), "o", "");
  st.edge(in[0]).memlet.subset = Subset::parse("0:M");
  st.edge(out[1]).memlet.subset = Subset::parse("0:M");
  return inner;
}

}  // namespace

TEST_CASE("bounds checks: accesses inside a nested SDFG are checked against its containers",
          "[codegen][run][bounds][security]") {
  SECTION("a nested SDFG at the top of the state") {
    auto s = std::make_unique<SDFG>("outer");
    s->add_symbol("N");
    s->add_symbol("L");
    s->add_array("A", ScalarType::Float64, {E::symbol("N")});
    s->add_array("B", ScalarType::Float64, {E::symbol("N")});
    auto& st = s->add_state("main", true);
    auto& a = st.add_access("A");
    auto& b = st.add_access("B");
    auto& ns = st.add_nested_sdfg("call", doubling_sdfg(), {"X"}, {"Y"},
                                  {{"M", E::symbol("N")}, {"K", E::symbol("L")}});
    st.add_edge(a.id(), "", ns.id(), "X", Memlet::simple("A", Subset::parse("0:N")));
    st.add_edge(ns.id(), "Y", b.id(), "", Memlet::simple("B", Subset::parse("0:N")));
    s->relink_nested();
    CHECK(diagnostics(*s) == "");
    std::vector<double> A = {1, 2, 3}, B(3, -1.0);
    std::int64_t n = 3, l = 3;
    // arguments: arrays, then symbols by name (L, N)
    Outcome ok = run_once(*s, "nested_in_ok", {A.data(), B.data(), &l, &n});
    CHECK(ok.rc == 0);
    CHECK(B == std::vector<double>{2, 4, 6});
    B.assign(3, -1.0);
    l = 5;
    Outcome r = run_once(*s, "nested_in", {A.data(), B.data(), &l, &n});
    CHECK(r.rc != 0);
    CHECK(
        r.error ==
        "weir_run: state 'main': nested SDFG 'inner', state 'work', map 'im': reads X[0 .. 4] in dimension 0 "
        "of X with shape 3 (the input is smaller than the domain it is read over; pass a larger input or a "
        "smaller domain)");
    CHECK(B == std::vector<double>{-1, -1, -1});
  }
  SECTION("a nested SDFG in each iteration of a parallel map") {
    // Row j of A (R x N) through the nested SDFG into row j of B; K = L elements per row.
    auto s = std::make_unique<SDFG>("rows");
    s->add_symbol("R");
    s->add_symbol("N");
    s->add_symbol("L");
    s->add_array("A", ScalarType::Float64, {E::symbol("R"), E::symbol("N")});
    s->add_array("B", ScalarType::Float64, {E::symbol("R"), E::symbol("N")});
    auto& st = s->add_state("main", true);
    auto& a = st.add_access("A");
    auto& b = st.add_access("B");
    auto& m = st.add_map("rows", {"j"}, Subset::parse("0:R"));
    auto& ns = st.add_nested_sdfg("call", doubling_sdfg(), {"X"}, {"Y"},
                                  {{"M", E::symbol("N")}, {"K", E::symbol("L")}});
    auto in =
        st.add_memlet_path({a.id(), m.id(), ns.id()}, Memlet::simple("A", Subset::parse("j, 0:N")), "", "X");
    auto out =
        st.add_memlet_path({ns.id(), m.exit, b.id()}, Memlet::simple("B", Subset::parse("j, 0:N")), "Y", "");
    st.edge(in[0]).memlet.subset = Subset::parse("0:R, 0:N");
    st.edge(out[1]).memlet.subset = Subset::parse("0:R, 0:N");
    s->relink_nested();
    CHECK(diagnostics(*s) == "");
    std::vector<double> A = {1, 2, 3, 4, 5, 6}, B(6, -1.0);
    std::int64_t r_ = 2, n = 3, l = 3;
    Outcome ok = run_once(*s, "nested_map_ok", {A.data(), B.data(), &l, &n, &r_});
    CHECK(ok.rc == 0);
    CHECK(B == std::vector<double>{2, 4, 6, 8, 10, 12});
    B.assign(6, -1.0);
    l = 4;
    Outcome r = run_once(*s, "nested_map", {A.data(), B.data(), &l, &n, &r_});
    CHECK(r.rc != 0);
    CHECK(
        r.error ==
        "weir_run: state 'main': nested SDFG 'inner', state 'work', map 'im': reads X[0 .. 3] in dimension 0 "
        "of X with shape 3 (the input is smaller than the domain it is read over; pass a larger input or a "
        "smaller domain)");
    // The nested SDFG returns before its map in every row: nothing is written.
    CHECK(B == std::vector<double>(6, -1.0));
  }
}

namespace {

/// Gives every memlet of `data` in the first state the DaCe debuginfo `info` (a source line).
void locate_reads(SDFG& s, const std::string& data, const std::string& info) {
  SDFGState& st = *s.all_states()[0];
  for (const DataflowEdge* e : st.edges())
    if (e->memlet.data == data) st.edge(e->id).memlet.extra.set("debuginfo", info);
}

/// B[i, j] = A[i + 1, j + dj] for (i, j) in (0:N, 0:M), A of shape (N, a_cols): the outer memlet
/// of the read is the propagated [1:N + 1, dj:M + dj].
std::unique_ptr<SDFG> shift2_sdfg(const E& a_cols, int dj) {
  auto s = std::make_unique<SDFG>("shift2");
  s->add_symbol("N");
  s->add_symbol("M");
  s->add_array("A", ScalarType::Float64, {E::symbol("N"), a_cols});
  s->add_array("B", ScalarType::Float64, {E::symbol("N"), E::symbol("M")});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& m = st.add_map("m", {"i", "j"}, Subset::parse("0:N, 0:M"));
  auto& t = st.add_tasklet("t", {"o = x + 1", Language::Python}, {"x"}, {"o"});
  const std::string j = dj == 0 ? "j" : dj > 0 ? "j + " + std::to_string(dj) : "j - " + std::to_string(-dj);
  auto in = st.add_memlet_path({a.id(), m.id(), t.id()}, Memlet::simple("A", Subset::parse("i + 1, " + j)),
                               "", "x");
  auto out =
      st.add_memlet_path({t.id(), m.exit, b.id()}, Memlet::simple("B", Subset::parse("i, j")), "o", "");
  const std::string cols = dj == 0 ? "0:M" : std::to_string(dj) + ":M + " + std::to_string(dj);
  st.edge(in[0]).memlet.subset = Subset::parse("1:N + 1, " + (dj < 0 ? "-1:M - 1" : cols));
  st.edge(out[1]).memlet.subset = Subset::parse("0:N, 0:M");
  CHECK(diagnostics(*s) == "");
  return s;
}

}  // namespace

TEST_CASE("bounds checks: the error names every dimension outside, not only the first",
          "[codegen][run][bounds]") {
  // N = 3, M = 2: rows 1 .. 3 of A (shape 3) and columns -1 .. 0 (shape 2) are read.
  std::vector<double> A(6, 1.0), B(6, -1.0);
  std::int64_t n = 3, m = 2;
  auto s = shift2_sdfg(E::symbol("M"), -1);
  REQUIRE(generate_cpu(*s).args.size() == 4);
  REQUIRE(generate_cpu(*s).args[2].name == "M");
  SECTION("both dimensions, one hint") {
    Outcome r = run_once(*s, "two_dims", {A.data(), B.data(), &m, &n});
    CHECK(r.rc != 0);
    CHECK(
        r.error ==
        "weir_run: state 'main', map 'm': reads A[1 .. 3] in dimension 0 of A with shape 3 and A[-1 .. 0] in "
        "dimension 1 of A with shape 2 (shifted reads need a larger input or a smaller output domain)");
  }
  SECTION("with the source line: the field's ranges and domain in both dimensions") {
    locate_reads(*s, "A",
                 R"({"type": "DebugInfo", "start_line": 7, "start_column": 12, "filename": "d.py"})");
    Outcome r = run_once(*s, "two_dims_source", {A.data(), B.data(), &m, &n});
    CHECK(r.rc != 0);
    CHECK(
        r.error ==
        "weir_run: d.py:7:12: 'A' is read over dimension 0: [1, 4) and dimension 1: [-1, 1), outside its "
        "domain dimension 0: [0, 3) and dimension 1: [0, 2)\n"
        "  in the SDFG: state 'main', map 'm': reads A[1 .. 3] in dimension 0 of A with shape 3 and "
        "A[-1 .. 0] in dimension 1 of A with shape 2 (shifted reads need a larger input or a smaller output "
        "domain)");
  }
  SECTION("a shifted dimension and one too short: each hint once") {
    // A of shape (N, M - 1) read at [i + 1, j]: rows 1 .. 3 of 3 (shifted), columns 0 .. 1 of 1.
    auto t = shift2_sdfg(E::symbol("M") - 1, 0);
    Outcome r = run_once(*t, "two_hints", {A.data(), B.data(), &m, &n});
    CHECK(r.rc != 0);
    CHECK(
        r.error ==
        "weir_run: state 'main', map 'm': reads A[1 .. 3] in dimension 0 of A with shape 3 and A[0 .. 1] in "
        "dimension 1 of A with shape 1 (shifted reads need a larger input or a smaller output domain; the "
        "input is smaller than the domain it is read over; pass a larger input or a smaller domain)");
  }
  SECTION("one dimension outside: the message names it alone, as before") {
    // A of shape (N, M) read at [i + 1, j]: rows 1 .. 3 of 3 do not fit, columns 0 .. 1 of 2 do.
    auto t = shift2_sdfg(E::symbol("M"), 0);
    Outcome r = run_once(*t, "one_fits", {A.data(), B.data(), &m, &n});
    CHECK(r.rc != 0);
    CHECK(r.error ==
          "weir_run: state 'main', map 'm': reads A[1 .. 3] in dimension 0 of A with shape 3 (shifted reads "
          "need a larger input or a smaller output domain)");
  }
  CHECK(B == std::vector<double>(6, -1.0));
}

namespace {

/// B[i] = A[P[i], Q[i]] for i in 0:1, A of shape (3, 2): the tasklet subscripts a connector over
/// all of A with indices read from P and Q (checked where they are used).
std::unique_ptr<SDFG> gather_sdfg() {
  auto s = std::make_unique<SDFG>("gather");
  s->add_array("A", ScalarType::Float64, {E(3), E(2)});
  s->add_array("B", ScalarType::Float64, {E(1)});
  s->add_array("P", ScalarType::Int64, {E(1)});
  s->add_array("Q", ScalarType::Int64, {E(1)});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& p = st.add_access("P");
  auto& q = st.add_access("Q");
  auto& b = st.add_access("B");
  auto& m = st.add_map("m", {"i"}, Subset::parse("0:1"));
  auto& t = st.add_tasklet("t", {"o = x[p, q]", Language::Python}, {"x", "p", "q"}, {"o"});
  st.add_memlet_path({a.id(), m.id(), t.id()}, Memlet::simple("A", Subset::parse("0:3, 0:2")), "", "x");
  // The outer memlets get the propagated subsets.
  auto pe = st.add_memlet_path({p.id(), m.id(), t.id()}, Memlet::simple("P", Subset::parse("i")), "", "p");
  auto qe = st.add_memlet_path({q.id(), m.id(), t.id()}, Memlet::simple("Q", Subset::parse("i")), "", "q");
  auto be = st.add_memlet_path({t.id(), m.exit, b.id()}, Memlet::simple("B", Subset::parse("i")), "o", "");
  for (EdgeId e : {pe[0], qe[0], be[1]}) st.edge(e).memlet.subset = Subset::parse("0:1");
  CHECK(diagnostics(*s) == "");
  return s;
}

}  // namespace

TEST_CASE("bounds checks: a computed subscript outside in two dimensions names both",
          "[codegen][run][bounds]") {
  std::vector<double> A = {1, 2, 3, 4, 5, 6}, B = {-1};
  std::vector<std::int64_t> P = {5}, Q = {-2};
  auto s = gather_sdfg();
  REQUIRE(generate_cpu(*s).args.size() == 4);
  REQUIRE(generate_cpu(*s).args[3].name == "Q");
  SECTION("the SDFG's names") {
    Outcome r = run_once(*s, "gather", {A.data(), B.data(), P.data(), Q.data()});
    CHECK(r.rc != 0);
    CHECK(
        r.error ==
        "weir_run: state 'main', map 'm', tasklet 't': connector 'x' of 'A': index 5 in dimension 0 is "
        "outside [0, 3) and index -2 in dimension 1 is outside [0, 2) at (i=0); the index in dimension 0 is "
        "P[i]; the index in dimension 1 is Q[i]");
  }
  SECTION("with the read's source line: the field first, the SDFG's names after") {
    locate_reads(*s, "A", R"({"type": "DebugInfo", "start_line": 4, "start_column": 8, "filename": "g.py"})");
    Outcome r = run_once(*s, "gather_source", {A.data(), B.data(), P.data(), Q.data()});
    CHECK(r.rc != 0);
    CHECK(
        r.error ==
        "weir_run: g.py:4:8: a read of 'A': index 5 in dimension 0 is outside [0, 3) and index -2 in "
        "dimension 1 is outside [0, 2) at (i=0); the index in dimension 0 is P[i]; the index in dimension 1 "
        "is Q[i]\n"
        "  in the SDFG: state 'main', map 'm', tasklet 't', connector 'x'");
  }
  SECTION("one index outside: named alone") {
    Q[0] = 1;
    Outcome r = run_once(*s, "gather_one", {A.data(), B.data(), P.data(), Q.data()});
    CHECK(r.rc != 0);
    CHECK(r.error ==
          "weir_run: state 'main', map 'm', tasklet 't': connector 'x' of 'A': index 5 in dimension 0 is "
          "outside [0, 3) at (i=0); the index is P[i]");
  }
  SECTION("inside: runs") {
    P[0] = 2;
    Q[0] = 1;
    Outcome r = run_once(*s, "gather_ok", {A.data(), B.data(), P.data(), Q.data()});
    CHECK(r.rc == 0);
    CHECK(B == std::vector<double>{6});
  }
}

TEST_CASE(
    "bounds checks: a state that runs again with the same symbols skips its checks, never a failing one",
    "[codegen][run][bounds]") {
  // B[i] = A[i] + 1 for i in 0..K-1, A and B of shape N: valid while K <= N.
  auto s = std::make_unique<SDFG>("cached");
  s->add_symbol("N");
  s->add_symbol("K");
  s->add_array("A", ScalarType::Float64, {E::symbol("N")});
  s->add_array("B", ScalarType::Float64, {E::symbol("N")});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& m = st.add_map("m", {"i"}, Subset::parse("0:K"));
  // Three reads of A[i] (x - y + z is x): enough checks (8 dimensions) to be worth a cache;
  // fewer run inline (a thread-local lookup costs more than a few compares).
  auto& t = st.add_tasklet("t", {"o = x - y + z + 1", Language::Python}, {"x", "y", "z"}, {"o"});
  for (const char* c : {"x", "y", "z"}) {
    auto in = st.add_memlet_path({a.id(), m.id(), t.id()}, Memlet::simple("A", Subset::parse("i")), "", c);
    st.edge(in[0]).memlet.subset = Subset::parse("0:K");
  }
  auto out = st.add_memlet_path({t.id(), m.exit, b.id()}, Memlet::simple("B", Subset::parse("i")), "o", "");
  st.edge(out[1]).memlet.subset = Subset::parse("0:K");
  REQUIRE(diagnostics(*s) == "");
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  // The checks read only K and N: cached per thread by their values.
  CHECK(g.source.find("static thread_local std::decay_t<decltype(K)> weir_checked_K{};") !=
        std::string::npos);
  CHECK(g.source.find("if (!(weir_checked && weir_checked_K == K && weir_checked_N == N)) {") !=
        std::string::npos);
  auto so = test::compile_shared(g.source, test::scratch_dir("bounds_cached"));
  test::LoadedProgram p(so);
  std::vector<double> A = {1, 2, 3}, B(3, -1.0);
  std::int64_t k = 3, n = 3;
  std::vector<void*> args = {A.data(), B.data(), &k, &n};
  void* h = p.init(args.data());
  REQUIRE(h != nullptr);
  // A and B are both too small for K = 5: the write is checked first.
  const std::string failure =
      "weir_run: state 'main', map 'm': writes B[0 .. 4] in dimension 0 of B with shape 3 (the domain "
      "written is larger than the output; pass a larger output or a smaller domain)";
  // K = 3, 5, 3, 5, 2: the failing values fail each time, the passing ones run.
  CHECK(p.run(h, args.data()) == 0);
  CHECK(B == std::vector<double>{2, 3, 4});
  k = 5;
  CHECK(p.run(h, args.data()) != 0);
  CHECK(p.last_error() == failure);
  k = 3;
  B = {-1, -1, -1};
  CHECK(p.run(h, args.data()) == 0);
  CHECK(B == std::vector<double>{2, 3, 4});
  k = 5;
  CHECK(p.run(h, args.data()) != 0);
  CHECK(p.last_error() == failure);
  k = 2;
  B = {-1, -1, -1};
  CHECK(p.run(h, args.data()) == 0);
  CHECK(B == std::vector<double>{2, 3, -1});
  REQUIRE(p.finalize(h) == 0);
}

namespace {

/// An SDFG calling nested SDFG 'inner' on A -> B (shape N), whose loop `for k in range(K)` (K
/// mapped from L) runs state 'level': Y[k] = X[k + 1] * 2 (with `guarded`, only where k + 1 < M).
std::unique_ptr<SDFG> nested_loop_sdfg(bool guarded) {
  auto inner = std::make_unique<SDFG>("inner");
  inner->add_symbol("M");
  inner->add_symbol("K");
  inner->add_array("X", ScalarType::Float64, {E::symbol("M")});
  inner->add_array("Y", ScalarType::Float64, {E::symbol("M")});
  add_shifted_loop(*inner, "levels", "k", "K", "M", guarded, "level", "dbl", "2", "X", "Y");
  auto s = std::make_unique<SDFG>("outer");
  s->add_symbol("N");
  s->add_symbol("L");
  s->add_array("A", ScalarType::Float64, {E::symbol("N")});
  s->add_array("B", ScalarType::Float64, {E::symbol("N")});
  auto& main = s->add_state("main", true);
  auto& a = main.add_access("A");
  auto& b = main.add_access("B");
  auto& ns = main.add_nested_sdfg("call", std::move(inner), {"X"}, {"Y"},
                                  {{"M", E::symbol("N")}, {"K", E::symbol("L")}});
  main.add_edge(a.id(), "", ns.id(), "X", Memlet::simple("A", Subset::parse("0:N")));
  main.add_edge(ns.id(), "Y", b.id(), "", Memlet::simple("B", Subset::parse("0:N")));
  s->relink_nested();
  CHECK(diagnostics(*s) == "");
  return s;
}

}  // namespace

TEST_CASE("bounds checks: a nested SDFG's loop checks its states before the loop, at both ends",
          "[codegen][run][bounds]") {
  // ADR 0044, session 37: the checks of a state that runs at every value of the loop variable
  // and moves with it by a shift hold at every value once they hold at the first and the last.
  std::vector<double> A = {1, 2, 3}, B(3, -1.0);
  std::int64_t n = 3, l = 2;
  SECTION("hoisted: the level function checks nothing") {
    auto s = nested_loop_sdfg(false);
    GeneratedCode g = generate_cpu(*s);
    INFO(g.source);
    const std::size_t level = g.source.find("_state_0_level(");
    const std::size_t column = g.source.find("// loop 'levels' over k");
    REQUIRE(level != std::string::npos);
    REQUIRE(column != std::string::npos);
    const std::string level_fn = g.source.substr(level, g.source.find("\n}\n", level) - level);
    CHECK(level_fn.find("weir_bounds_ok") == std::string::npos);
    const std::string loop = g.source.substr(column, g.source.find("\n}\n", column) - column);
    CHECK(loop.find("k = weir_end == 0 ? (0) : (K - 1);") != std::string::npos);
    CHECK(loop.find("weir_fault_pending") == std::string::npos);
    // Inside: every level runs.
    Outcome ok = run_once(*s, "hoisted_ok", {A.data(), B.data(), &l, &n});
    CHECK(ok.rc == 0);
    CHECK(B == std::vector<double>{4, 6, -1});
    // The last level reads X[3]: the same error as the check at that level gave, now before
    // the first level runs (B stays untouched; the level-by-level checks wrote B[0] and B[1]).
    B.assign(3, -1.0);
    l = 3;
    Outcome r = run_once(*s, "hoisted", {A.data(), B.data(), &l, &n});
    CHECK(r.rc != 0);
    CHECK(r.error ==
          "weir_run: state 'main': nested SDFG 'inner', state 'levels/level', tasklet 'dbl': reads X[3 .. 3] "
          "in dimension 0 of X with shape 3 (shifted reads need a larger input or a smaller output domain)");
    CHECK(B == std::vector<double>{-1, -1, -1});
    // No iteration: nothing checked, nothing written.
    l = 0;
    Outcome none = run_once(*s, "hoisted_none", {A.data(), B.data(), &l, &n});
    CHECK(none.rc == 0);
    CHECK(B == std::vector<double>{-1, -1, -1});
  }
  SECTION("a state under a condition keeps its checks in the loop") {
    // Checked at k = 2 before the loop, X[3] would fail, though the condition skips it there.
    auto s = nested_loop_sdfg(true);
    GeneratedCode g = generate_cpu(*s);
    INFO(g.source);
    CHECK(g.source.find("bounds checks of the states of loop") == std::string::npos);
    l = 3;
    Outcome r = run_once(*s, "guarded", {A.data(), B.data(), &l, &n});
    CHECK(r.rc == 0);
    CHECK(B == std::vector<double>{4, 6, -1});
  }
}
