// Loop-invariant code motion out of a sequential innermost map (docs/adr/0041): the tasklet's
// invariant statements and index checks run once before the loop, the loop reads plain
// variables and has no check left; results, and the errors of bad indices, are those of the
// unhoisted program. The programs gather a column of F through a table T, as unstructured
// stencils do: O[i, k] = f(F[T[i], k]) for i in 0:N (outer map), k in 0:K (inner map).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
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

/// O[i, k] = `code` (reading t = T[i], the whole of F (M x KF) as f, writing o = O[i, k]) for
/// i in 0:N on `outer`, k in 0:K sequential.
std::unique_ptr<SDFG> column_sdfg(const std::string& code, ScheduleType outer = ScheduleType::CPU_Multicore) {
  auto s = std::make_unique<SDFG>("columns");
  for (const char* n : {"N", "K", "M", "KF"}) s->add_symbol(n);
  s->add_array("T", ScalarType::Int32, {E::symbol("N")});
  s->add_array("F", ScalarType::Float64, {E::symbol("M"), E::symbol("KF")});
  s->add_array("O", ScalarType::Float64, {E::symbol("N"), E::symbol("K")});
  auto& st = s->add_state("main", true);
  auto& ta = st.add_access("T");
  auto& fa = st.add_access("F");
  auto& oa = st.add_access("O");
  auto& rows = st.add_map("rows", {"i"}, Subset::parse("0:N"), outer);
  auto& levels = st.add_map("levels", {"k"}, Subset::parse("0:K"), ScheduleType::Sequential);
  auto& t = st.add_tasklet("g", {code, Language::Python}, {"t", "f"}, {"o"});
  auto tin = st.add_memlet_path({ta.id(), rows.id(), levels.id(), t.id()},
                                Memlet::simple("T", Subset::parse("i")), "", "t");
  st.edge(tin[0]).memlet.subset = Subset::parse("0:N");
  st.add_memlet_path({fa.id(), rows.id(), levels.id(), t.id()},
                     Memlet::simple("F", Subset::parse("0:M, 0:KF")), "", "f");
  auto out = st.add_memlet_path({t.id(), levels.exit, rows.exit, oa.id()},
                                Memlet::simple("O", Subset::parse("i, k")), "o", "");
  st.edge(out[1]).memlet.subset = Subset::parse("i, 0:K");
  st.edge(out[2]).memlet.subset = Subset::parse("0:N, 0:K");
  std::string problems;
  for (const Diagnostic& d : validate(*s)) problems += d.str() + "\n";
  CHECK(problems == "");
  return s;
}

struct Run {
  int rc = 0;
  std::string error;
  std::vector<double> O;
};

/// Runs `s` on F (M x KF, F[m, k] = 100 m + k), the table T and K levels; O starts at -1.
Run run(const SDFG& s, const std::string& name, std::vector<std::int32_t> T, std::int64_t K,
        std::int64_t M = 4, std::int64_t KF = 3) {
  GeneratedCode g = generate_cpu(s);
  INFO(g.source);
  std::vector<double> F(static_cast<std::size_t>(M * KF));
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t k = 0; k < KF; ++k) F[static_cast<std::size_t>(m * KF + k)] = 100.0 * m + k;
  std::int64_t N = static_cast<std::int64_t>(T.size());
  Run r;
  r.O.assign(static_cast<std::size_t>(std::max<std::int64_t>(N * K, 1)), -1.0);
  std::map<std::string, void*> by_name = {{"F", F.data()}, {"O", r.O.data()}, {"T", T.data()}, {"N", &N},
                                          {"K", &K},       {"M", &M},         {"KF", &KF}};
  std::vector<void*> args;
  for (const ArgInfo& a : g.args) args.push_back(by_name.at(a.name));
  auto so = test::compile_shared(g.source, test::scratch_dir("hoist_" + name));
  test::LoadedProgram p(so);
  void* h = p.init(args.data());
  REQUIRE(h != nullptr);
  r.rc = p.run(h, args.data());
  if (r.rc != 0) r.error = p.last_error();
  REQUIRE(p.finalize(h) == 0);
  return r;
}

/// The first generated loop over k: from its `for` to its closing brace.
std::string inner_loop(const std::string& source) {
  std::size_t at = source.find("for (int64_t k = ");
  REQUIRE(at != std::string::npos);
  std::size_t end = source.find('{', at);
  REQUIRE(end != std::string::npos);
  for (int depth = 0; end < source.size(); ++end) {
    depth += source[end] == '{' ? 1 : source[end] == '}' ? -1 : 0;
    if (depth == 0) break;
  }
  return source.substr(at, end + 1 - at);
}

/// The part before the loop over k, from the hoisting guard.
std::string hoisted_part(const std::string& source) {
  std::size_t from = source.find("// the loops' invariant part, once");
  std::size_t to = source.find("for (int64_t k = ");
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  REQUIRE(from < to);
  return source.substr(from, to - from);
}

}  // namespace

TEST_CASE("loop hoisting: a column gathered through a table checks its row once, before the loop",
          "[codegen][run][hoisting]") {
  auto s = column_sdfg("r = t * 1\no = f[r, k] * 2.0");
  GeneratedCode g = generate_cpu(*s);
  // The row's check and the table value are computed before the loop; k is checked at its first
  // and last value there; the loop body reads plain variables.
  CHECK_THAT(hoisted_part(g.source), Catch::Contains("int32_t t = T[i];"));
  CHECK_THAT(hoisted_part(g.source), Catch::Contains("auto r = t * 1;"));
  CHECK_THAT(hoisted_part(g.source), Catch::Contains("const int64_t __weir_h0 = weir_index(r, (M)"));
  CHECK_THAT(hoisted_part(g.source), Catch::Contains("(void)weir_index((0), (KF)"));
  CHECK_THAT(hoisted_part(g.source), Catch::Contains("(void)weir_index((K - 1), (KF)"));
  CHECK(inner_loop(g.source).find("weir_index") == std::string::npos);
  CHECK_THAT(inner_loop(g.source), Catch::Contains("f[__weir_h0 * KF + k]"));

  Run ok = run(*s, "gather", {2, 0, 3}, 3);
  CHECK(ok.rc == 0);
  CHECK(ok.O == std::vector<double>{400, 402, 404, 0, 2, 4, 600, 602, 604});

  // A table entry outside F: the error of the unhoisted program, at the first k.
  Run bad = run(*s, "gather_bad_row", {2, 7, 3}, 3);
  CHECK(bad.rc != 0);
  CHECK_THAT(bad.error,
             Catch::Contains("connector 'f' of 'F': index 7 in dimension 0 is outside [0, 4) at (i=1, k=0)"));

  // More levels than F has: caught at the last k, before any level of that row is computed.
  Run deep = run(*s, "gather_deep", {2, 0, 3}, 4);
  CHECK(deep.rc != 0);
  CHECK_THAT(deep.error, Catch::Contains("index 3 in dimension 1 is outside [0, 3) at (i="));
  CHECK_THAT(deep.error, Catch::Contains(", k=3)"));
}

TEST_CASE("loop hoisting: a shifted level is checked at both ends of the loop", "[codegen][run][hoisting]") {
  auto s = column_sdfg("o = f[t, k + 1] - f[t, k]");
  GeneratedCode g = generate_cpu(*s);
  CHECK(inner_loop(g.source).find("weir_index") == std::string::npos);
  Run ok = run(*s, "shift", {1, 3}, 2);
  CHECK(ok.rc == 0);
  CHECK(ok.O == std::vector<double>{1, 1, 1, 1});
  Run over = run(*s, "shift_over", {1, 3}, 3);
  CHECK(over.rc != 0);
  CHECK_THAT(over.error, Catch::Contains("index 3 in dimension 1 is outside [0, 3) at (i="));
  CHECK_THAT(over.error, Catch::Contains(", k=2)"));
}

TEST_CASE("loop hoisting: an index read under a condition keeps its check in the loop",
          "[codegen][run][hoisting]") {
  // The arm that reads f runs only where t is a row: an entry -5 must not fail before the loop.
  auto s = column_sdfg("o = f[t, k] if t >= 0 else 0.0");
  GeneratedCode g = generate_cpu(*s);
  CHECK_THAT(inner_loop(g.source), Catch::Contains("weir_index(t, (M)"));
  Run ok = run(*s, "conditional", {1, -5, 2}, 2);
  CHECK(ok.rc == 0);
  CHECK(ok.O == std::vector<double>{100, 101, 0, 0, 200, 201});
  Run bad = run(*s, "conditional_bad", {1, 9, 2}, 2);
  CHECK(bad.rc != 0);
  CHECK_THAT(bad.error, Catch::Contains("index 9 in dimension 0 is outside [0, 4) at (i=1, k=0)"));
}

TEST_CASE("loop hoisting: a loop without iterations checks nothing", "[codegen][run][hoisting]") {
  // K = 0: no level is read, so a bad table entry is no error, as without hoisting.
  auto s = column_sdfg("o = f[t, k]");
  Run r = run(*s, "empty", {1, 99}, 0);
  CHECK(r.rc == 0);
  CHECK(r.error.empty());
}

TEST_CASE("loop hoisting: statements that vary or assign twice stay in the loop",
          "[codegen][run][hoisting]") {
  // `a` depends on k; `b` is assigned twice (its second value depends on the first iteration's
  // order); `c` reads only the table: hoisted. The values are those of the code run per point.
  auto s = column_sdfg(
      "a = k * 10.0\n"
      "b = 1.0\n"
      "b = b + a\n"
      "c = t + 1\n"
      "o = f[c, k] + b",
      ScheduleType::Sequential);
  GeneratedCode g = generate_cpu(*s);
  const std::string hoisted = hoisted_part(g.source);
  CHECK_THAT(hoisted, Catch::Contains("auto c = t + 1;"));
  CHECK(hoisted.find("auto a") == std::string::npos);
  CHECK(hoisted.find("b = ") == std::string::npos);
  Run r = run(*s, "varying", {0, 2}, 2);
  CHECK(r.rc == 0);
  CHECK(r.O == std::vector<double>{101, 112, 301, 312});
}

TEST_CASE("loop hoisting: a container the tasklet writes is read in the loop", "[codegen][hoisting]") {
  // The tasklet reads F[i, 0] and writes F[i, k]: the value changes after the first iteration,
  // so neither the read nor anything computed from it moves before the loop.
  auto s = std::make_unique<SDFG>("inplace");
  s->add_symbol("N");
  s->add_symbol("K");
  s->add_array("F", ScalarType::Float64, {E::symbol("N"), E::symbol("K")});
  auto& st = s->add_state("main", true);
  auto& in = st.add_access("F");
  auto& out = st.add_access("F");
  auto& rows = st.add_map("rows", {"i"}, Subset::parse("0:N"), ScheduleType::Sequential);
  auto& levels = st.add_map("levels", {"k"}, Subset::parse("0:K"), ScheduleType::Sequential);
  auto& t = st.add_tasklet("g", {"h = x * 2.0\no = h + 1.0", Language::Python}, {"x"}, {"o"});
  auto r = st.add_memlet_path({in.id(), rows.id(), levels.id(), t.id()},
                              Memlet::simple("F", Subset::parse("i, 0")), "", "x");
  st.edge(r[0]).memlet.subset = Subset::parse("0:N, 0");
  auto w = st.add_memlet_path({t.id(), levels.exit, rows.exit, out.id()},
                              Memlet::simple("F", Subset::parse("i, k")), "o", "");
  st.edge(w[1]).memlet.subset = Subset::parse("i, 0:K");
  st.edge(w[2]).memlet.subset = Subset::parse("0:N, 0:K");
  GeneratedCode g = generate_cpu(*s);
  CHECK(g.source.find("// the loops' invariant part, once") == std::string::npos);
  CHECK_THAT(inner_loop(g.source), Catch::Contains(" = x * 2.0;"));
}

TEST_CASE("loop hoisting: a fused scope hoists its gathering tasklet beside the consumer",
          "[codegen][run][hoisting]") {
  // A fusion's shape (ADR 0052): g gathers y = 2 F[T[i], k] into scalar s, h writes O = s + 1.
  // g has the most inputs and nothing in the scope writes what it reads: its row check and
  // table value move before the loop, h stays in it.
  auto s = std::make_unique<SDFG>("fused");
  for (const char* n : {"N", "K", "M", "KF"}) s->add_symbol(n);
  s->add_array("T", ScalarType::Int32, {E::symbol("N")});
  s->add_array("F", ScalarType::Float64, {E::symbol("M"), E::symbol("KF")});
  s->add_array("O", ScalarType::Float64, {E::symbol("N"), E::symbol("K")});
  s->add_scalar("s", ScalarType::Float64, true).storage = StorageType::Register;
  auto& st = s->add_state("main", true);
  auto& ta = st.add_access("T");
  auto& fa = st.add_access("F");
  auto& oa = st.add_access("O");
  auto& rows = st.add_map("rows", {"i"}, Subset::parse("0:N"), ScheduleType::CPU_Multicore);
  auto& levels = st.add_map("levels", {"k"}, Subset::parse("0:K"), ScheduleType::Sequential);
  auto& g = st.add_tasklet("g", {"y = f[t, k] * 2.0", Language::Python}, {"t", "f"}, {"y"});
  auto& h = st.add_tasklet("h", {"o = x + 1.0", Language::Python}, {"x"}, {"o"});
  auto tin = st.add_memlet_path({ta.id(), rows.id(), levels.id(), g.id()},
                                Memlet::simple("T", Subset::parse("i")), "", "t");
  st.edge(tin[0]).memlet.subset = Subset::parse("0:N");
  st.add_memlet_path({fa.id(), rows.id(), levels.id(), g.id()},
                     Memlet::simple("F", Subset::parse("0:M, 0:KF")), "", "f");
  auto& sa = st.add_access("s");
  st.add_edge(g.id(), "y", sa.id(), "", Memlet::simple("s", Subset::parse("0")));
  st.add_edge(sa.id(), "", h.id(), "x", Memlet::simple("s", Subset::parse("0")));
  auto out = st.add_memlet_path({h.id(), levels.exit, rows.exit, oa.id()},
                                Memlet::simple("O", Subset::parse("i, k")), "o", "");
  st.edge(out[1]).memlet.subset = Subset::parse("i, 0:K");
  st.edge(out[2]).memlet.subset = Subset::parse("0:N, 0:K");
  std::string problems;
  for (const Diagnostic& d : validate(*s)) problems += d.str() + "\n";
  REQUIRE(problems == "");
  GeneratedCode code = generate_cpu(*s);
  CHECK_THAT(hoisted_part(code.source), Catch::Contains("int32_t t = T[i];"));
  CHECK_THAT(hoisted_part(code.source), Catch::Contains("const int64_t __weir_h0 = weir_index(t, (M)"));
  CHECK(inner_loop(code.source).find("weir_index") == std::string::npos);
  CHECK_THAT(inner_loop(code.source), Catch::Contains("x + 1.0"));
  // By hand: O[i, k] = 2 (100 T[i] + k) + 1.
  Run ok = run(*s, "fused", {2, 0, 3}, 3);
  CHECK(ok.rc == 0);
  CHECK(ok.O == std::vector<double>{401, 403, 405, 1, 3, 5, 601, 603, 605});
  Run bad = run(*s, "fused_bad_row", {2, 7, 3}, 3);
  CHECK(bad.rc != 0);
  CHECK_THAT(bad.error,
             Catch::Contains("connector 'f' of 'F': index 7 in dimension 0 is outside [0, 4) at (i=1, k=0)"));
}

TEST_CASE("loop hoisting: an element gathered at invariant indices is loaded once, before the loop",
          "[codegen][run][hoisting]") {
  // f[t, 1] is the same at every k: its load moves before the loop with its row's check, and the
  // loop reads a variable (an edge's S_MXX in nabla's K loop; docs/adr/0041, session 31).
  auto s = column_sdfg("o = f[t, 1] + k");
  GeneratedCode g = generate_cpu(*s);
  CHECK_THAT(hoisted_part(g.source), Catch::Contains("const int64_t __weir_h0 = weir_index(t, (M)"));
  CHECK_THAT(hoisted_part(g.source), Catch::Contains("const int64_t __weir_h1 = weir_index(1, (KF)"));
  CHECK_THAT(hoisted_part(g.source),
             Catch::Contains("const double __weir_l0 = f[__weir_h0 * KF + __weir_h1];"));
  CHECK_THAT(inner_loop(g.source), Catch::Contains("__weir_l0 + k"));
  CHECK(inner_loop(g.source).find("f[") == std::string::npos);
  // By hand: O[i, k] = 100 T[i] + 1 + k.
  Run ok = run(*s, "load", {2, 0, 3}, 3);
  CHECK(ok.rc == 0);
  CHECK(ok.O == std::vector<double>{201, 202, 203, 1, 2, 3, 301, 302, 303});
  // A bad row: the unhoisted program's error, at the first k; no load from outside F.
  Run bad = run(*s, "load_bad_row", {2, 7, 3}, 3);
  CHECK(bad.rc != 0);
  CHECK_THAT(bad.error,
             Catch::Contains("connector 'f' of 'F': index 7 in dimension 0 is outside [0, 4) at (i=1, k=0)"));
  // No level: nothing is loaded or checked.
  Run none = run(*s, "load_empty", {1, 99}, 0);
  CHECK(none.rc == 0);
  CHECK(none.error.empty());
}

TEST_CASE("loop hoisting: an invariant element read in an arm of a condition is loaded in the loop",
          "[codegen][run][hoisting]") {
  // Only the iterations with k > 0 read f[t, 1]: its load (and its row's check) stay in the loop.
  auto s = column_sdfg("o = f[t, 1] if k > 0 else 0.0");
  GeneratedCode g = generate_cpu(*s);
  CHECK(g.source.find("__weir_l0") == std::string::npos);
  CHECK_THAT(inner_loop(g.source), Catch::Contains("f[weir_index(t, (M)"));
  Run ok = run(*s, "load_conditional", {2, 0, 3}, 3);
  CHECK(ok.rc == 0);
  CHECK(ok.O == std::vector<double>{0, 201, 201, 0, 1, 1, 0, 301, 301});
  // With one level only k = 0 runs, which reads nothing: a bad row is no error.
  Run bad = run(*s, "load_conditional_bad", {2, 7, 3}, 1);
  CHECK(bad.rc == 0);
  CHECK(bad.O == std::vector<double>{0, 0, 0});
}

TEST_CASE("loop hoisting: an element of a container the loop writes is loaded in every iteration",
          "[codegen][run][hoisting]") {
  // The tasklet reads F[i, 0] through the whole-array connector f and writes F[i, k]: the
  // iteration k = 0 changes F[i, 0], so the later ones must read it again.
  auto s = std::make_unique<SDFG>("inplace_pointer");
  s->add_symbol("N");
  s->add_symbol("K");
  s->add_array("F", ScalarType::Float64, {E::symbol("N"), E::symbol("K")});
  auto& st = s->add_state("main", true);
  auto& in = st.add_access("F");
  auto& out = st.add_access("F");
  auto& rows = st.add_map("rows", {"i"}, Subset::parse("0:N"), ScheduleType::Sequential);
  auto& levels = st.add_map("levels", {"k"}, Subset::parse("0:K"), ScheduleType::Sequential);
  auto& t = st.add_tasklet("g", {"o = f[i, 0] + 1.0", Language::Python}, {"f"}, {"o"});
  st.add_memlet_path({in.id(), rows.id(), levels.id(), t.id()},
                     Memlet::simple("F", Subset::parse("0:N, 0:K")), "", "f");
  auto w = st.add_memlet_path({t.id(), levels.exit, rows.exit, out.id()},
                              Memlet::simple("F", Subset::parse("i, k")), "o", "");
  st.edge(w[1]).memlet.subset = Subset::parse("i, 0:K");
  st.edge(w[2]).memlet.subset = Subset::parse("0:N, 0:K");
  std::string problems;
  for (const Diagnostic& d : validate(*s)) problems += d.str() + "\n";
  REQUIRE(problems == "");
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK(g.source.find("__weir_l0") == std::string::npos);
  CHECK_THAT(inner_loop(g.source), Catch::Contains("o = f[__weir_h0 * K] + 1.0;"));
  // By hand, F[i, k] = 10 i + k at first: k = 0 writes 10 i + 1, k = 1 and 2 write 10 i + 2.
  std::vector<double> F = {0, 1, 2, 10, 11, 12};
  std::int64_t N = 2, K = 3;
  std::map<std::string, void*> by_name = {{"F", F.data()}, {"N", &N}, {"K", &K}};
  std::vector<void*> args;
  for (const ArgInfo& a : g.args) args.push_back(by_name.at(a.name));
  auto so = test::compile_shared(g.source, test::scratch_dir("hoist_inplace_pointer"));
  test::LoadedProgram p(so);
  void* h = p.init(args.data());
  REQUIRE(h != nullptr);
  CHECK(p.run(h, args.data()) == 0);
  REQUIRE(p.finalize(h) == 0);
  CHECK(F == std::vector<double>{1, 2, 2, 11, 12, 12});
}
