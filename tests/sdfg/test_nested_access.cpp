// Unit tests of the memlet propagation out of nested SDFGs (weir/sdfg/nested_access.h) on
// hand-worked regions, and of the dependence verdicts on them (ADR 0062).
#include <catch2/catch.hpp>

#include "weir/sdfg/dependence.h"
#include "weir/sdfg/nested_access.h"
#include "weir/sdfg/sdfg.h"

using namespace weir;
using sym::Expr;

namespace {

Expr E(const char* text) { return Expr::parse(text); }
Subset S(const char* text) { return Subset::parse(text); }
Memlet M(const char* data, const char* subset) { return Memlet::simple(data, S(subset)); }

/// A state of `g` whose tasklet (in a map over `params` / `range` when `params` is not empty)
/// writes A at `subset`.
SDFGState& write_state(ControlFlowRegion& g, const char* label, std::vector<std::string> params,
                       const char* range, const char* subset) {
  auto& st = g.add_state(label, g.num_blocks() == 0);
  auto& t = st.add_tasklet("t", {"o = 1.0", Language::Python}, {}, {"o"});
  auto& a = st.add_access("A");
  if (params.empty()) {
    st.add_edge(t.id(), "o", a.id(), "", M("A", subset));
    return st;
  }
  auto& m = st.add_map("m", std::move(params), S(range));
  st.add_edge(m.id(), "", t.id(), "", Memlet{});
  st.add_edge(t.id(), "o", m.exit, "IN_A", M("A", subset));
  st.add_edge(m.exit, "OUT_A", a.id(), "", M("A", "0:N, 0:M"));  // not what the body writes
  return st;
}

/// An SDFG with the N x M array A (C order) and the symbols i, N, M.
std::unique_ptr<SDFG> body_sdfg(const char* name) {
  auto g = std::make_unique<SDFG>(name);
  g->add_array("A", ScalarType::Float64, {E("N"), E("M")});
  for (const char* s : {"i", "N", "M"}) g->add_symbol(s);
  return g;
}

/// A caller with A (N x M) and a map over p in [0, N - 1] around a nested SDFG node that gets
/// `inner` with the whole of A as its memlet (as LoopToMap writes it), i -> p.
struct Caller {
  std::unique_ptr<SDFG> sdfg = std::make_unique<SDFG>("caller");
  NestedSDFGNode* node = nullptr;
  EdgeId out_edge = 0;
  explicit Caller(std::unique_ptr<SDFG> inner, const char* outer_subset = "0:N, 0:M") {
    sdfg->add_array("A", ScalarType::Float64, {E("N"), E("M")});
    auto& st = sdfg->add_state("s", true);
    auto& m = st.add_map("par", {"p"}, S("0:N"));
    node = &st.add_nested_sdfg("call", std::move(inner), {}, {"A"},
                               {{"i", E("p")}, {"N", E("N")}, {"M", E("M")}});
    st.add_edge(m.id(), "", node->id(), "", Memlet{});
    out_edge = st.add_edge(node->id(), "A", m.exit, "IN_A", M("A", outer_subset)).id;
    st.add_edge(m.exit, "OUT_A", st.add_access("A").id(), "", M("A", "0:N, 0:M"));
    sdfg->relink_nested();
  }
  Subset region() const {
    const SDFGState& st = *sdfg->all_states().front();
    return nested_access_region(*node, "A", st.edge(out_edge).memlet, sdfg->data("A"));
  }
};

}  // namespace

TEST_CASE("accessed_region: the hull over maps and loops, in the SDFG's free symbols",
          "[sdfg][nested_access]") {
  auto g = body_sdfg("body");
  // for k in 1 .. M-2: map j in [0, 1]: A[i, k + j - 1] -> k + j - 1 runs 0 .. M-2.
  auto& loop = g->add_loop("L", "k", "k = 1", "k < M - 1", "k = k + 1");
  write_state(loop, "w", {"j"}, "0:2", "i, k + j - 1");
  auto r = accessed_region(*g, "A");
  REQUIRE(r);
  CHECK(r->str() == S("i, 0:M-1").str());

  // A downward loop with a negative coefficient: for k in M-1 .. 0 step -1: A[i + 1, M - 1 - k].
  auto& down = g->add_loop("D", "k", "k = M - 1", "k >= 0", "k = k - 1");
  write_state(down, "w2", {}, "", "i + 1, M - 1 - k");
  g->add_edge(loop.id(), down.id());
  r = accessed_region(*g, "A");
  REQUIRE(r);
  // Rows i and i + 1 (the hull), every column.
  CHECK(r->str() == S("i:i+2, 0:M").str());

  // A map with a stride 2 over the rows: A[2*q, 0] for q in [0, K - 1]: rows 0 .. 2K - 2.
  auto h = body_sdfg("strided");
  write_state(*h, "w", {"q"}, "0:K", "2*q, 0");
  r = accessed_region(*h, "A");
  REQUIRE(r);
  CHECK((*r)[0].start == E("0"));
  CHECK((*r)[0].end == E("2*K - 2"));
  CHECK((*r)[1] == Range(E("0"), E("0")));
}

TEST_CASE("accessed_region: whole dimensions where it cannot say", "[sdfg][nested_access]") {
  // An index by a symbol assigned on an interstate edge: not one of the SDFG's free symbols.
  auto g = body_sdfg("assigned");
  auto& s0 = g->add_state("s0", true);
  auto& s1 = write_state(*g, "w", {}, "", "t, 0");
  g->add_edge(s0.id(), s1.id(),
              InterstateEdge{{"1", Language::Python}, {{"t", {"i + 1", Language::Python}}}, {}});
  auto r = accessed_region(*g, "A");
  REQUIRE(r);
  CHECK(r->str() == S("0:N, 0").str());

  // A while loop's variable, a quadratic index: the whole dimension.
  auto w = body_sdfg("while");
  auto& loop = w->add_loop("L", "k", "k = 0", "k*k < M", "k = k + 1");
  write_state(loop, "w", {}, "", "i, k");
  auto& quad = w->add_loop("Q", "q", "q = 0", "q < 4", "q = q + 1");
  write_state(quad, "w2", {}, "", "q*q, 0");
  w->add_edge(loop.id(), quad.id());
  r = accessed_region(*w, "A");
  REQUIRE(r);
  CHECK(r->str() == S("0:N, 0:M").str());

  // The control flow reads A (a branch condition): all of it.
  auto c = body_sdfg("cond");
  auto& c0 = c->add_state("c0", true);
  auto& c1 = write_state(*c, "w", {}, "", "i, 0");
  c->add_edge(c0.id(), c1.id(), InterstateEdge{{"A[0, 1] > 0", Language::Python}, {}, {}});
  r = accessed_region(*c, "A");
  REQUIRE(r);
  CHECK(r->str() == S("0:N, 0:M").str());

  // Not accessed at all.
  auto none = body_sdfg("none");
  none->add_state("empty", true);
  CHECK_FALSE(accessed_region(*none, "A"));
  CHECK_THROWS_AS(accessed_region(*none, "B"), IRError);
}

TEST_CASE("nested_access_region: the body's region in the caller's symbols", "[sdfg][nested_access]") {
  // The body writes row i (a map over the columns); the caller maps i -> p.
  auto inner = body_sdfg("row");
  write_state(*inner, "w", {"j"}, "0:M", "i, j");
  Caller whole(std::move(inner));
  CHECK(whole.region().str() == S("p, 0:M").str());

  // An outer memlet that starts at row 1 (the connector is A[1:N]): rows move by 1.
  auto shifted = std::make_unique<SDFG>("row");
  shifted->add_array("A", ScalarType::Float64, {E("N - 1"), E("M")});
  for (const char* s : {"i", "N", "M"}) shifted->add_symbol(s);
  write_state(*shifted, "w", {}, "", "i, 0:M");
  Caller at1(std::move(shifted), "1:N, 0:M");
  CHECK(at1.region().str() == S("p + 1, 0:M").str());

  // Strides that are not the caller's (a column-major connector): the outer memlet as it is.
  auto transposed = body_sdfg("row");
  transposed->data("A").strides = {E("1"), E("N")};
  write_state(*transposed, "w", {}, "", "i, 0:M");
  Caller t(std::move(transposed));
  CHECK(t.region().str() == S("0:N, 0:M").str());
}

TEST_CASE("nested_access_region: through a nested SDFG in a map of a nested SDFG", "[sdfg][nested_access]") {
  // innermost: A[i, j]; middle: a map over q in [0, M - 1] calls it with i -> i, j -> q and the
  // whole of A; the caller calls the middle with i -> p: the caller's iteration p writes row p.
  auto innermost = body_sdfg("point");
  innermost->add_symbol("j");
  write_state(*innermost, "w", {}, "", "i, j");
  auto middle = body_sdfg("row");
  auto& st = middle->add_state("s", true);
  auto& m = st.add_map("cols", {"q"}, S("0:M"));
  auto& ns = st.add_nested_sdfg("point", std::move(innermost), {}, {"A"},
                                {{"i", E("i")}, {"j", E("q")}, {"N", E("N")}, {"M", E("M")}});
  st.add_edge(m.id(), "", ns.id(), "", Memlet{});
  st.add_edge(ns.id(), "A", m.exit, "IN_A", M("A", "0:N, 0:M"));
  st.add_edge(m.exit, "OUT_A", st.add_access("A").id(), "", M("A", "0:N, 0:M"));
  Caller outer(std::move(middle));
  Subset r = outer.region();
  CHECK(r.str() == S("p, 0:M").str());

  // The dependence verdict: the region pins p (one row per iteration), the memlet does not.
  Concurrency par{{"p"}, {}};
  CHECK(disjoint_points("A", r, par));
  auto whole = disjoint_points("A", S("0:N, 0:M"), par);
  CHECK_FALSE(whole);
}

TEST_CASE("wcr_outputs_disjoint reads a nested SDFG's write as its body's region",
          "[sdfg][nested_access][dependence]") {
  // A map over (p, q) around a nested SDFG that adds into row i = p of all of A (a sum WCR on
  // the whole-array memlet, as LoopToMap writes it): p separates the rows, q does not.
  auto inner = body_sdfg("row");
  write_state(*inner, "w", {"j"}, "0:M", "i, j");
  auto g = std::make_unique<SDFG>("caller");
  g->add_array("A", ScalarType::Float64, {E("N"), E("M")});
  auto& st = g->add_state("s", true);
  auto& m = st.add_map("par", {"p", "q"}, S("0:N, 0:4"));
  auto& ns =
      st.add_nested_sdfg("call", std::move(inner), {}, {"A"}, {{"i", E("p")}, {"N", E("N")}, {"M", E("M")}});
  st.add_edge(m.id(), "", ns.id(), "", Memlet{});
  const std::string sum = "lambda a, b: a + b";
  st.add_edge(ns.id(), "A", m.exit, "IN_A", Memlet::simple("A", S("0:N, 0:M"), sum));
  st.add_edge(m.exit, "OUT_A", st.add_access("A").id(), "", Memlet::simple("A", S("0:N, 0:M"), sum));
  g->relink_nested();
  CHECK(wcr_outputs_disjoint(st, m, 1));
  auto both = wcr_outputs_disjoint(st, m, 2);
  CHECK_FALSE(both);
  CHECK_THAT(both.reason, Catch::Matchers::Contains("parameter q"));
  CHECK(conflict_free_prefix(st, m) == 1);
}
