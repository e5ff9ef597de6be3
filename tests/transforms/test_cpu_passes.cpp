// Tests of the CPU passes of auto_optimize: local storage for accumulations (compiled and run
// on the cpu backend before and after, against a C++ loop nest), transient reuse (reference
// interpreter before/after) and CPU schedules with SIMD hints (structure and generated code).
#include <catch2/catch.hpp>

#include "../runtime/runtime_test_util.h"
#include "support/builders.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/sdfg/omp_schedule.h"
#include "weir/sdfg/reduction_choice.h"
#include "weir/sdfg/streaming_choice.h"
#include "weir/sdfg/thread_choice.h"
#include "weir/transforms/cpu_schedules.h"
#include "weir/transforms/local_storage.h"
#include "weir/transforms/transient_reuse.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;

namespace {

/// C[i] += A[i, j] * 2 over i in 0:N (outer) and j in 0:M (inner, sequential), with WCR.
std::unique_ptr<SDFG> make_row_sum() {
  auto sdfg = std::make_unique<SDFG>("row_sum");
  sdfg->add_symbol("N");
  sdfg->add_symbol("M");
  sdfg->add_array("A", ScalarType::Float64, {E("N"), E("M")});
  sdfg->add_array("C", ScalarType::Float64, {E("N")});
  SDFGState& st = sdfg->add_state("main", true);
  auto& a = st.add_access("A");
  auto& c = st.add_access("C");
  auto& o = st.add_map("rows", {"i"}, S("0:N"));
  auto& in = st.add_map("cols", {"j"}, S("0:M"), ScheduleType::Sequential);
  auto& t = st.add_tasklet("acc", {"c = a * 2", Language::Python}, {"a"}, {"c"});
  path_in(st, a.id(), {o.id(), in.id()}, t.id(), "a", {M("A", "0:N, 0:M"), M("A", "i, 0:M"), M("A", "i, j")});
  std::string sum = "lambda a, b: a + b";
  path_out(st, t.id(), "c", {in.exit, o.exit}, c.id(),
           {Memlet::simple("C", S("i"), sum), Memlet::simple("C", S("i"), sum),
            Memlet::simple("C", S("0:N"), sum)});
  return sdfg;
}

std::vector<double> run_row_sum(const SDFG& sdfg, const std::string& cache) {
  weir::test::fresh_cache(cache);
  const std::int64_t N = 7, M = 13;
  runtime::Arguments args;
  args.arrays.emplace("A", runtime::Allocator::cpu().allocate(ScalarType::Float64, {N, M}));
  args.arrays.emplace("C", runtime::Allocator::cpu().allocate(ScalarType::Float64, {N}));
  auto* a = static_cast<double*>(args.arrays.at("A").data());
  for (std::int64_t k = 0; k < N * M; ++k) a[k] = static_cast<double>((k * 37) % 11) - 5.0;
  auto* c = static_cast<double*>(args.arrays.at("C").data());
  for (std::int64_t k = 0; k < N; ++k) c[k] = static_cast<double>(k);
  runtime::CompilableProgram p;
  p.sdfg = sdfg.clone_sdfg();
  p.origin = sdfg.name;
  auto backend = runtime::make_cpu_backend();
  runtime::run(*backend, p, args);
  return std::vector<double>(c, c + N);
}

}  // namespace

TEST_CASE("local-storage: an inner-map sum accumulates in a register scalar", "[transforms][local-storage]") {
  auto sdfg = make_row_sum();
  auto before = sdfg->clone_sdfg();
  AnalysisCache cache;
  LocalStorage pass;
  CHECK(pass.run(*sdfg, cache) == 1);
  require_valid(*sdfg);
  REQUIRE(sdfg->has_data("C_acc_0"));
  CHECK(sdfg->data("C_acc_0").storage == StorageType::Register);
  // The accumulator sits between the two exits; C is written once per row.
  SDFGState& st = only_state(*sdfg);
  auto acc = st.access_nodes("C_acc_0");
  REQUIRE(acc.size() == 1);
  REQUIRE(st.in_edges(acc[0]->id()).size() == 1);
  REQUIRE(st.out_edges(acc[0]->id()).size() == 1);
  CHECK(st.node(st.edge(st.out_edges(acc[0]->id())[0]).dst).as<MapExit>() != nullptr);
  CHECK(pass.run(*sdfg, cache) == 0);  // nothing left to rewrite

  // Same results as before and as a C++ loop nest.
  std::vector<double> want(7);
  for (int i = 0; i < 7; ++i) {
    want[static_cast<std::size_t>(i)] = i;
    for (int j = 0; j < 13; ++j) want[static_cast<std::size_t>(i)] += 2.0 * (((i * 13 + j) * 37) % 11 - 5.0);
  }
  CHECK(run_row_sum(*before, "local-storage-before") == want);
  CHECK(run_row_sum(*sdfg, "local-storage-after") == want);
}

TEST_CASE("transient-reuse: a transient dead before another is written lends it its buffer",
          "[transforms][transient-reuse]") {
  // A -> T1 -> T2 -> T3 -> C, each a point-wise map over 0:N.
  auto sdfg = std::make_unique<SDFG>("reuse");
  sdfg->add_symbol("N");
  sdfg->add_array("A", ScalarType::Float64, {E("N")});
  sdfg->add_array("C", ScalarType::Float64, {E("N")});
  for (const char* t : {"T1", "T2", "T3"}) sdfg->add_array(t, ScalarType::Float64, {E("N")}, true);
  SDFGState& st = sdfg->add_state("main", true);
  std::vector<std::string> chain{"A", "T1", "T2", "T3", "C"};
  NodeId prev = st.add_access("A").id();
  for (std::size_t k = 1; k < chain.size(); ++k) {
    NodeId next = st.add_access(chain[k]).id();
    auto& m = st.add_map("m" + std::to_string(k), {"i"}, S("0:N"));
    auto& t = st.add_tasklet("t" + std::to_string(k), {"y = x * 2 + " + std::to_string(k), Language::Python},
                             {"x"}, {"y"});
    path_in(st, prev, {m.id()}, t.id(), "x", {M(chain[k - 1], "0:N"), M(chain[k - 1], "i")});
    path_out(st, t.id(), "y", {m.exit}, next, {M(chain[k], "i"), M(chain[k], "0:N")});
    prev = next;
  }
  auto before = sdfg->clone_sdfg();
  AnalysisCache cache;
  TransientReuse pass;
  CHECK(pass.run(*sdfg, cache) == 1);
  require_valid(*sdfg);
  CHECK(sdfg->has_data("T1"));
  CHECK(sdfg->has_data("T2"));
  CHECK(!sdfg->has_data("T3"));  // T3 lives in T1's buffer
  CHECK(st.access_nodes("T1").size() == 2);
  for (long long n : {1LL, 4LL, 9LL})
    for (unsigned seed : {1u, 7u})
      CHECK(run_program(*before, {{"N", n}}, seed) == run_program(*sdfg, {{"N", n}}, seed));
  // The compiled program shares the buffer too and computes C = ((((A*2+1)*2+2)*2+3)*2+4).
  weir::test::fresh_cache("transient-reuse");
  runtime::Arguments args;
  args.arrays.emplace("A", runtime::Allocator::cpu().allocate(ScalarType::Float64, {6}));
  args.arrays.emplace("C", runtime::Allocator::cpu().allocate(ScalarType::Float64, {6}));
  auto* a = static_cast<double*>(args.arrays.at("A").data());
  for (int k = 0; k < 6; ++k) a[k] = k - 2.5;
  runtime::CompilableProgram p;
  p.sdfg = sdfg->clone_sdfg();
  p.origin = "reuse";
  runtime::run(*runtime::make_cpu_backend(), p, args);
  const auto* c = static_cast<const double*>(args.arrays.at("C").data());
  for (int k = 0; k < 6; ++k) CHECK(c[k] == (((((k - 2.5) * 2 + 1) * 2 + 2) * 2 + 3) * 2 + 4));
}

TEST_CASE("cpu-schedules: OpenMP outside, a SIMD-hinted unit-stride loop inside",
          "[transforms][cpu-schedules]") {
  auto sdfg = make_map2d(false);
  auto before = sdfg->clone_sdfg();
  AnalysisCache cache;
  CpuSchedules pass;
  CHECK(pass.run(*sdfg, cache) >= 3);
  require_valid(*sdfg);
  auto maps = maps_of(only_state(*sdfg));
  REQUIRE(maps.size() == 2);
  CHECK(maps[0]->map->schedule == ScheduleType::CPU_Multicore);
  CHECK(maps[0]->map->params == std::vector<std::string>{"i"});
  CHECK(maps[1]->map->schedule == ScheduleType::Sequential);
  CHECK(maps[1]->map->params == std::vector<std::string>{"j"});
  REQUIRE(maps[1]->map->extra.find(kVectorizeAttribute));
  // The hint survives saving and loading.
  auto reloaded = sdfg_from_json_text(sdfg_to_json_text(*sdfg));
  CHECK(sdfg_difference(*reloaded, *sdfg).empty());
  std::string code = codegen::generate_cpu(*sdfg).source;
  // In the parallel copy of the nest (the one-thread copy comes first) the SIMD loop is inside.
  // (The inner map streams its output rows: the loop is a `#pragma omp for nowait` in a region
  // of its own whose threads fence them, docs/adr/0041.)
  auto par = code.find("#pragma omp for nowait");
  REQUIRE(par != std::string::npos);
  auto simd = code.find("#pragma omp simd", par);
  REQUIRE(simd != std::string::npos);
  CHECK(code.find("for (int64_t j", simd) != std::string::npos);
  for (unsigned seed : {1u, 7u})
    CHECK(run_program(*before, {{"N", 5}, {"M", 7}}, seed) == run_program(*sdfg, {{"N", 5}, {"M", 7}}, seed));
}

TEST_CASE("cpu-schedules: a split map keeps the small-map threshold over all its points",
          "[transforms][cpu-schedules]") {
  // Before, the parallel map with the inner sequential map that split_innermost creates always
  // entered OpenMP (the threshold looked at flat bodies only): a fork/join per call for 80 x 80
  // points where the unsplit map ran sequentially.
  auto sdfg = make_map2d(false);
  AnalysisCache cache;
  CpuSchedules pass;
  pass.run(*sdfg, cache);
  REQUIRE(maps_of(only_state(*sdfg)).size() == 2);
  std::string code = codegen::generate_cpu(*sdfg).source;
  // The choice counts the points of both maps (M*N), not the rows only.
  CHECK(code.find("const double weir_points = static_cast<double>(M*N);") != std::string::npos);
  // (A map that may stream also runs its parallel branch on a program of one thread:
  // weir_stream_one_thread, docs/adr/0041 session 38.)
  auto seq = code.find(
      "if (weir_tiny || (weir_run_sequentially(weir_times, weir_points) && "
      "!weir_stream_one_thread(weir_points))) {");
  REQUIRE(seq != std::string::npos);
  // The parallel copy of the nest follows the sequential one.
  auto other = code.find("} else {", seq);
  REQUIRE(other != std::string::npos);
  CHECK(code.find("#pragma omp parallel\n", other) != std::string::npos);
  CHECK(code.find("#pragma omp for nowait", other) != std::string::npos);
}

TEST_CASE("cpu-schedules: a reduction dimension is not distributed over threads",
          "[transforms][cpu-schedules]") {
  // C[i] += A[j, i] over one 2-D map (i, j), as DaCe's Reduce nodes write `reduce_output`:
  // collapsing j too made every update an atomic one (correlation's column sums after weir's
  // pipeline ran 2x slower than DaCe's file as is).
  auto sdfg = std::make_unique<SDFG>("column_sum");
  sdfg->add_symbol("N");
  sdfg->add_symbol("M");
  sdfg->add_array("A", ScalarType::Float64, {E("M"), E("N")});
  sdfg->add_array("C", ScalarType::Float64, {E("N")});
  SDFGState& st = sdfg->add_state("main", true);
  auto& a = st.add_access("A");
  auto& c = st.add_access("C");
  auto& m = st.add_map("reduce_output", {"i", "j"}, S("0:N, 0:M"));
  auto& t = st.add_tasklet("identity", {"c = a", Language::Python}, {"a"}, {"c"});
  path_in(st, a.id(), {m.id()}, t.id(), "a", {M("A", "0:M, 0:N"), M("A", "j, i")});
  std::string sum = "lambda a, b: a + b";
  path_out(st, t.id(), "c", {m.exit}, c.id(),
           {Memlet::simple("C", S("i"), sum), Memlet::simple("C", S("0:N"), sum)});
  require_valid(*sdfg);
  auto before = sdfg->clone_sdfg();
  AnalysisCache cache;
  CpuSchedules pass;
  pass.run(*sdfg, cache);
  require_valid(*sdfg);
  auto maps = maps_of(only_state(*sdfg));
  REQUIRE(maps.size() == 1);
  CHECK(maps[0]->map->schedule == ScheduleType::CPU_Multicore);
  CHECK(maps[0]->map->collapse == 1);
  std::string code = codegen::generate_cpu(*sdfg).source;
  CHECK(code.find("#pragma omp parallel for\n") != std::string::npos);
  CHECK(code.find("collapse(") == std::string::npos);
  CHECK(code.find("#pragma omp atomic\n") == std::string::npos);
  for (unsigned seed : {1u, 7u})
    CHECK(run_program(*before, {{"N", 5}, {"M", 7}}, seed) == run_program(*sdfg, {{"N", 5}, {"M", 7}}, seed));
  // Without a write conflict both dimensions are distributed, as before (the unit-stride split
  // off, which would take j into an inner map first).
  auto plain = make_map2d(false);
  auto& pst = only_state(*plain);
  CpuSchedules no_split;
  no_split.options().set("split_innermost", false);
  AnalysisCache plain_cache;
  no_split.run(*plain, plain_cache);
  auto pmaps = maps_of(pst);
  REQUIRE(pmaps.size() == 1);
  CHECK(pmaps[0]->map->collapse == 2);
}

TEST_CASE("cpu-schedules: records on each parallel map whether it runs on one thread, many or measured",
          "[transforms][cpu-schedules]") {
  // B[i] = A[i] + 1 over `range` (A and B of 40000 elements).
  auto make = [](const std::string& range) {
    auto sdfg = std::make_unique<SDFG>("one_map");
    sdfg->add_array("A", ScalarType::Float64, {E("40000")});
    sdfg->add_array("B", ScalarType::Float64, {E("40000")});
    SDFGState& st = sdfg->add_state("main", true);
    auto& a = st.add_access("A");
    auto& b = st.add_access("B");
    auto& m = st.add_map("m", {"i"}, S(range));
    auto& t = st.add_tasklet("t", {"b = a + 1", Language::Python}, {"a"}, {"b"});
    path_in(st, a.id(), {m.id()}, t.id(), "a", {M("A", range), M("A", "i")});
    path_out(st, t.id(), "b", {m.exit}, b.id(), {M("B", "i"), M("B", range)});
    return sdfg;
  };
  // The generated function of the state (the prelude before it has pragmas of its own).
  auto state_code = [](const SDFG& s) {
    std::string code = codegen::generate_cpu(s).source;
    auto start = code.find("static void weir_state_0_main(");
    REQUIRE(start != std::string::npos);
    return code.substr(start, code.find("\n}\n", start) - start);
  };
  auto recorded = [](SDFG& s, const char* key) {
    const std::string* v = maps_of(only_state(s))[0]->map->extra.find(key);
    return v ? *v : std::string("absent");
  };
  AnalysisCache cache;
  CpuSchedules pass;
  // A constant count of flat points below kMinParallelIterations (32768): one thread.
  auto few = make("0:100");
  pass.run(*few, cache);
  require_valid(*few);
  CHECK(recorded(*few, kThreadsAttribute) == "\"one\"");
  CHECK(recorded(*few, kPointsAttribute) == "absent");
  CHECK(state_code(*few).find("#pragma omp") == std::string::npos);
  // 40,000 points: many threads, nothing measured.
  auto many = make("0:40000");
  AnalysisCache many_cache;
  pass.run(*many, many_cache);
  CHECK(recorded(*many, kThreadsAttribute) == "\"many\"");
  std::string code = state_code(*many);
  CHECK(code.find("#pragma omp parallel for\n") != std::string::npos);
  CHECK(code.find("weir_run_sequentially") == std::string::npos);
  // A split 2-D map of N x M points: measured at run time over all M*N points; the inner
  // (sequential) map gets no record, and one a user wrote there is cleared.
  auto split = make_map2d(false);
  AnalysisCache split_cache;
  pass.run(*split, split_cache);
  auto maps = maps_of(only_state(*split));
  REQUIRE(maps.size() == 2);
  CHECK(*maps[0]->map->extra.find(kThreadsAttribute) == "\"measured\"");
  CHECK(*maps[0]->map->extra.find(kPointsAttribute) == "\"M*N\"");
  CHECK(maps[1]->map->extra.find(kThreadsAttribute) == nullptr);
  // The record survives saving and loading, and a second run finds it and changes nothing.
  auto reloaded = sdfg_from_json_text(sdfg_to_json_text(*split));
  CHECK(sdfg_difference(*reloaded, *split).empty());
  AnalysisCache reloaded_cache;
  CHECK(pass.run(*reloaded, reloaded_cache) == 0);
  maps[1]->map->extra.set(kThreadsAttribute, "\"many\"");
  AnalysisCache again;
  CHECK(pass.run(*split, again) == 1);
  CHECK(maps[1]->map->extra.find(kThreadsAttribute) == nullptr);
}

TEST_CASE("cpu-schedules: omp_schedule records an OpenMP schedule on parallel maps without reductions",
          "[transforms][cpu-schedules]") {
  SECTION("the parallel map gets it, the sequential one inside does not; the code uses it") {
    auto sdfg = make_map2d(false);
    AnalysisCache cache;
    CpuSchedules pass;
    pass.options().set_text("omp_schedule", "dynamic,16");
    pass.run(*sdfg, cache);
    require_valid(*sdfg);
    auto maps = maps_of(only_state(*sdfg));
    REQUIRE(maps.size() == 2);
    REQUIRE(maps[0]->map->extra.find(kOmpScheduleAttribute));
    CHECK(*maps[0]->map->extra.find(kOmpScheduleAttribute) == "\"dynamic,16\"");
    CHECK_FALSE(maps[1]->map->extra.find(kOmpScheduleAttribute));
    std::string code = codegen::generate_cpu(*sdfg).source;
    // `#pragma omp parallel for ...`, or `#pragma omp for ... nowait` in a region of its own where
    // each thread fences its streamed output rows after the loops (ADR 0041).
    CHECK((code.find("#pragma omp parallel for schedule(dynamic, 16)\n") != std::string::npos ||
           code.find("#pragma omp for schedule(dynamic, 16) nowait\n") != std::string::npos));
    // Running the pass again records nothing new.
    AnalysisCache again;
    CHECK(*maps[0]->map->extra.find(kOmpScheduleAttribute) == "\"dynamic,16\"");
    auto copy = sdfg->clone_sdfg();
    pass.run(*sdfg, again);
    CHECK(sdfg_difference(*copy, *sdfg).empty());
  }
  SECTION("a map that reduces keeps the static default (a float sum's rounding stays fixed)") {
    auto sdfg = make_row_sum();
    AnalysisCache cache;
    CpuSchedules pass;
    pass.options().set_text("omp_schedule", "guided");
    pass.run(*sdfg, cache);
    for (MapEntry* e : maps_of(only_state(*sdfg))) CHECK_FALSE(e->map->extra.find(kOmpScheduleAttribute));
    // In the program's own code, after the prelude (whose table check has a schedule clause).
    const std::string src = codegen::generate_cpu(*sdfg).source;
    CHECK(src.find("schedule(", src.find("// --- SDFG")) == std::string::npos);
  }
  SECTION("empty, the default: nothing recorded") {
    auto sdfg = make_map2d(false);
    AnalysisCache cache;
    CpuSchedules pass;
    pass.run(*sdfg, cache);
    for (MapEntry* e : maps_of(only_state(*sdfg))) CHECK_FALSE(e->map->extra.find(kOmpScheduleAttribute));
  }
  SECTION("a value that is no schedule is refused before anything changes") {
    for (const std::string bad : {"dynamc", "dynamic,0", "static,x", "guided,", "dynamic,16,2"}) {
      INFO(bad);
      auto sdfg = make_map2d(false);
      auto before = sdfg->clone_sdfg();
      AnalysisCache cache;
      CpuSchedules pass;
      pass.options().set_text("omp_schedule", bad);
      try {
        pass.run(*sdfg, cache);
        FAIL("no error");
      } catch (const TransformError& e) {
        CHECK_THAT(e.what(),
                   Catch::Contains("cpu-schedules: option 'omp_schedule': OpenMP schedule '" + bad + "'"));
      }
      CHECK(sdfg_difference(*before, *sdfg).empty());
    }
  }
}

TEST_CASE("cpu-schedules: streaming_stores=false records streaming stores off on the top-level maps",
          "[transforms][cpu-schedules]") {
  SECTION("the top-level map gets it, the sequential one inside does not; a second run changes nothing") {
    auto sdfg = make_map2d(false);
    AnalysisCache cache;
    CpuSchedules pass;
    pass.options().set_text("streaming_stores", "false");
    CHECK(pass.run(*sdfg, cache) > 0);
    require_valid(*sdfg);
    auto maps = maps_of(only_state(*sdfg));
    REQUIRE(maps.size() == 2);
    CHECK(recorded_streaming_stores(*maps[0]->map) == std::optional<bool>(false));
    CHECK_FALSE(maps[1]->map->extra.find(kStreamingStoresAttribute));
    auto copy = sdfg->clone_sdfg();
    AnalysisCache again;
    pass.run(*sdfg, again);
    CHECK(sdfg_difference(*copy, *sdfg).empty());
  }
  SECTION("true, the default: nothing recorded") {
    auto sdfg = make_map2d(false);
    AnalysisCache cache;
    CpuSchedules pass;
    pass.run(*sdfg, cache);
    for (MapEntry* e : maps_of(only_state(*sdfg))) CHECK_FALSE(e->map->extra.find(kStreamingStoresAttribute));
  }
}

TEST_CASE("cpu-schedules: records the per-thread copies and partials the analysis proves",
          "[transforms][cpu-schedules]") {
  // H[B[i]] += W[i] over i < N (a scatter into 16 bins: per-thread copies), H[0] += W[i] (one
  // element in every iteration: a per-thread partial); with `reads`, the tasklet also reads H[0]
  // (neither may be used: the map would read a copy or a stale element).
  enum class Kind { Scatter, OneElement, Reads };
  auto make = [](Kind kind) {
    auto sdfg = std::make_unique<SDFG>("reductions");
    sdfg->add_symbol("N");
    sdfg->add_array("B", ScalarType::Int64, {E("N")});
    sdfg->add_array("W", ScalarType::Float64, {E("N")});
    sdfg->add_array("H", ScalarType::Float64, {E("16")});
    SDFGState& st = sdfg->add_state("main", true);
    auto& m = st.add_map("m", {"i"}, S("0:N"));
    std::vector<std::string> ins{"b", "w"};
    if (kind == Kind::Reads) ins.push_back("h0");
    auto& t =
        st.add_tasklet("t", {kind == Kind::OneElement ? "h = w" : "h[b] = w", Language::Python}, ins, {"h"});
    path_in(st, st.add_access("B").id(), {m.id()}, t.id(), "b", {M("B", "0:N"), M("B", "i")});
    path_in(st, st.add_access("W").id(), {m.id()}, t.id(), "w", {M("W", "0:N"), M("W", "i")});
    if (kind == Kind::Reads) path_in(st, st.add_access("H").id(), {m.id()}, t.id(), "h0", {M("H", "0")});
    Memlet inner = M("H", kind == Kind::OneElement ? "0" : "0:16");
    inner.dynamic = kind != Kind::OneElement;
    inner.wcr = "lambda a, b: a + b";
    Memlet outer = M("H", "0:16");
    outer.wcr = inner.wcr;
    path_out(st, t.id(), "h", {m.exit}, st.add_access("H").id(), {inner, outer});
    return sdfg;
  };
  auto recorded = [](SDFG& s, const char* key) {
    const std::string* v = maps_of(only_state(s))[0]->map->extra.find(key);
    return v ? *v : std::string("absent");
  };
  // Without the records the code generator decides itself, the same way.
  auto without_records = [](SDFG& s) {
    auto copy = sdfg_from_json_text(sdfg_to_json_text(s));
    for (MapEntry* e : maps_of(only_state(*copy))) clear_reductions(*e->map);
    return codegen::generate_cpu(*copy).source;
  };
  CpuSchedules pass;
  pass.options().set("split_innermost", false);
  for (auto [kind, partials, copies] :
       {std::tuple<Kind, const char*, const char*>{Kind::Scatter, "[]", "[\"H\"]"},
        {Kind::OneElement, "[\"H\"]", "[]"},
        {Kind::Reads, "[]", "[]"}}) {
    INFO("kind " << static_cast<int>(kind));
    auto s = make(kind);
    require_valid(*s);
    AnalysisCache cache;
    pass.run(*s, cache);
    require_valid(*s);
    CHECK(recorded(*s, kPartialsAttribute) == partials);
    CHECK(recorded(*s, kPrivatizedAttribute) == copies);
    std::string code = codegen::generate_cpu(*s).source;
    CHECK(code == without_records(*s));
    CHECK((code.find("__weir_copies_H") != std::string::npos) == (kind == Kind::Scatter));
    CHECK((code.find("__weir_part") != std::string::npos) == (kind == Kind::OneElement));
    // The records survive saving and loading; a second run changes nothing.
    auto reloaded = sdfg_from_json_text(sdfg_to_json_text(*s));
    CHECK(sdfg_difference(*reloaded, *s).empty());
    AnalysisCache again;
    CHECK(recorded(*reloaded, kPartialsAttribute) == partials);
    CHECK(recorded(*reloaded, kPrivatizedAttribute) == copies);
    CHECK(pass.run(*reloaded, again) == 0);
  }
}
