// Unit tests of the dependence analysis (weir/sdfg/dependence.h) on hand-worked cases: which
// accesses concurrent iterations share, and the reasons given when they may.
#include <catch2/catch.hpp>

#include "weir/sdfg/dependence.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"

using namespace weir;
using Catch::Matchers::Contains;
using sym::Expr;

namespace {

Expr E(const char* text) { return Expr::parse(text); }

std::vector<Expr> idx(std::initializer_list<const char*> texts) {
  std::vector<Expr> out;
  for (const char* t : texts) out.push_back(E(t));
  return out;
}

Memlet M(const char* data, const char* subset) { return Memlet::simple(data, Subset::parse(subset)); }

/// A state with map m[params] (range `range`) whose tasklet writes `out` at `subset` with a sum
/// WCR (or plainly when `wcr` is false).
struct MapWrite {
  std::unique_ptr<SDFG> sdfg = std::make_unique<SDFG>("prog");
  SDFGState* st = nullptr;
  MapEntry* entry = nullptr;
  MapWrite(std::vector<std::string> params, const char* range, const char* out, const char* subset,
           bool wcr = true) {
    sdfg->add_array("out", ScalarType::Float64, {E("N"), E("N")});
    st = &sdfg->add_state("s", true);
    entry = &st->add_map("m", std::move(params), Subset::parse(range));
    auto& t = st->add_tasklet("t", {"o = 1.0", Language::Python}, {}, {"o"});
    auto& o = st->add_access("out");
    st->add_edge(entry->id(), "", t.id(), "", Memlet{});
    st->add_memlet_path({t.id(), entry->exit, o.id()},
                        Memlet::simple(out, Subset::parse(subset), wcr ? "lambda a, b: a + b" : ""), "o", "");
  }
};

}  // namespace

TEST_CASE("affine_in splits an index into coefficient and offset", "[sdfg][dependence]") {
  auto a = affine_in(E("2*i + N - 1"), "i");
  REQUIRE(a);
  CHECK(a->first == E("2"));
  CHECK(a->second == E("N - 1"));
  auto none = affine_in(E("N"), "i");
  REQUIRE(none);
  CHECK(none->first == E("0"));
  CHECK_FALSE(affine_in(E("i*i"), "i"));
  CHECK_FALSE(affine_in(E("Mod(i, 4)"), "i"));
}

TEST_CASE("disjoint_points: one parameter per dimension of its own, offsets fixed", "[sdfg][dependence]") {
  Concurrency ij{{"i", "j"}, {}};
  // out[i, j]: (i, j) != (i', j') differ in a dimension.
  CHECK(disjoint_points(idx({"i", "j"}), ij));
  // Transposed, reversed, shifted, strided by a constant: still one element per iteration.
  CHECK(disjoint_points(idx({"j + 1", "N - i"}), ij));
  CHECK(disjoint_points(idx({"2*i", "3*j + 1"}), ij));
  // out[i + j]: (0, 1) and (1, 0) meet.
  auto sum = disjoint_points(idx({"i + j"}), ij, "out");
  CHECK_FALSE(sum);
  CHECK(sum.reason ==
        "parameter i indexes no dimension of out [i + j] of its own (as a*i + b, a a nonzero integer, b the "
        "same in concurrent iterations)");
  // out[i, i]: j has no dimension, (0, 0) and (0, 1) write the same element.
  auto diag = disjoint_points(idx({"i", "i"}), ij, "out");
  CHECK_FALSE(diag);
  CHECK_THAT(diag.reason, Contains("parameter j indexes no dimension of out [i, i]"));
  // Reduction to a scalar (DaCe's Reduce: every iteration into out[0]).
  CHECK_FALSE(disjoint_points(idx({"0"}), Concurrency{{"i"}, {}}));
  // No concurrent parameter: nothing runs at the same time.
  CHECK(disjoint_points(idx({"0"}), Concurrency{{}, {}}));
}

TEST_CASE("disjoint_points: offsets that vary between concurrent iterations prove nothing",
          "[sdfg][dependence]") {
  // Only i is distributed; k is an inner sequential loop's variable: out[i + k] at (i, k) =
  // (0, 1) and (1, 0) meet, although i alone separates the dimension.
  Concurrency i_only{{"i"}, [](const std::string& s) { return s != "k"; }};
  CHECK_FALSE(disjoint_points(idx({"i + k"}), i_only));
  CHECK(disjoint_points(idx({"i + N"}), i_only));
  // A data-dependent index (a dynamic map input, an indirection `idx[i]` read into a symbol)
  // is not invariant: a scatter such as hist[bin] may meet.
  Concurrency scatter{{"i"}, [](const std::string& s) { return s != "bin"; }};
  auto v = disjoint_points(idx({"bin"}), scatter, "hist");
  CHECK_FALSE(v);
  CHECK_THAT(v.reason, Contains("parameter i indexes no dimension of hist [bin]"));
  // Nonlinear in the parameter: i // 2 and i % 4 repeat values.
  CHECK_FALSE(disjoint_points(idx({"floor(i / 2)"}), Concurrency{{"i"}, {}}));
  CHECK_FALSE(disjoint_points(idx({"Mod(i, 4)"}), Concurrency{{"i"}, {}}));
  // A symbolic coefficient might be zero.
  CHECK_FALSE(disjoint_points(idx({"N*i"}), Concurrency{{"i"}, {}}));
}

TEST_CASE("disjoint_points on regions: only single-point dimensions separate (views of slices)",
          "[sdfg][dependence]") {
  Concurrency i{{"i"}, {}};
  // A view of row i (A[i, 0:M]) is the iteration's own slice; a view of rows i..i+1 overlaps
  // the next iteration's.
  CHECK(disjoint_points("A", Subset::parse("i, 0:M"), i));
  auto rows = disjoint_points("A", Subset::parse("i:i + 2, 0:M"), i);
  CHECK_FALSE(rows);
  CHECK_THAT(rows.reason, Contains("parameter i indexes no dimension of A [0, 0]"));
}

TEST_CASE("disjoint_across_iterations: a write and another access of a loop's iterations",
          "[sdfg][dependence]") {
  // A[i] = A[i - 1] + 1: iteration i reads what i - 1 wrote.
  auto carried = disjoint_across_iterations("A", "i", M("A", "i"), M("A", "i - 1"), false);
  CHECK_FALSE(carried);
  CHECK(carried.reason == "A is written at i and read at i - 1");
  // A[i] written, A[i + 1] written: i and i + 1 are different elements only in one iteration;
  // iteration i + 1 writes A[i + 1] too.
  auto ww = disjoint_across_iterations("A", "i", M("A", "i"), M("A", "i + 1"), true);
  CHECK_FALSE(ww);
  CHECK(ww.reason == "A is written at i and written at i + 1");
  // A[2*i] written, A[2*i + 1] read: even and odd elements never meet.
  CHECK(disjoint_across_iterations("A", "i", M("A", "2*i"), M("A", "2*i + 1"), false));
  // A[i] written and read in the same iteration; B[i, j] with j fixed.
  CHECK(disjoint_across_iterations("A", "i", M("A", "i"), M("A", "i"), false));
  CHECK(disjoint_across_iterations("B", "i", M("B", "i, j"), M("B", "i, j"), true));
  // A reduction into one element.
  auto red = disjoint_across_iterations("B", "i", M("B", "0"), M("B", "0"), true);
  CHECK_FALSE(red);
  CHECK(red.reason == "B is written at the same element(s) [0] in every iteration");
  // i + j where j is an inner loop's variable: (i, j) = (0, 1) and (1, 0) meet.
  auto inner = disjoint_across_iterations("A", "i", M("A", "i + j"), M("A", "i + j"), true, {"j"});
  CHECK_FALSE(inner);
  CHECK(
      inner.reason ==
      "cannot prove that different iterations touch different elements of A (written at [i + j], written at "
      "[i + j])");
  // A range: A[i:i + 2] meets A[i + 1:i + 3] of the next iteration.
  CHECK_FALSE(disjoint_across_iterations("A", "i", M("A", "i:i + 2"), M("A", "i:i + 2"), true));
}

TEST_CASE("wcr_outputs_disjoint and conflict_free_prefix on a map's reduction outputs",
          "[sdfg][dependence]") {
  SECTION("DaCe's Reduce as a map: out[o] summing over (o, r)") {
    MapWrite w({"o", "r"}, "0:N, 0:N", "out", "o, 0");
    CHECK(wcr_outputs_disjoint(*w.st, *w.entry, 1));
    auto both = wcr_outputs_disjoint(*w.st, *w.entry, 2);
    CHECK_FALSE(both);
    CHECK_THAT(both.reason, Contains("parameter r indexes no dimension of out [o, 0]"));
    CHECK(conflict_free_prefix(*w.st, *w.entry) == 1);
  }
  SECTION("every point its own element") {
    MapWrite w({"i", "j"}, "0:N, 0:N", "out", "j, i");
    CHECK(conflict_free_prefix(*w.st, *w.entry) == 2);
  }
  SECTION("a reduction to one element: no dimension is conflict-free") {
    MapWrite w({"i", "j"}, "0:N, 0:N", "out", "0, 0");
    CHECK(conflict_free_prefix(*w.st, *w.entry) == 0);
  }
  SECTION("the second parameter as an offset of the first: r varies within one o") {
    MapWrite w({"o", "r"}, "0:N, 0:N", "out", "o + r, 0");
    CHECK(conflict_free_prefix(*w.st, *w.entry) == 0);
  }
  SECTION("plain writes are not asked about") {
    MapWrite w({"i", "j"}, "0:N, 0:N", "out", "0, 0", false);
    CHECK(conflict_free_prefix(*w.st, *w.entry) == 2);
  }
}

TEST_CASE("control_flow_uses_name reads the control flow's code, not its text", "[sdfg][dependence]") {
  SDFG sdfg("prog");
  auto& a = sdfg.add_state("a", true);
  auto& loop = sdfg.add_block(std::make_unique<LoopRegion>("L"));
  InterstateEdge cond;
  cond.condition = {"hist_count > 0", Language::Python};
  sdfg.add_edge(a.id(), loop.id(), cond);
  CHECK(control_flow_uses_name(sdfg, "hist_count"));
  // A longer identifier, an attribute and a string are no use of `hist`.
  CHECK_FALSE(control_flow_uses_name(sdfg, "hist"));
  InterstateEdge assign;
  assign.assignments.emplace_back("k", CodeBlock{"x.hist + 1", Language::Python});
  sdfg.add_edge(loop.id(), a.id(), assign);
  CHECK_FALSE(control_flow_uses_name(sdfg, "hist"));
  CHECK(control_flow_uses_name(sdfg, "x"));
  CHECK(control_flow_uses_name(sdfg, "k"));  // assigned
}

TEST_CASE("a recorded verdict (wcr_nonatomic) survives a JSON round trip", "[sdfg][dependence][serialize]") {
  MapWrite w({"o", "r"}, "0:N, 0:N", "out", "o, 0");
  DataflowEdge& into_exit = w.st->edge(w.st->in_edges(w.entry->exit)[0]);
  into_exit.memlet.wcr_nonatomic = true;
  std::string text = sdfg_to_json_text(*w.sdfg, 1);
  CHECK_THAT(text, Contains("\"wcr_nonatomic\": true"));
  auto back = sdfg_from_json_text(text);
  int marked = 0, plain = 0;
  for (SDFGState* st : back->all_states())
    for (const DataflowEdge* e : st->edges()) (e->memlet.wcr_nonatomic ? marked : plain) += 1;
  CHECK(marked == 1);  // tasklet -> exit
  CHECK(plain == 2);   // entry -> tasklet (empty), exit -> out
}
