// The CPU code generator on small SDFGs built with the builder API: the shape of the generated
// code (loops, index arithmetic, pragmas, atomics, control flow, allocation), errors naming the
// element, determinism, and programs compiled and run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/sdfg/omp_schedule.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/state.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/library_expansion.h"

using namespace weir;
using namespace weir::codegen;
using test::codegen_error;
using E = sym::Expr;

namespace {

/// A[N] -> map i in `range` (tasklet `code` with input a, output b) -> B[N].
std::unique_ptr<SDFG> map_sdfg(const std::string& code, ScheduleType sched = ScheduleType::Default,
                               const std::string& range = "0:N") {
  return test::map_program(code, Language::Python, sched, range);
}

/// A[N] summed into S[1] with a WCR memlet `wcr`, written at subset `out`.
std::unique_ptr<SDFG> wcr_sdfg(const std::string& out = "0", const std::string& wcr = "lambda a, b: a + b") {
  auto s = std::make_unique<SDFG>("red");
  s->add_array("A", ScalarType::Float64, {E::symbol("N")});
  s->add_array("S", ScalarType::Float64, {E::symbol("N")});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("S");
  auto& m = st.add_map("m", {"i"}, Subset::parse("0:N"));
  auto& t = st.add_tasklet("t", {"o = x", Language::Python}, {"x"}, {"o"});
  st.add_memlet_path({a.id(), m.id(), t.id()}, Memlet::simple("A", Subset::parse("i")), "", "x");
  st.add_memlet_path({t.id(), m.exit, b.id()}, Memlet::simple("S", Subset::parse(out), wcr), "o", "");
  return s;
}

/// The generated program without the prelude, each line without its indentation.
std::string program_text(const std::string& source) {
  std::string text = source.substr(source.find("// --- SDFG"));
  std::string out;
  bool start = true;
  for (char c : text) {
    if (start && c == ' ') continue;
    start = c == '\n';
    out += c;
  }
  return out;
}

bool contains(const std::string& source, const std::string& part) {
  return program_text(source).find(part) != std::string::npos;
}

/// Generates, compiles and loads a program in a fresh scratch directory.
std::unique_ptr<test::LoadedProgram> build(const SDFG& s, const std::string& name) {
  GeneratedCode g = generate_cpu(s);
  auto so = test::compile_shared(g.source, test::scratch_dir("codegen_" + name));
  return std::make_unique<test::LoadedProgram>(so);
}

}  // namespace

TEST_CASE("a map with a tasklet becomes a parallel loop", "[codegen]") {
  auto s = map_sdfg("b = a * 2");
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK(contains(g.source, "// map m[i=0:N]"));
  // A flat map of unknown size chooses at run time (parallel_threshold.cpp): the same loop
  // without OpenMP, not an if() clause (which still enters the OpenMP runtime), below 4096
  // points or where it measured faster on one thread.
  CHECK(contains(g.source, "const double weir_points = static_cast<double>(N);\n"));
  CHECK(contains(g.source,
                 "if (weir_tiny || weir_run_sequentially(weir_times, weir_points)) {\n"
                 "for (int64_t i = 0; i <= N - 1; ++i) {\n"));
  CHECK(contains(g.source,
                 "} else {\n"
                 "#pragma omp parallel for\n"
                 "for (int64_t i = 0; i <= N - 1; ++i) {\n"));
  CHECK_FALSE(contains(g.source, " if("));
  CHECK(contains(g.source, "for (int64_t i = 0; i <= N - 1; ++i) {"));
  CHECK(contains(g.source, "// tasklet t (node 4)"));
  CHECK(contains(g.source, "double a = A[i];"));
  CHECK(contains(g.source, "b = a * 2;"));
  CHECK(contains(g.source, "B[i] = b;"));
  CHECK(contains(
      g.source,
      "static void weir_state_0_main(double* __restrict__ A, double* __restrict__ B, const int64_t N)"));
  CHECK(g.program_name == "prog");
  REQUIRE(g.args.size() == 3);
  CHECK(g.args[0] == ArgInfo{"A", ArgKind::Array, ScalarType::Float64});
  CHECK(g.args[2] == ArgInfo{"N", ArgKind::Symbol, ScalarType::Int64});
  CHECK(
      arglist_json(g.args) ==
      R"([{"name": "A", "kind": "array", "dtype": "float64"}, {"name": "B", "kind": "array", "dtype": "float64"}, {"name": "N", "kind": "symbol", "dtype": "int64"}])");
}

namespace {
/// B[i, j] = A[i + 1, j] + A[i - 1, j] over `range` (parameters i, j), CPU_Multicore with the
/// map attribute `collapse`.
std::unique_ptr<SDFG> stencil_2d(const std::string& range, int collapse) {
  auto s = std::make_unique<SDFG>("stencil");
  s->add_array("A", ScalarType::Float64, {E::symbol("N"), E::symbol("M")});
  s->add_array("B", ScalarType::Float64, {E::symbol("N"), E::symbol("M")});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& m = st.add_map("m", {"i", "j"}, Subset::parse(range), ScheduleType::CPU_Multicore);
  m.map->collapse = collapse;
  auto& t = st.add_tasklet("t", {"o = x + y", Language::Python}, {"x", "y"}, {"o"});
  st.add_memlet_path({a.id(), m.id(), t.id()}, Memlet::simple("A", Subset::parse("i + 1, j")), "", "x");
  st.add_memlet_path({a.id(), m.id(), t.id()}, Memlet::simple("A", Subset::parse("i - 1, j")), "", "y");
  st.add_memlet_path({t.id(), m.exit, b.id()}, Memlet::simple("B", Subset::parse("i, j")), "o", "");
  return s;
}
}  // namespace

TEST_CASE("OpenMP distributes the dimensions of the map's collapse attribute, as DaCe", "[codegen]") {
  SECTION("collapse 1 (DaCe's default): the outermost dimension; the count is of all points") {
    GeneratedCode g = generate_cpu(*stencil_2d("1:N-1, 0:M", 1));
    INFO(g.source);
    CHECK(contains(g.source, "const double weir_points = static_cast<double>(M*N - 2*M);\n"));
    CHECK(contains(g.source,
                   "} else {\n"
                   "#pragma omp parallel for\n"
                   "for (int64_t i = 1; i <= N - 2; ++i) {\n"
                   "for (int64_t j = 0; j <= M - 1; ++j) {\n"));
    CHECK_FALSE(contains(g.source, "collapse("));
  }
  SECTION("collapse 2") {
    GeneratedCode g = generate_cpu(*stencil_2d("1:N-1, 0:M", 2));
    INFO(g.source);
    CHECK(contains(g.source,
                   "} else {\n"
                   "#pragma omp parallel for collapse(2)\n"));
  }
  SECTION("collapse beyond the map's dimensions: all of them") {
    GeneratedCode g = generate_cpu(*stencil_2d("1:N-1, 0:M", 5));
    INFO(g.source);
    CHECK(contains(g.source,
                   "} else {\n"
                   "#pragma omp parallel for collapse(2)\n"));
  }
  SECTION("a known number of points: parallel from 32768 on, plain loops below, no condition") {
    GeneratedCode big = generate_cpu(*stencil_2d("1:129, 0:256", 1));  // 128 x 256 points
    INFO(big.source);
    CHECK(contains(big.source,
                   "#pragma omp parallel for\n"
                   "for (int64_t i = 1; i <= 128; ++i) {\n"));
    CHECK_FALSE(contains(big.source, "32768"));
    GeneratedCode small = generate_cpu(*stencil_2d("1:128, 0:256", 1));  // 127 x 256 points
    INFO(small.source);
    CHECK(contains(small.source, "for (int64_t i = 1; i <= 127; ++i) {\n"));
    CHECK_FALSE(contains(small.source, "#pragma omp"));
  }
  SECTION("a dimension whose bounds depend on an earlier parameter is neither collapsed nor counted") {
    GeneratedCode g = generate_cpu(*stencil_2d("1:N-1, 0:i", 2));
    INFO(g.source);
    CHECK(contains(g.source, "const double weir_points = static_cast<double>(N - 2);\n"));
    CHECK(contains(g.source,
                   "} else {\n"
                   "#pragma omp parallel for\n"
                   "for (int64_t i = 1; i <= N - 2; ++i) {\n"
                   "for (int64_t j = 0; j <= i - 1; ++j) {\n"));
  }
}

TEST_CASE("a parallel map's recorded OpenMP schedule becomes the pragma's schedule clause", "[codegen]") {
  auto with = [](const std::string& json_value, ScheduleType sched = ScheduleType::CPU_Multicore) {
    auto s = stencil_2d("1:N-1, 0:M", 2);
    for (Node* n : s->all_states().front()->nodes())
      if (auto* e = n->as<MapEntry>()) {
        e->map->extra.set(kOmpScheduleAttribute, json_value);
        e->map->schedule = sched;
      }
    return s;
  };
  SECTION("dynamic with a chunk, after collapse") {
    GeneratedCode g = generate_cpu(*with("\"dynamic,16\""));
    INFO(g.source);
    CHECK(contains(g.source,
                   "} else {\n"
                   "#pragma omp parallel for collapse(2) schedule(dynamic, 16)\n"));
  }
  SECTION("guided without a chunk") {
    GeneratedCode g = generate_cpu(*with("\"guided\""));
    INFO(g.source);
    CHECK(contains(g.source, "#pragma omp parallel for collapse(2) schedule(guided)\n"));
  }
  SECTION("a sequential map has no OpenMP loop to schedule") {
    GeneratedCode g = generate_cpu(*with("\"static,4\"", ScheduleType::Sequential));
    INFO(g.source);
    CHECK_FALSE(contains(g.source, "schedule("));
    CHECK_FALSE(contains(g.source, "#pragma omp parallel"));
  }
  SECTION("without the attribute: no clause (OpenMP's static default)") {
    GeneratedCode g = generate_cpu(*stencil_2d("1:N-1, 0:M", 2));
    CHECK_FALSE(contains(g.source, "schedule("));
  }
  SECTION("a value that is no schedule is an error at the map, not text in the pragma") {
    for (const std::string bad : {"\"dynamic,0\"", "\"dynamic) num_threads(64\"", "\"auto\"", "16"}) {
      INFO(bad);
      const std::string msg = codegen_error(*with(bad));
      CHECK_THAT(msg, Catch::Contains("map attribute weir_omp_schedule") &&
                          Catch::Contains("codegen: SDFG 'stencil', state 'main', node"));
    }
    CHECK_THAT(codegen_error(*with("\"dynamic,0\"")),
               Catch::Contains("the chunk after the comma must be an integer"));
    CHECK_THAT(codegen_error(*with("\"auto\"")), Catch::Contains("expected static, dynamic or guided"));
  }
  SECTION("the attribute survives saving and loading, on the map") {
    auto s = with("\"dynamic,16\"");
    auto reloaded = sdfg_from_json_text(sdfg_to_json_text(*s));
    for (Node* n : reloaded->all_states().front()->nodes())
      if (auto* e = n->as<MapEntry>()) {
        auto rec = recorded_omp_schedule(*e->map);
        REQUIRE(rec);
        CHECK(rec->kind == "dynamic");
        CHECK(rec->chunk == 16);
      }
    CHECK(generate_cpu(*reloaded).source == generate_cpu(*s).source);
  }
}

TEST_CASE("index arithmetic uses strides", "[codegen]") {
  GeneratedCode g = generate_cpu(*stencil_2d("1:N-1, 0:M", 2));
  INFO(g.source);
  CHECK(contains(g.source, "for (int64_t i = 1; i <= N - 2; ++i) {"));
  CHECK(contains(g.source, "for (int64_t j = 0; j <= M - 1; ++j) {"));
  CHECK(contains(g.source, "double x = A[(i + 1)*M + j];"));
  CHECK(contains(g.source, "double y = A[(i - 1)*M + j];"));
  CHECK(contains(g.source, "B[i*M + j] = o;"));
}

TEST_CASE("schedules, nested maps and negative steps", "[codegen]") {
  SECTION("sequential") {
    auto g = generate_cpu(*map_sdfg("b = a", ScheduleType::Sequential));
    CHECK_FALSE(contains(g.source, "#pragma omp parallel"));
  }
  SECTION("negative step") {
    auto s = map_sdfg("b = a", ScheduleType::Sequential);
    for (auto* n : s->all_states()[0]->nodes())
      if (auto* e = n->as<MapEntry>()) e->map->range = Subset({Range(E::symbol("N") - 1, 0, -1)});
    auto g = generate_cpu(*s);
    INFO(g.source);
    CHECK(contains(g.source, "// map m[i=N - 1:-1:-1] (Sequential)"));
    CHECK(contains(g.source, "for (int64_t i = N - 1; i >= 0; --i) {"));
  }
  SECTION("symbolic step of unknown sign stays sequential") {
    auto s = map_sdfg("b = a", ScheduleType::CPU_Multicore, "0:N:K");
    auto g = generate_cpu(*s);
    INFO(g.source);
    CHECK(contains(g.source, "(K > 0) ? (i <= N - 1) : (i >= N - 1); i += K"));
    CHECK_FALSE(contains(g.source, "#pragma omp parallel"));
  }
  SECTION("openmp off") {
    CodegenOptions o;
    o.openmp = false;
    auto g = generate_cpu(*map_sdfg("b = a"), o);
    CHECK_FALSE(contains(g.source, "#pragma omp"));
  }
  SECTION("a nested map runs sequentially inside the parallel one") {
    auto s = std::make_unique<SDFG>("nest");
    s->add_array("A", ScalarType::Float64, {E::symbol("N"), E::symbol("M")});
    auto& st = s->add_state("main", true);
    auto& a = st.add_access("A");
    auto& b = st.add_access("A");
    auto& outer = st.add_map("outer", {"i"}, Subset::parse("0:N"), ScheduleType::CPU_Multicore);
    auto& inner = st.add_map("inner", {"j"}, Subset::parse("0:i"), ScheduleType::CPU_Multicore);
    auto& t = st.add_tasklet("t", {"o = x + 1", Language::Python}, {"x"}, {"o"});
    st.add_memlet_path({a.id(), outer.id(), inner.id(), t.id()}, Memlet::simple("A", Subset::parse("i, j")),
                       "", "x");
    st.add_memlet_path({t.id(), inner.exit, outer.exit, b.id()}, Memlet::simple("A", Subset::parse("i, j")),
                       "o", "");
    auto g = generate_cpu(*s);
    INFO(g.source);
    CHECK(contains(g.source, "#pragma omp parallel for\nfor (int64_t i = 0;"));
    CHECK(contains(g.source, "for (int64_t j = 0; j <= i - 1; ++j) {"));
    std::string text = program_text(g.source);
    std::size_t first = text.find("#pragma omp parallel");
    CHECK(text.find("#pragma omp parallel", first + 1) == std::string::npos);
  }
}

TEST_CASE("write-conflict resolution", "[codegen]") {
  SECTION("a sum into one element of a parallel map: per-thread partials, combined atomically") {
    // One atomic per thread, not per point (parallel_reduction.cpp); the sequential branch of
    // the small-map threshold starts from the element and stores it back.
    auto g = generate_cpu(*wcr_sdfg("0"));
    INFO(g.source);
    CHECK(contains(g.source,
                   "#pragma omp parallel\n{\ndouble __weir_part0{};\nbool __weir_part0_have = false;\n"
                   "#pragma omp for\nfor (int64_t i = 0; i <= N - 1; ++i) {\n"));
    CHECK(contains(g.source,
                   "if (__weir_part0_have) __weir_part0 = __weir_part0 + o; else { __weir_part0 = o; "
                   "__weir_part0_have = true; }"));
    CHECK(contains(g.source, "if (__weir_part0_have) {\n#pragma omp atomic\nS[0] += __weir_part0;\n}"));
    CHECK(contains(g.source,
                   "if (weir_tiny || weir_run_sequentially(weir_times, weir_points)) {\n{\n"
                   "double __weir_part0 = S[0];\nbool __weir_part0_have = true;\n"));
    CHECK(contains(g.source, "S[0] = __weir_part0;"));
    CHECK_FALSE(contains(g.source, "S[0] += o;"));
  }
  SECTION("a write indexed by the parallel parameter is not") {
    auto g = generate_cpu(*wcr_sdfg("i"));
    INFO(g.source);
    CHECK(contains(g.source, "S[i] += o;"));
    CHECK_FALSE(contains(g.source, "#pragma omp atomic"));
  }
  SECTION("min/max use a compare-and-swap update") {
    auto g = generate_cpu(*wcr_sdfg("0", "lambda a, b: max(a, b)"));
    INFO(g.source);
    CHECK(
        contains(g.source,
                 "weir_atomic_update(&S[0], static_cast<double>(__weir_part0), [](double __a, double __b) { "
                 "return static_cast<double>(weir_max(__a, __b)); });"));
  }
  SECTION("sequential maps need no atomics") {
    auto s = wcr_sdfg("0");
    for (auto* st : s->all_states())
      for (auto* n : st->nodes())
        if (auto* e = n->as<MapEntry>()) e->map->schedule = ScheduleType::Sequential;
    auto g = generate_cpu(*s);
    CHECK(contains(g.source, "S[0] += o;"));
    CHECK_FALSE(contains(g.source, "atomic"));
  }
}

TEST_CASE("WCR sums run correctly in parallel", "[codegen][run]") {
  auto s = wcr_sdfg("0");
  auto p = build(*s, "wcr_run");
  // Above and below the small-map threshold (32768 points); S[0] starts at 7. Sums of integers
  // below 2^53: exact in any order.
  for (int64_t n : {100000, 10000}) {
    INFO(n);
    std::vector<double> a(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n), 0.0);
    std::iota(a.begin(), a.end(), 1.0);
    out[0] = 7;
    int64_t nn = n;
    p->call({a.data(), out.data(), &nn});
    CHECK(out[0] == 7.0 + static_cast<double>(n) * static_cast<double>(n + 1) / 2.0);
    CHECK(out[1] == 0.0);
  }
  // max: the threads' partials and the element's own value.
  auto m = build(*wcr_sdfg("0", "lambda a, b: max(a, b)"), "wcr_max");
  for (double start : {-1.0, 1e9}) {
    std::vector<double> a(100000), out(100000, 0.0);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>((i * 7919) % 100003);
    out[0] = start;
    int64_t nn = 100000;
    m->call({a.data(), out.data(), &nn});
    CHECK(out[0] == std::max(start, *std::max_element(a.begin(), a.end())));
  }
}

TEST_CASE("loops, conditionals and break blocks", "[codegen][run]") {
  // for i in range(N): if i < 3: B[i] = A[i] * 10 else: break
  auto s = std::make_unique<SDFG>("ctrl");
  s->add_array("A", ScalarType::Float64, {E::symbol("N")});
  s->add_array("B", ScalarType::Float64, {E::symbol("N")});
  auto& loop = s->add_loop("loop", "i", "i = 0", "i < N", "i = i + 1");
  auto& cond = loop.add_conditional("branch");
  auto& yes = cond.add_branch(CodeBlock{"i < 3", Language::Python}, "yes");
  auto& st = yes.add_state("scale", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& t = st.add_tasklet("t", {"o = x * 10", Language::Python}, {"x"}, {"o"});
  st.add_edge(a.id(), "", t.id(), "x", Memlet::simple("A", Subset::parse("i")));
  st.add_edge(t.id(), "o", b.id(), "", Memlet::simple("B", Subset::parse("i")));
  auto& no = cond.add_branch(std::nullopt, "no");
  no.add_block(std::make_unique<ControlTransferBlock>(BlockKind::Break, "stop"), true);
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK(contains(g.source, "for (i = 0; i < N; i = i + 1) {"));
  CHECK(contains(g.source, "if (i < 3) {"));
  CHECK(contains(g.source, "} else {\nbreak;"));
  CHECK(contains(g.source, "int64_t i = 0;"));
  auto p = build(*s, "ctrl");
  std::vector<double> A = {1, 2, 3, 4, 5, 6}, B(6, -1.0);
  int64_t n = 6;
  p->call({A.data(), B.data(), &n});
  CHECK(B == std::vector<double>{10, 20, 30, -1, -1, -1});
}

namespace {

/// init -> guard <-> body, guard -> done, with B[0] += 1 in body; `early_exit` adds a second,
/// break-like exit from the body (body -> done when not i < 3), which has no structured form.
std::unique_ptr<SDFG> interstate_loop(bool early_exit) {
  auto s = std::make_unique<SDFG>("oldstyle");
  s->add_array("B", ScalarType::Float64, {E(1)});
  s->add_symbol("i");
  auto& init = s->add_state("init", true);
  auto& guard = s->add_state("guard");
  auto& body = s->add_state("body");
  auto& done = s->add_state("done");
  auto& r = body.add_access("B");
  auto& w = body.add_access("B");
  auto& t = body.add_tasklet("inc", {"o = x + 1", Language::Python}, {"x"}, {"o"});
  body.add_edge(r.id(), "", t.id(), "x", Memlet::simple("B", Subset::parse("0")));
  body.add_edge(t.id(), "o", w.id(), "", Memlet::simple("B", Subset::parse("0")));
  InterstateEdge e0;
  e0.assignments = {{"i", "0"}};
  s->add_edge(init.id(), guard.id(), e0);
  InterstateEdge enter;
  enter.condition = {"i < 5", Language::Python};
  s->add_edge(guard.id(), body.id(), enter);
  InterstateEdge leave;
  leave.condition = {"not (i < 5)", Language::Python};
  s->add_edge(guard.id(), done.id(), leave);
  InterstateEdge back;
  back.assignments = {{"i", "i + 1"}};
  if (early_exit) back.condition = {"i < 3", Language::Python};
  s->add_edge(body.id(), guard.id(), back);
  if (early_exit) {
    InterstateEdge out;
    out.condition = {"not (i < 3)", Language::Python};
    s->add_edge(body.id(), done.id(), out);
  }
  return s;
}

}  // namespace

TEST_CASE("interstate edges forming a loop become a while loop", "[codegen][run]") {
  auto s = interstate_loop(false);
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK(contains(g.source,
                 "i = 0;\n// loop of interstate edges at 'guard'\nwhile (i < 5) {\nweir_poll_interrupt();\n"
                 "weir_state_0_body(B);\ni = i + 1;\n}"));
  CHECK_FALSE(contains(g.source, "goto"));
  auto p = build(*s, "while");
  double B = 0;
  p->call({&B});
  CHECK(B == 5.0);
}

TEST_CASE("unstructured interstate edges become gotos", "[codegen][run]") {
  auto s = interstate_loop(true);
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK(contains(g.source, "goto __weir_b0_"));
  CHECK(contains(g.source, "i = i + 1;"));
  CHECK(contains(g.source, "if (!(i < 5)) {"));
  auto p = build(*s, "goto");
  double B = 0;
  p->call({&B});
  CHECK(B == 4.0);
}

TEST_CASE("interstate if/else diamonds become if/else", "[codegen][run]") {
  // start -> (N > 2 ? big : small) -> end; big writes 1, small writes 2 into B[0].
  auto s = std::make_unique<SDFG>("diamond");
  s->add_array("B", ScalarType::Float64, {E(1)});
  auto& start = s->add_state("start", true);
  auto& big = s->add_state("big");
  auto& small = s->add_state("small");
  auto& end = s->add_state("end");
  for (auto* st : {&big, &small}) {
    auto& w = st->add_access("B");
    auto& t = st->add_tasklet("set", {st == &big ? "o = 1.0" : "o = 2.0", Language::Python}, {}, {"o"});
    st->add_edge(t.id(), "o", w.id(), "", Memlet::simple("B", Subset::parse("0")));
  }
  InterstateEdge yes, no;
  yes.condition = {"N > 2", Language::Python};
  no.condition = {"not (N > 2)", Language::Python};
  s->add_edge(start.id(), big.id(), yes);
  s->add_edge(start.id(), small.id(), no);
  s->add_edge(big.id(), end.id());
  s->add_edge(small.id(), end.id());
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK(contains(g.source, "if (N > 2) {\nweir_state_0_big(B);\n} else {\nweir_state_1_small(B);\n}"));
  auto p = build(*s, "diamond");
  double B = 0;
  std::int64_t n = 3;
  p->call({&B, &n});
  CHECK(B == 1.0);
  n = 1;
  p->call({&B, &n});
  CHECK(B == 2.0);
}

TEST_CASE("transients: persistent arrays in weir_init, register arrays in the map", "[codegen][run]") {
  // tmp[N] (transient, two states) and reg[1] (inside the map scope).
  auto s = std::make_unique<SDFG>("trans");
  s->add_array("A", ScalarType::Float64, {E::symbol("N")});
  s->add_array("B", ScalarType::Float64, {E::symbol("N")});
  s->add_array("tmp", ScalarType::Float64, {E::symbol("N")}, true);
  s->add_array("reg", ScalarType::Float64, {E(1)}, true).storage = StorageType::Register;
  auto& s0 = s->add_state("s0", true);
  {
    auto& a = s0.add_access("A");
    auto& tmp = s0.add_access("tmp");
    auto& m = s0.add_map("m", {"i"}, Subset::parse("0:N"));
    auto& t1 = s0.add_tasklet("t1", {"o = x + 1", Language::Python}, {"x"}, {"o"});
    auto& reg = s0.add_access("reg");
    auto& t2 = s0.add_tasklet("t2", {"o = x * 3", Language::Python}, {"x"}, {"o"});
    s0.add_memlet_path({a.id(), m.id(), t1.id()}, Memlet::simple("A", Subset::parse("i")), "", "x");
    s0.add_edge(t1.id(), "o", reg.id(), "", Memlet::simple("reg", Subset::parse("0")));
    s0.add_edge(reg.id(), "", t2.id(), "x", Memlet::simple("reg", Subset::parse("0")));
    s0.add_memlet_path({t2.id(), m.exit, tmp.id()}, Memlet::simple("tmp", Subset::parse("i")), "o", "");
  }
  auto& s1 = s->add_state("s1");
  {
    auto& tmp = s1.add_access("tmp");
    auto& b = s1.add_access("B");
    s1.add_edge(tmp.id(), "", b.id(), "", Memlet::simple("tmp", Subset::parse("0:N")));
  }
  s->add_edge(s0.id(), s1.id());
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK(contains(g.source, "h->tmp = weir_alloc<double>(N, \"tmp\");"));
  CHECK(contains(g.source, "double reg[1];"));
  CHECK(contains(g.source, "reg[0] = o;"));
  CHECK(contains(g.source, "std::memcpy(B, tmp, sizeof(double) * (N));"));
  auto p = build(*s, "transients");
  std::vector<double> A = {1, 2, 3}, B(3, 0.0);
  int64_t n = 3;
  p->call({A.data(), B.data(), &n});
  CHECK(B == std::vector<double>{6, 9, 12});
}

TEST_CASE("each map declares its own transients and a connector may shadow the state's", "[codegen][run]") {
  // One state, two maps: m1 computes tmp[i] = (A[i] + 1) * 3 through reg1 (local to m1), m2
  // C[i] = tmp[3 - i] - 2 + 0.5 through reg2 (local to m2) with an input connector named `tmp`,
  // like the state's own transient tmp[4] (zeroed by its access node). The code generator looks
  // the transients up per scope and the state's C++ names up in an index (ADR 0024): each
  // register array must land in its own loop, tmp at the top of the state, and the connector
  // must go through a temporary.
  auto s = std::make_unique<SDFG>("scopes");
  s->add_array("A", ScalarType::Float64, {E(4)});
  s->add_array("C", ScalarType::Float64, {E(4)});
  s->add_array("tmp", ScalarType::Float64, {E(4)}, true);
  s->add_array("reg1", ScalarType::Float64, {E(1)}, true).storage = StorageType::Register;
  s->add_array("reg2", ScalarType::Float64, {E(1)}, true).storage = StorageType::Register;
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& tmp = st.add_access("tmp");
  tmp.setzero = true;
  auto& c = st.add_access("C");
  auto& m1 = st.add_map("m1", {"i"}, Subset::parse("0:4"));
  auto& t1 = st.add_tasklet("t1", {"o = x + 1", Language::Python}, {"x"}, {"o"});
  auto& reg1 = st.add_access("reg1");
  auto& t2 = st.add_tasklet("t2", {"o = x * 3", Language::Python}, {"x"}, {"o"});
  st.add_memlet_path({a.id(), m1.id(), t1.id()}, Memlet::simple("A", Subset::parse("i")), "", "x");
  st.add_edge(t1.id(), "o", reg1.id(), "", Memlet::simple("reg1", Subset::parse("0")));
  st.add_edge(reg1.id(), "", t2.id(), "x", Memlet::simple("reg1", Subset::parse("0")));
  st.add_memlet_path({t2.id(), m1.exit, tmp.id()}, Memlet::simple("tmp", Subset::parse("i")), "o", "");
  auto& m2 = st.add_map("m2", {"i"}, Subset::parse("0:4"));
  auto& t3 = st.add_tasklet("t3", {"o = tmp - 2", Language::Python}, {"tmp"}, {"o"});
  auto& reg2 = st.add_access("reg2");
  auto& t4 = st.add_tasklet("t4", {"o = x + 0.5", Language::Python}, {"x"}, {"o"});
  st.add_memlet_path({tmp.id(), m2.id(), t3.id()}, Memlet::simple("tmp", Subset::parse("3 - i")), "", "tmp");
  st.add_edge(t3.id(), "o", reg2.id(), "", Memlet::simple("reg2", Subset::parse("0")));
  st.add_edge(reg2.id(), "", t4.id(), "x", Memlet::simple("reg2", Subset::parse("0")));
  st.add_memlet_path({t4.id(), m2.exit, c.id()}, Memlet::simple("C", Subset::parse("i")), "o", "");
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  const std::string& src = g.source;
  const std::size_t tmp_at = src.find("double tmp[4]{};"),
                    loop1 = src.find("for (int64_t i = 0; i <= 3; ++i) {"),
                    reg1_at = src.find("double reg1[1];"),
                    loop2 = src.find("for (int64_t i = 0; i <= 3; ++i) {", loop1 + 1),
                    reg2_at = src.find("double reg2[1];");
  REQUIRE(tmp_at != std::string::npos);
  REQUIRE(loop2 != std::string::npos);
  CHECK(tmp_at < loop1);
  CHECK((loop1 < reg1_at && reg1_at < loop2));
  CHECK((loop2 < reg2_at && reg2_at != std::string::npos));
  CHECK(src.find("double reg1[1];", reg1_at + 1) == std::string::npos);
  CHECK(src.find("double reg2[1];", reg2_at + 1) == std::string::npos);
  CHECK(contains(src, "double __weir_in_tmp = tmp[-(i) + 3];"));
  CHECK(contains(src, "double tmp = __weir_in_tmp;"));
  auto p = build(*s, "scopes");
  std::vector<double> A = {1, 2, 3, 4}, C(4, 0.0);
  p->call({A.data(), C.data()});
  // tmp = (A + 1) * 3 = {6, 9, 12, 15}; C[i] = tmp[3 - i] - 2 + 0.5.
  CHECK(C == std::vector<double>{13.5, 10.5, 7.5, 4.5});
}

TEST_CASE("strided copies become loops", "[codegen][run]") {
  auto s = std::make_unique<SDFG>("copy");
  s->add_array("A", ScalarType::Float64, {E::symbol("N"), E::symbol("N")});
  s->add_array("D", ScalarType::Float64, {E::symbol("N")});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& d = st.add_access("D");
  // D[0:N] = A[0:N, 1] (a column)
  Memlet m = Memlet::simple("A", Subset::parse("0:N, 1"));
  m.other_subset = Subset::parse("0:N");
  st.add_edge(a.id(), "", d.id(), "", m);
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK(contains(g.source, "// copy A[0:N, 1] -> D[0:N]"));
  CHECK(contains(g.source, "for (int64_t __c0 = 0; __c0 < N; ++__c0) {"));
  CHECK(contains(g.source, "D[__c0] = A[__c0*N + 1];"));
  auto p = build(*s, "copy");
  std::vector<double> A = {0, 1, 2, 3, 4, 5, 6, 7, 8}, D(3);
  int64_t n = 3;
  p->call({A.data(), D.data(), &n});
  CHECK(D == std::vector<double>{1, 4, 7});
}

TEST_CASE("nested SDFGs become functions", "[codegen][run]") {
  // B[1:N] = 2 * A[0:N-1] through a nested SDFG with M = N - 1 (`out`: the container written).
  auto make = [](const std::string& out) {
    auto inner = std::make_unique<SDFG>("inner");
    inner->add_array("X", ScalarType::Float64, {E::symbol("M")});
    inner->add_array("Y", ScalarType::Float64, {E::symbol("M")});
    {
      auto& st = inner->add_state("work", true);
      auto& x = st.add_access("X");
      auto& y = st.add_access("Y");
      auto& m = st.add_map("im", {"k"}, Subset::parse("0:M"));
      auto& t = st.add_tasklet("dbl", {"o = x * 2", Language::Python}, {"x"}, {"o"});
      st.add_memlet_path({x.id(), m.id(), t.id()}, Memlet::simple("X", Subset::parse("k")), "", "x");
      st.add_memlet_path({t.id(), m.exit, y.id()}, Memlet::simple("Y", Subset::parse("k")), "o", "");
    }
    auto s = std::make_unique<SDFG>("outer");
    s->add_array("A", ScalarType::Float64, {E::symbol("N")});
    s->add_array("B", ScalarType::Float64, {E::symbol("N")});
    auto& st = s->add_state("main", true);
    auto& a = st.add_access("A");
    auto& b = st.add_access(out);
    auto& ns = st.add_nested_sdfg("call", std::move(inner), {"X"}, {"Y"}, {{"M", E::symbol("N") - 1}});
    st.add_edge(a.id(), "", ns.id(), "X", Memlet::simple("A", Subset::parse("0:N-1")));
    st.add_edge(ns.id(), "Y", b.id(), "", Memlet::simple(out, Subset::parse("1:N")));
    s->relink_nested();
    return s;
  };
  auto s = make("B");
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  // X and Y come from distinct containers: restrict, as the top level's (vectorizable loops).
  // Small: inlined where it is called.
  CHECK(contains(g.source,
                 "static inline __attribute__((always_inline)) void weir_nested_call(double* __restrict__ X, "
                 "double* __restrict__ Y, const int64_t M) {"));
  CHECK(contains(g.source, "weir_nested_call(A, &B[1], N - 1);"));
  auto p = build(*s, "nested");
  std::vector<double> A = {1, 2, 3, 4}, B(4, 0.0);
  int64_t n = 4;
  p->call({A.data(), B.data(), &n});
  CHECK(B == std::vector<double>{0, 2, 4, 6});
  // Both from A (in place): the pointers may alias, so neither is restrict.
  GeneratedCode g2 = generate_cpu(*make("A"));
  INFO(g2.source);
  CHECK(contains(g2.source,
                 "static inline __attribute__((always_inline)) void weir_nested_call(double* X, double* Y, "
                 "const int64_t M) {"));
}

TEST_CASE("Reduce library nodes are the library-expansion pass's, not code generation's", "[codegen]") {
  // The compile path expands them (tests/transforms/test_library_expansion.cpp runs them).
  auto s = std::make_unique<SDFG>("rowsum");
  s->add_array("A", ScalarType::Float64, {E::symbol("N"), E::symbol("M")});
  s->add_array("B", ScalarType::Float64, {E::symbol("N")});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto lib = std::make_unique<LibraryNode>("sum", "Reduce");
  lib->wcr = "lambda a, b: a + b";
  lib->axes = std::vector<int>{1};
  lib->identity = "0";
  lib->in_connectors["_in"] = std::nullopt;
  lib->out_connectors["_out"] = std::nullopt;
  Node& r = st.add_node(std::move(lib));
  st.add_edge(a.id(), "", r.id(), "_in", Memlet::simple("A", Subset::parse("0:N, 0:M")));
  st.add_edge(r.id(), "_out", b.id(), "", Memlet::simple("B", Subset::parse("0:N")));
  auto msg = codegen_error(*s);
  CHECK_THAT(msg, Catch::Contains("node 2 ('sum')"));
  CHECK_THAT(msg, Catch::Contains("run the library-expansion pass first"));
}

TEST_CASE("CPP tasklets pass through verbatim (when trusted)", "[codegen]") {
  auto s = map_sdfg("b = a;");
  for (auto* st : s->all_states())
    for (auto* n : st->nodes())
      if (auto* t = n->as<Tasklet>()) t->code = {"b = a + 1.0; // C++", Language::CPP};
  CodegenOptions o;
  o.trust_code = true;
  auto g = generate_cpu(*s, o);
  CHECK(contains(g.source, "b = a + 1.0; // C++"));
}

TEST_CASE("errors name the SDFG element", "[codegen]") {
  SECTION("untranslatable tasklet code") {
    auto msg = codegen_error(*map_sdfg("b = foo(a)"));
    CHECK_THAT(msg, Catch::Contains("SDFG 'prog'"));
    CHECK_THAT(msg, Catch::Contains("state 'main'"));
    CHECK_THAT(msg, Catch::Contains("node 4 ('t')"));
    CHECK_THAT(msg, Catch::Contains("unsupported function 'foo'"));
  }
  SECTION("unknown library nodes") {
    auto s = map_sdfg("b = a");
    auto& st = *s->all_states()[0];
    auto lib = std::make_unique<LibraryNode>("es", "LibraryNode");
    // DaCe's CSRMM node (dace.libraries.sparse): weir has no expansion for it.
    lib->classpath = "dace.libraries.sparse.nodes.csrmm.CSRMM";
    st.add_node(std::move(lib));
    auto msg = codegen_error(*s);
    CHECK_THAT(msg, Catch::Contains("node 5 ('es')"));
    CHECK_THAT(
        msg, Catch::Contains("library node of type 'LibraryNode' (dace.libraries.sparse.nodes.csrmm.CSRMM)"));
  }
  SECTION("a supported library node without its edges") {
    auto s = map_sdfg("b = a");
    auto& st = *s->all_states()[0];
    auto lib = std::make_unique<LibraryNode>("chol", "LibraryNode");
    lib->classpath = "dace.libraries.linalg.nodes.cholesky.Cholesky";
    st.add_node(std::move(lib));
    // The library-expansion pass owns LAPACK's nodes (its message names the node); the code
    // generator refuses one given to it unexpanded.
    transforms::AnalysisCache cache;
    try {
      transforms::LibraryExpansion().run(*s, cache);
      FAIL("no error");
    } catch (const std::exception& e) {
      CHECK_THAT(std::string(e.what()),
                 Catch::Contains("node 5 ('chol')") &&
                     Catch::Contains("Cholesky needs an input edge on connector '_a'"));
    }
    auto msg = codegen_error(*s);
    CHECK_THAT(msg, Catch::Contains("node 5 ('chol')"));
    CHECK_THAT(msg, Catch::Contains("a Cholesky library node reaches code generation unexpanded"));
  }
  SECTION("streams") {
    auto s = map_sdfg("b = a");
    DataDescriptor d = DataDescriptor::make_array(ScalarType::Float64, {E(4)}, true);
    d.kind = DataKind::Stream;
    d.type_name = "Stream";
    s->add_data("q", d);
    CHECK_THAT(codegen_error(*s), Catch::Contains("container 'q': streams are not supported"));
  }
  SECTION("GPU schedules when GPU-as-CPU is off") {
    auto s = map_sdfg("b = a", ScheduleType::GPU_Device);
    CodegenOptions o;
    o.gpu_as_cpu = false;
    CHECK_THROWS_WITH(generate_cpu(*s, o), Catch::Contains("GPU schedule GPU_Device"));
    CHECK_NOTHROW(generate_cpu(*s));
  }
}

TEST_CASE("output is deterministic", "[codegen]") {
  auto a = generate_cpu(*map_sdfg("b = a * 2 if a > 0 else -a"));
  auto b = generate_cpu(*map_sdfg("b = a * 2 if a > 0 else -a"));
  CHECK(a.source == b.source);
  auto path = test::dace_corpus_dir() / "hdiff" / "hdiff.simplified.sdfg";
  auto s1 = load_sdfg(path.string());
  auto s2 = load_sdfg(path.string());
  CHECK(generate_cpu(*s1).source == generate_cpu(*s2).source);
}

TEST_CASE("entry points report their arguments", "[codegen][run]") {
  auto p = build(*map_sdfg("b = a + 1"), "entry");
  CHECK(std::string(p->abi_version()) == "weir-abi-1");
  CHECK(std::string(p->program_name()) == "prog");
  CHECK(std::string(p->arglist()) == arglist_json(generate_cpu(*map_sdfg("b = a + 1")).args));
  std::vector<double> A = {1, 2}, B(2);
  int64_t n = 2;
  p->call({A.data(), B.data(), &n});
  CHECK(B == std::vector<double>{2, 3});
  CHECK(p->run(nullptr, nullptr) != 0);
  CHECK_THAT(std::string(p->last_error()), Catch::Contains("no program handle"));
}

TEST_CASE("connectors named like containers or symbols are declared through temporaries", "[codegen][run]") {
  // Tasklet connectors A and N shadow the container A and the symbol N used by the memlets.
  auto s = std::make_unique<SDFG>("shadow");
  s->add_array("A", ScalarType::Float64, {E::symbol("N")});
  s->add_array("B", ScalarType::Float64, {E::symbol("N")});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& m = st.add_map("m", {"i"}, Subset::parse("0:N"));
  auto& t = st.add_tasklet("t", {"B = A * 2 + N", Language::Python}, {"A", "N"}, {"B"});
  st.add_memlet_path({a.id(), m.id(), t.id()}, Memlet::simple("A", Subset::parse("N - 1 - i")), "", "A");
  st.add_memlet_path({a.id(), m.id(), t.id()}, Memlet::simple("A", Subset::parse("0")), "", "N");
  st.add_memlet_path({t.id(), m.exit, b.id()}, Memlet::simple("B", Subset::parse("i")), "B", "");
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK(contains(g.source, "double __weir_in_A = A[N - i - 1];"));
  CHECK(contains(g.source, "double A = __weir_in_A;"));
  CHECK(contains(g.source, "B[i] = __weir_out_B;"));
  auto p = build(*s, "shadow");
  std::vector<double> A = {1, 2, 3}, B(3);
  std::int64_t n = 3;
  p->call({A.data(), B.data(), &n});
  CHECK(B == std::vector<double>{7, 5, 3});
}

TEST_CASE("conditions read data, return blocks end the program", "[codegen][run]") {
  // if A[1] > 0.5: return; then B[0] = 7
  auto s = std::make_unique<SDFG>("early");
  s->add_array("A", ScalarType::Float64, {E(2)});
  s->add_array("B", ScalarType::Float64, {E(1)});
  auto& cond = s->add_conditional("check");
  auto& br = cond.add_branch(CodeBlock{"A[1] > 0.5", Language::Python}, "stop");
  br.add_block(std::make_unique<ControlTransferBlock>(BlockKind::Return, "ret"), true);
  auto& st = s->add_state("write");
  auto& w = st.add_access("B");
  auto& t = st.add_tasklet("seven", {"o = 7", Language::Python}, {}, {"o"});
  st.add_edge(t.id(), "o", w.id(), "", Memlet::simple("B", Subset::parse("0")));
  s->add_edge(cond.id(), st.id());
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK(contains(g.source, "if (A[1] > 0.5) {\nreturn 0;\n}"));
  auto p = build(*s, "early");
  std::vector<double> A = {0, 1};
  double B = 0;
  p->call({A.data(), &B});
  CHECK(B == 0.0);
  A[1] = 0;
  p->call({A.data(), &B});
  CHECK(B == 7.0);
}

TEST_CASE("dynamic and multi-element inputs are references and pointers", "[codegen][run]") {
  // B[i] = A[i, 0] + A[i, 1] through a pointer connector (row i), and a dynamic single element.
  auto s = std::make_unique<SDFG>("rows");
  s->add_array("A", ScalarType::Float64, {E::symbol("N"), E(2)});
  s->add_array("B", ScalarType::Float64, {E::symbol("N")});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& m = st.add_map("m", {"i"}, Subset::parse("0:N"));
  auto& t = st.add_tasklet("t", {"o = row[0] + row[1] + d", Language::Python}, {"row", "d"}, {"o"});
  st.add_memlet_path({a.id(), m.id(), t.id()}, Memlet::simple("A", Subset::parse("i, 0:2")), "", "row");
  Memlet dyn = Memlet::simple("A", Subset::parse("i, 0"));
  dyn.dynamic = true;
  st.add_memlet_path({a.id(), m.id(), t.id()}, dyn, "", "d");
  st.add_memlet_path({t.id(), m.exit, b.id()}, Memlet::simple("B", Subset::parse("i")), "o", "");
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  CHECK(contains(g.source, "const double* row = &A[i*2];"));
  CHECK(contains(g.source, "const double& d = A[i*2];"));
  CHECK(contains(g.source, "o = row[0] + row[1] + d;"));
  auto p = build(*s, "rows");
  std::vector<double> A = {1, 2, 3, 4}, B(2);
  std::int64_t n = 2;
  p->call({A.data(), B.data(), &n});
  CHECK(B == std::vector<double>{4, 10});
}

TEST_CASE("a small map over nested SDFGs of bounded work runs sequentially", "[codegen][run]") {
  // B[i] = 2 * A[i] for even i through a nested SDFG per point: `branch` puts the tasklet under a
  // conditional (bounded work per call: the map counts its points like a flat body, as the
  // masked update DaCe writes for mandelbrot1); `loop` adds A[i] three times in a loop region
  // (work unknown: always parallel).
  auto make = [](bool loop) {
    auto inner = std::make_unique<SDFG>("per_point");
    inner->add_symbol("j");
    inner->add_array("x", ScalarType::Float64, {E(1)});
    inner->add_array("y", ScalarType::Float64, {E(1)});
    ControlFlowRegion* body = inner.get();
    if (loop) {
      body = &inner->add_loop("three", "k", "k = 0", "k < 3", "k = k + 1");
    } else {
      body = &inner->add_conditional("even").add_branch(CodeBlock{"j % 2 == 0", Language::Python}, "yes");
    }
    auto& st = body->add_state("work", true);
    auto& t =
        st.add_tasklet("t", {loop ? "o = x + y" : "o = x * 2", Language::Python},
                       loop ? std::vector<std::string>{"x", "y"} : std::vector<std::string>{"x"}, {"o"});
    st.add_edge(st.add_access("x").id(), "", t.id(), "x", Memlet::simple("x", Subset::parse("0")));
    if (loop) st.add_edge(st.add_access("y").id(), "", t.id(), "y", Memlet::simple("y", Subset::parse("0")));
    st.add_edge(t.id(), "o", st.add_access("y").id(), "", Memlet::simple("y", Subset::parse("0")));
    auto s = std::make_unique<SDFG>(loop ? "loop_points" : "branch_points");
    s->add_array("A", ScalarType::Float64, {E::symbol("N")});
    s->add_array("B", ScalarType::Float64, {E::symbol("N")});
    auto& st2 = s->add_state("main", true);
    auto& a = st2.add_access("A");
    auto& b = st2.add_access("B");
    auto& m = st2.add_map("points", {"i"}, Subset::parse("0:N"));
    auto& ns = st2.add_nested_sdfg("call", std::move(inner),
                                   loop ? std::vector<std::string>{"x", "y"} : std::vector<std::string>{"x"},
                                   {"y"}, {{"j", E::symbol("i")}});
    st2.add_memlet_path({a.id(), m.id(), ns.id()}, Memlet::simple("A", Subset::parse("i")), "", "x");
    if (loop)
      st2.add_memlet_path({b.id(), m.id(), ns.id()}, Memlet::simple("B", Subset::parse("i")), "", "y");
    st2.add_memlet_path({ns.id(), m.exit, st2.add_access("B").id()}, Memlet::simple("B", Subset::parse("i")),
                        "y", "");
    s->relink_nested();
    return s;
  };
  auto bounded = make(false);
  std::string code = generate_cpu(*bounded).source;
  INFO(code);
  CHECK(contains(code, "const bool weir_tiny = weir_points < 4096.0;"));
  auto p = build(*bounded, "branch_points");
  std::vector<double> A = {1, 2, 3, 4, 5}, B(5, 0.0);
  int64_t n = 5;
  p->call({A.data(), B.data(), &n});
  CHECK(B == std::vector<double>{2, 0, 6, 0, 10});

  // The loop's work is unknown: the map chooses at run time from measured times, and its first
  // calls run in parallel whatever the count of points (ADR 0053, session 30).
  auto looping = make(true);
  std::string code2 = generate_cpu(*looping).source;
  INFO(code2);
  CHECK(contains(code2, "const bool weir_tiny = false;"));
  CHECK(contains(code2, "if (weir_tiny || weir_run_sequentially(weir_times, weir_points, true)) {"));
  CHECK(contains(code2, "#pragma omp parallel for"));
  auto p2 = build(*looping, "loop_points");
  for (int call = 0; call < 3; ++call) {
    std::vector<double> B2(5, 0.0);
    p2->call({A.data(), B2.data(), &n});
    CHECK(B2 == std::vector<double>{3, 6, 9, 12, 15});
  }
  // Many points: parallel from the first call (nothing measured), the same values.
  std::vector<double> big(40000), B3(40000, 0.0);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<double>(i % 7);
  int64_t nb = 40000;
  p2->call({big.data(), B3.data(), &nb});
  bool all = true;
  for (std::size_t i = 0; i < big.size(); ++i) all = all && B3[i] == 3 * big[i];
  CHECK(all);
}
