// Which write-conflict-resolved writes the CPU code generator makes atomic: inside a parallel
// map, a nested SDFG's writes and a view's writes are atomic exactly where concurrent iterations
// can meet (the same element of shared memory), not where each iteration has its own slice
// (DaCe's Reduce expanded in a map, conv2d's `output_slice` view). Programs run and are checked
// against sums worked out by hand.
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

bool has_atomic(const std::string& source) {
  // The prelude's comment mentions the pragma; the program's code starts at its SDFG banner.
  return source.find("#pragma omp atomic", source.find("// --- SDFG")) != std::string::npos;
}

/// S[N] (zeros) += row sums of A[N, M] through a nested SDFG called in a parallel map over i.
/// The nested SDFG sums X[0:M] into Y with a sum WCR at `inner` ("0" or "r", r = i mapped in);
/// the outer memlet of Y is S[`outer`] ("i" pins the call's element, "0:N" passes all of S).
/// S has `s_size` elements (default N); `inner_all` is Y's memlet outside the k map where
/// `inner` uses k.
std::unique_ptr<SDFG> nested_sum(const std::string& outer, const std::string& inner, std::int64_t y_size,
                                 const std::string& s_size = "N", const std::string& inner_all = "") {
  auto body = std::make_unique<SDFG>("rowsum");
  body->add_array("X", ScalarType::Float64, {E::symbol("M")});
  body->add_array("Y", ScalarType::Float64, {E(y_size)});
  body->add_symbol("M");
  body->add_symbol("r");
  {
    auto& st = body->add_state("sum", true);
    auto& x = st.add_access("X");
    auto& y = st.add_access("Y");
    auto& m = st.add_map("k_map", {"k"}, Subset::parse("0:M"));
    auto& t = st.add_tasklet("add", {"o = x", Language::Python}, {"x"}, {"o"});
    auto in = st.add_memlet_path({x.id(), m.id(), t.id()}, Memlet::simple("X", Subset::parse("k")), "", "x");
    st.edge(in[0]).memlet = Memlet::simple("X", Subset::parse("0:M"));
    auto out = st.add_memlet_path({t.id(), m.exit, y.id()},
                                  Memlet::simple("Y", Subset::parse(inner), "lambda a, b: a + b"), "o", "");
    if (!inner_all.empty())
      st.edge(out[1]).memlet = Memlet::simple("Y", Subset::parse(inner_all), "lambda a, b: a + b");
  }
  auto s = std::make_unique<SDFG>("outer");
  s->add_symbol("M");
  s->add_symbol("N");
  s->add_array("A", ScalarType::Float64, {E::symbol("N"), E::symbol("M")});
  s->add_array("S", ScalarType::Float64, {E::parse(s_size)});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& out = st.add_access("S");
  auto& m = st.add_map("i_map", {"i"}, Subset::parse("0:N"), ScheduleType::CPU_Multicore);
  auto& ns = st.add_nested_sdfg("call", std::move(body), {"X"}, {"Y"},
                                {{"M", E::symbol("M")}, {"r", E::symbol("i")}});
  auto in =
      st.add_memlet_path({a.id(), m.id(), ns.id()}, Memlet::simple("A", Subset::parse("i, 0:M")), "", "X");
  st.edge(in[0]).memlet = Memlet::simple("A", Subset::parse("0:N, 0:M"));
  auto wr = st.add_memlet_path({ns.id(), m.exit, out.id()},
                               Memlet::simple("S", Subset::parse(outer), "lambda a, b: a + b"), "Y", "");
  st.edge(wr[1]).memlet = Memlet::simple("S", Subset::parse("0:" + s_size), "lambda a, b: a + b");
  s->relink_nested();
  return s;
}

/// Runs `s` with A[N, M] = i * M + k + 1 and S = 0 (N = 64, M = 5); returns S.
std::vector<double> run_sums(const SDFG& s, const std::string& name) {
  GeneratedCode g = generate_cpu(s);
  test::LoadedProgram p(test::compile_shared(g.source, test::scratch_dir("codegen-wcr-" + name)));
  std::int64_t n = 64, m = 5;
  std::vector<double> A(static_cast<std::size_t>(n * m)), S(static_cast<std::size_t>(n), 0.0);
  for (std::size_t k = 0; k < A.size(); ++k) A[k] = static_cast<double>(k + 1);
  p.call({A.data(), S.data(), &m, &n});
  return S;
}

/// Row i's sum of A = i * M + k + 1 over k < M (M = 5): 25 i + 15.
double row_sum(std::int64_t i) { return 25.0 * static_cast<double>(i) + 15.0; }

}  // namespace

TEST_CASE("a nested SDFG's sum into its own element of a parallel map needs no atomics", "[codegen][wcr]") {
  // Y is S[i] in call i: the calls write disjoint elements (DaCe's Reduce expanded in a map).
  auto s = nested_sum("i", "0", 1);
  validate_or_throw(*s);
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK_FALSE(has_atomic(g.source));
  auto S = run_sums(*s, "own");
  for (std::int64_t i = 0; i < 64; ++i) CHECK(S[static_cast<std::size_t>(i)] == row_sum(i));
}

TEST_CASE("a nested SDFG's sum into an element other calls write is atomic", "[codegen][wcr]") {
  // All of S is passed and every call adds into Y[0] = S[0]: the calls meet there. S has as many
  // elements as the map has points, so each thread adds into a copy of its own instead
  // (parallel_privatization.cpp); with a larger S the calls update it atomically.
  auto s = nested_sum("0:N", "0", 64);
  validate_or_throw(*s);
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK(g.source.find("__weir_copies_S") != std::string::npos);
  CHECK(has_atomic(g.source));  // the branch for containers larger than the map
  GeneratedCode larger = generate_cpu(*nested_sum("0:N", "0", 64, "N + 1"));
  INFO(larger.source);
  CHECK(larger.source.find("__weir_copies_S") == std::string::npos);
  CHECK(has_atomic(larger.source));
  auto S = run_sums(*s, "shared");
  // Sums of integers below 2^53: exact in any order.
  double total = 0;
  for (std::int64_t i = 0; i < 64; ++i) total += row_sum(i);
  CHECK(S[0] == total);
  for (std::size_t i = 1; i < 64; ++i) CHECK(S[i] == 0.0);
}

TEST_CASE("a nested SDFG's sum indexed by the calling map's parameter needs no atomics", "[codegen][wcr]") {
  // All of S is passed (the same base in every call) and call i writes Y[r] with r = i.
  auto s = nested_sum("0:N", "r", 64);
  validate_or_throw(*s);
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK_FALSE(has_atomic(g.source));
  auto S = run_sums(*s, "pinned");
  for (std::int64_t i = 0; i < 64; ++i) CHECK(S[static_cast<std::size_t>(i)] == row_sum(i));
}

namespace {

/// A state "main" of `s` with a parallel map over i < N around a sequential map over k < M and a
/// tasklet `o = x` reading x = A[i, k] (symbols M, N and A[N, M] added to `s`).
struct IkNest {
  SDFGState* st;
  MapEntry* mi;
  MapEntry* mk;
  Tasklet* t;
};

IkNest add_ik_nest(SDFG& s) {
  s.add_symbol("M");
  s.add_symbol("N");
  s.add_array("A", ScalarType::Float64, {E::symbol("N"), E::symbol("M")});
  auto& st = s.add_state("main", true);
  auto& a = st.add_access("A");
  auto& mi = st.add_map("i_map", {"i"}, Subset::parse("0:N"), ScheduleType::CPU_Multicore);
  auto& mk = st.add_map("k_map", {"k"}, Subset::parse("0:M"), ScheduleType::Sequential);
  auto& t = st.add_tasklet("add", {"o = x", Language::Python}, {"x"}, {"o"});
  auto in = st.add_memlet_path({a.id(), mi.id(), mk.id(), t.id()}, Memlet::simple("A", Subset::parse("i, k")),
                               "", "x");
  st.edge(in[0]).memlet = Memlet::simple("A", Subset::parse("0:N, 0:M"));
  st.edge(in[1]).memlet = Memlet::simple("A", Subset::parse("i, 0:M"));
  return {&st, &mi, &mk, &t};
}

/// Runs `g` (arguments A[N, M], S[N + M], M, N) with A = i * M + k + 1, S = 0, N = 64, M = 5,
/// and checks S[d] = the sum of A[i, k] over i + k = d (integers: exact in any order).
void check_diagonal_sums(const GeneratedCode& g, const std::string& name) {
  test::LoadedProgram p(test::compile_shared(g.source, test::scratch_dir("codegen-wcr-diagonal-" + name)));
  std::int64_t n = 64, m = 5;
  std::vector<double> A(static_cast<std::size_t>(n * m)), S(static_cast<std::size_t>(n + m), 0.0);
  for (std::size_t k = 0; k < A.size(); ++k) A[k] = static_cast<double>(k + 1);
  p.call({A.data(), S.data(), &m, &n});
  for (std::int64_t d = 0; d < n + m; ++d) {
    double want = 0;
    for (std::int64_t k = 0; k < m; ++k)
      if (d - k >= 0 && d - k < n) want += static_cast<double>((d - k) * m + k + 1);
    CHECK(S[static_cast<std::size_t>(d)] == want);
  }
}

}  // namespace

TEST_CASE("a nested SDFG's sum at the calling parameter plus its own map's is atomic", "[codegen][wcr]") {
  // Call i adds A[i, k] into S[r + k] (r = i) for k < M: calls i and i + 1 meet at S[i + 1]
  // (k = 1 and k = 0). `r + k` pins r only if k is the same in every call; k is the nested
  // SDFG's own map parameter.
  auto s = nested_sum("0:N + M", "r + k", 69, "N + M", "r:r + M");
  validate_or_throw(*s);
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK(has_atomic(g.source));
  check_diagonal_sums(g, "nested");
}

TEST_CASE("a sum at a parallel parameter plus an inner sequential map's parameter is atomic",
          "[codegen][wcr]") {
  // S[i + k] += A[i, k] in a parallel map over i around a sequential map over k: iterations i
  // and i + 1 meet at S[i + 1]. The index was taken to pin i (its rest, k, is no parallel
  // parameter) and the sums raced.
  auto s = std::make_unique<SDFG>("diagonal");
  s->add_array("S", ScalarType::Float64, {E::parse("N + M")});
  IkNest n = add_ik_nest(*s);
  SDFGState& st = *n.st;
  auto& out = st.add_access("S");
  const std::string sum = "lambda a, b: a + b";
  auto wr = st.add_memlet_path({n.t->id(), n.mk->exit, n.mi->exit, out.id()},
                               Memlet::simple("S", Subset::parse("i + k"), sum), "o", "");
  st.edge(wr[1]).memlet = Memlet::simple("S", Subset::parse("i:i + M"), sum);
  st.edge(wr[2]).memlet = Memlet::simple("S", Subset::parse("0:N + M"), sum);
  validate_or_throw(*s);
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK(has_atomic(g.source));
  check_diagonal_sums(g, "maps");
}

namespace {

/// S[N, M] (zeros) += A[N, M] through a view V of S defined in a parallel map over i:
/// V = S[`row`, 0:M] (`row` "i": each iteration its own row; "0": all iterations the same row),
/// and a sequential map over k writes V[k] with a sum WCR.
std::unique_ptr<SDFG> view_sum(const std::string& row) {
  auto s = std::make_unique<SDFG>("viewsum");
  s->add_array("S", ScalarType::Float64, {E::symbol("N"), E::symbol("M")});
  DataDescriptor v = DataDescriptor::make_array(ScalarType::Float64, {E::symbol("M")}, true);
  v.kind = DataKind::View;
  v.type_name = "View";
  s->add_data("V", v);
  IkNest n = add_ik_nest(*s);
  SDFGState& st = *n.st;
  auto& mi = *n.mi;
  auto& mk = *n.mk;
  auto& t = *n.t;
  auto& out = st.add_access("S");
  auto& vn = st.add_access("V");
  const std::string sum = "lambda a, b: a + b";
  auto wr =
      st.add_memlet_path({t.id(), mk.exit, vn.id()}, Memlet::simple("V", Subset::parse("k"), sum), "o", "");
  st.edge(wr[1]).memlet = Memlet::simple("V", Subset::parse("0:M"), sum);
  vn.out_connectors["views"] = std::nullopt;
  auto vw = st.add_memlet_path({vn.id(), mi.exit, out.id()},
                               Memlet::simple("S", Subset::parse(row + ", 0:M"), sum), "views", "");
  st.edge(vw[1]).memlet = Memlet::simple("S", Subset::parse(row == "i" ? "0:N, 0:M" : "0, 0:M"), sum);
  return s;
}

}  // namespace

TEST_CASE("a view of each iteration's own row takes sums without atomics", "[codegen][wcr][view]") {
  auto s = view_sum("i");
  validate_or_throw(*s);
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK_FALSE(has_atomic(g.source));
}

TEST_CASE("a view of one row shared by all iterations takes sums atomically", "[codegen][wcr][view]") {
  // The view is defined inside the parallel loop but views the same row in every iteration:
  // it was taken for the iteration's own memory, and the sums raced.
  auto s = view_sum("0");
  validate_or_throw(*s);
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK(has_atomic(g.source));
  test::LoadedProgram p(test::compile_shared(g.source, test::scratch_dir("codegen-wcr-view-shared")));
  std::int64_t n = 200, m = 3;
  std::vector<double> A(static_cast<std::size_t>(n * m), 1.0), S(static_cast<std::size_t>(n * m), 0.0);
  p.call({A.data(), S.data(), &m, &n});
  for (std::size_t k = 0; k < 3; ++k) CHECK(S[k] == 200.0);
}

namespace {

// Nested SDFGs whose outer memlet is the whole array (as LoopToMap and the frontend write them):
// the code generator asks what the body touches (nested_access_region, ADR 0062), not what the
// memlet says, so a call that touches only its own row of the parallel map's output needs no
// atomics.

Memlet M(const std::string& data, const std::string& subset, bool wcr = false) {
  return Memlet::simple(data, Subset::parse(subset), wcr ? "lambda a, b: a + b" : "");
}

/// A parallel map over i in `range` calls `row` with A[i, 0:M] and all of S[N, M] (i -> r);
/// `row` calls `add` with the row S[`target`, 0:M] (as Z, M elements), whose sequential map
/// over k adds 2 * X[k] into Z[k] with a sum WCR.
std::unique_ptr<SDFG> nested_rows(const std::string& target, const std::string& range) {
  auto add = std::make_unique<SDFG>("add");
  add->add_array("X", ScalarType::Float64, {E::symbol("M")});
  add->add_array("Z", ScalarType::Float64, {E::symbol("M")});
  add->add_symbol("M");
  {
    auto& st = add->add_state("add", true);
    auto& m = st.add_map("k_map", {"k"}, Subset::parse("0:M"));
    auto& t = st.add_tasklet("twice", {"o = 2 * x", Language::Python}, {"x"}, {"o"});
    st.add_memlet_path({st.add_access("X").id(), m.id(), t.id()}, M("X", "k"), "", "x");
    st.edge(st.in_edges(m.id()).front()).memlet = M("X", "0:M");
    auto out = st.add_memlet_path({t.id(), m.exit, st.add_access("Z").id()}, M("Z", "k", true), "o", "");
    st.edge(out[1]).memlet = M("Z", "0:M", true);
  }
  auto row = std::make_unique<SDFG>("row");
  row->add_array("X", ScalarType::Float64, {E::symbol("M")});
  row->add_array("S", ScalarType::Float64, {E::symbol("N"), E::symbol("M")});
  for (const char* s : {"M", "N", "r"}) row->add_symbol(s);
  {
    auto& st = row->add_state("call", true);
    auto& ns = st.add_nested_sdfg("add", std::move(add), {"X"}, {"Z"}, {{"M", E::symbol("M")}});
    st.add_edge(st.add_access("X").id(), "", ns.id(), "X", M("X", "0:M"));
    st.add_edge(ns.id(), "Z", st.add_access("S").id(), "", M("S", target + ", 0:M", true));
  }
  auto s = std::make_unique<SDFG>("rows");
  for (const char* sy : {"M", "N"}) s->add_symbol(sy);
  s->add_array("A", ScalarType::Float64, {E::symbol("N"), E::symbol("M")});
  s->add_array("S", ScalarType::Float64, {E::symbol("N"), E::symbol("M")});
  auto& st = s->add_state("main", true);
  auto& m = st.add_map("i_map", {"i"}, Subset::parse(range), ScheduleType::CPU_Multicore);
  auto& ns = st.add_nested_sdfg("row", std::move(row), {"X"}, {"S"},
                                {{"M", E::symbol("M")}, {"N", E::symbol("N")}, {"r", E::symbol("i")}});
  auto in = st.add_memlet_path({st.add_access("A").id(), m.id(), ns.id()}, M("A", "i, 0:M"), "", "X");
  st.edge(in[0]).memlet = M("A", "0:N, 0:M");
  // The whole of S, as LoopToMap writes it: only the body says which row a call touches.
  st.add_memlet_path({ns.id(), m.exit, st.add_access("S").id()}, M("S", "0:N, 0:M", true), "S", "");
  s->relink_nested();
  return s;
}

/// The validated program's C++ (shown when a check fails).
GeneratedCode generated_rows(const SDFG& s) {
  validate_or_throw(s);
  return generate_cpu(s);
}

/// Runs `g` with A[i, k] = i * M + k + 1 (N = 64, M = 5) and S = 0; returns S.
std::vector<double> run_rows(const GeneratedCode& g, const std::string& name) {
  test::LoadedProgram p(test::compile_shared(g.source, test::scratch_dir("codegen-nested-region-" + name)));
  std::int64_t n = 64, m = 5;
  std::vector<double> A(static_cast<std::size_t>(n * m)), S(A.size(), 0.0);
  for (std::size_t k = 0; k < A.size(); ++k) A[k] = static_cast<double>(k + 1);
  p.call({A.data(), S.data(), &m, &n});
  return S;
}

}  // namespace

TEST_CASE("a nested SDFG passed all of S that touches its call's row takes sums without atomics",
          "[codegen][wcr][nested_access]") {
  // Call i adds into row i + shift (row r + shift of its body): one row per call; rows before
  // `shift` stay 0.
  for (std::size_t shift : {0, 1}) {
    GeneratedCode g = generated_rows(*nested_rows(shift ? "r + 1" : "r", shift ? "0:N - 1" : "0:N"));
    INFO(g.source);
    CHECK_FALSE(has_atomic(g.source));
    auto S = run_rows(g, shift ? "shifted" : "own");
    for (std::size_t k = 0; k < S.size(); ++k)
      CHECK(S[k] == (k < 5 * shift ? 0.0 : 2.0 * static_cast<double>(k - 5 * shift + 1)));
  }
}

TEST_CASE("a nested SDFG passed all of S that touches a row every call touches stays atomic",
          "[codegen][wcr][nested_access]") {
  // Every call adds into row 0: they meet there.
  GeneratedCode g = generated_rows(*nested_rows("0", "0:N"));
  INFO(g.source);
  CHECK(has_atomic(g.source));
  auto S = run_rows(g, "shared");
  // Column k of row 0: 2 * sum over i of (i * 5 + k + 1), integers: exact in any order.
  for (std::size_t k = 0; k < 5; ++k) {
    double want = 0;
    for (std::size_t i = 0; i < 64; ++i) want += 2.0 * static_cast<double>(i * 5 + k + 1);
    CHECK(S[k] == want);
  }
  for (std::size_t k = 5; k < S.size(); ++k) CHECK(S[k] == 0.0);
}
