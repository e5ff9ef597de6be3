// The run-time choice between one thread and a parallel loop (parallel_threshold.cpp, the
// prelude's weir_run_sequentially and weir_map_ran), driven with given times instead of clock
// reads: which branch each of a map's calls takes, as a string of 'S' (one thread) and 'P'.
// And the choice recorded on a map (weir_threads, weir/sdfg/thread_choice.h), which the code
// generator obeys as written.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/sdfg/thread_choice.h"
#include "weir/transforms/script.h"

using namespace weir;

namespace {

/// Appended to a generated program: runs `calls` choices of one map of `points` points on two
/// threads; the k-th one-thread run takes seq[min(k, n - 1)] seconds per point, the k-th
/// parallel run par[...] likewise; `unknown_work`: the map's body has loops (not flat).
const char* kDriver = R"(
extern "C" void weir_test_choices(const double* seq, int nseq, const double* par, int npar, double points,
                                  int calls, int unknown_work, char* out) {
    omp_set_num_threads(2);
    weir_map_times t;
    int s = 0, p = 0;
    for (int c = 0; c < calls; ++c) {
        if (weir_run_sequentially(t, points, unknown_work != 0)) {
            out[c] = 'S';
            weir_map_ran(t.sequential, t.sequential_runs, seq[s < nseq ? s : nseq - 1]);
            ++s;
        } else {
            out[c] = 'P';
            weir_map_ran(t.parallel, t.parallel_runs, par[p < npar ? p : npar - 1]);
            ++p;
        }
    }
    out[calls] = '\0';
}
)";

using ChoicesFn = void (*)(const double*, int, const double*, int, double, int, int, char*);

class Choices {
 public:
  // `name`: the test case's own scratch folder (ctest runs the cases in parallel, and a scratch
  // folder is emptied when taken: a shared one lost another case's library).
  explicit Choices(const std::string& name) {
    codegen::GeneratedCode g = codegen::generate_cpu(*test::map_program("b = a * 2"));
    program_ = std::make_unique<test::LoadedProgram>(
        test::compile_shared(g.source + kDriver, test::scratch_dir("parallel_choice_" + name)));
    fn_ = reinterpret_cast<ChoicesFn>(program_->symbol("weir_test_choices"));
    REQUIRE(fn_ != nullptr);
  }
  std::string operator()(const std::vector<double>& seq, const std::vector<double>& par, double points,
                         int calls, bool unknown_work = false) const {
    std::string out(static_cast<std::size_t>(calls) + 1, '\0');
    fn_(seq.data(), static_cast<int>(seq.size()), par.data(), static_cast<int>(par.size()), points, calls,
        unknown_work ? 1 : 0, out.data());
    out.resize(static_cast<std::size_t>(calls));
    return out;
  }

 private:
  std::unique_ptr<test::LoadedProgram> program_;
  ChoicesFn fn_ = nullptr;
};

std::string repeat(char c, int n) { return std::string(static_cast<std::size_t>(n), c); }

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// The generated function of state "main" (the prelude before it has pragmas of its own).
std::string state_function(const std::string& code) {
  auto start = code.find("static void weir_state_0_main(");
  REQUIRE(start != std::string::npos);
  return code.substr(start, code.find("\n}\n", start) - start);
}

/// B[i] = A[i] * 2 + 1 over i in 0:N on CPU_Multicore with `threads` and `points` (JSON texts,
/// nullptr: absent) recorded on the map.
std::unique_ptr<SDFG> recorded_map(const char* threads, const char* points = nullptr) {
  auto s = test::map_program("b = a * 2 + 1", Language::Python, ScheduleType::CPU_Multicore);
  for (Node* n : s->all_states().front()->nodes())
    if (auto* e = n->as<MapEntry>()) {
      if (threads) e->map->extra.set(kThreadsAttribute, threads);
      if (points) e->map->extra.set(kPointsAttribute, points);
    }
  return s;
}

/// Compiles `s` (scratch folder `name`), runs it over N = 5 and returns B.
std::vector<double> run_recorded(const SDFG& s, const std::string& name) {
  codegen::GeneratedCode g = codegen::generate_cpu(s);
  test::LoadedProgram p(test::compile_shared(g.source, test::scratch_dir("parallel_choice_" + name)));
  std::vector<double> A = {1, -2, 3.5, 0, 10}, B(5, 0.0);
  int64_t n = 5;
  p.call({A.data(), B.data(), &n});
  return B;
}

}  // namespace

TEST_CASE("parallel choice: a slow first run on one thread is a warm-up, not a measurement",
          "[codegen][parallel-choice]") {
  Choices choices("warmup");
  // 10,000 points: the first call took 200 us on one thread (page faults on fresh outputs), the
  // later ones 5 us; a parallel run takes 30 us. Keeping the first time made every later call
  // parallel (arc_distance's 17 maps: 6x slower on two threads than on one).
  CHECK(choices({2e-8, 5e-10}, {3e-9}, 1e4, 200) == repeat('S', 200));
}

TEST_CASE("parallel choice: a time measured under other conditions is measured again every 64th choice",
          "[codegen][parallel-choice]") {
  Choices choices("remeasured");
  // The one-thread run measured after the warm-up took 100 us (a load spike); later ones take
  // 5 us. Predicted savings of 50 us: the parallel branch is tried (a warm-up, then 30 us),
  // runs 63 choices, then the one-thread branch runs again, measures 5 us and is kept; the
  // 128th choice tries the parallel branch again, which is still slower.
  std::string got = choices({1e-9, 1e-8, 5e-10}, {3e-9}, 1e4, 140);
  std::string want =
      "SS" + std::string("PP") + repeat('P', 63) + "S" + repeat('S', 63) + "P" + repeat('S', 8);
  CHECK(got == want);
}

TEST_CASE("parallel choice: a one-thread run predicted over 1 ms is tried every (64 x threads)th choice",
          "[codegen][parallel-choice]") {
  Choices choices("over_1ms");
  // 10,000 points, 1 ms on one thread, parallel 0.4 ms (0.8 ms predicted for one thread):
  // retried at the 64th choice.
  CHECK(choices({1e-7}, {4e-8}, 1e4, 70) == "SSPP" + repeat('P', 63) + "S" + "PP");
  // Parallel 0.6 ms: a one-thread run predicted at 1.2 ms is retried at the 128th choice on two
  // threads (at most 1/64 of the parallel time per choice), not at the 64th.
  CHECK(choices({1e-7}, {6e-8}, 1e4, 140) == "SSPP" + repeat('P', 127) + "S" + repeat('P', 8));
  // 40,000 points start parallel; a parallel run of 400 us (one thread predicted at 0.8 ms)
  // tries one thread at the 64th choice (its warm-up) and the 128th (its measurement, 4 ms:
  // slower), then again every 64th.
  CHECK(choices({1e-7}, {1e-8}, 4e4, 200) ==
        "PP" + repeat('P', 63) + "S" + repeat('P', 63) + "S" + repeat('P', 63) + "S" + repeat('P', 6));
}

TEST_CASE("parallel choice: a parallel map slowed by load finds one thread faster (floyd_warshall's step)",
          "[codegen][parallel-choice]") {
  Choices choices("loaded");
  // 1,000,000 points of 80 us on one thread; at load 6 on 2 cores each parallel run waits for a
  // descheduled thread, 550 us. Before session 38 a parallel run over 100 us never tried one
  // thread (floyd_warshall at N = 1000: 530-580 ms a call on two threads, 57-100 ms on one).
  // Now: one thread predicted at 1.1 ms is tried at the 128th choice (warm-up) and the 256th
  // (measured faster), then kept, the parallel branch retried every 64th choice.
  CHECK(choices({8e-11}, {5.5e-10}, 1e6, 330) ==
        "PP" + repeat('P', 127) + "S" + repeat('P', 127) + "S" + repeat('S', 63) + "P" + repeat('S', 8));
  // A map whose parallel run (160 us) beats one thread (300 us) stays parallel: one thread,
  // predicted under 1 ms, is tried every 64th choice (the first try its warm-up), the only cost.
  CHECK(choices({3e-10}, {1.6e-10}, 1e6, 330) == "PP" + repeat('P', 63) + "S" + repeat('P', 63) + "S" +
                                                     repeat('P', 63) + "S" + repeat('P', 63) + "S" +
                                                     repeat('P', 63) + "S" + repeat('P', 8));
}

TEST_CASE("parallel choice: a map whose work per point is unknown starts parallel",
          "[codegen][parallel-choice]") {
  Choices choices("unknown_work");
  // deriche's column recurrences: 1,200 points (columns) of 1,600 steps each, 4 ms a call on one
  // thread (3.3e-6 s a point), 2 ms in parallel. A flat body of that count starts on one thread
  // (its warm-up and its measurement) and then goes parallel; a body with loops goes parallel at
  // once, and a one-thread run predicted at 4 ms (over 1 ms) is first tried at the 128th choice
  // (every (64 x threads)th: at most 1/64 of the parallel time per choice).
  CHECK(choices({3.3e-6}, {1.7e-6}, 1200, 70) == "SSPP" + repeat('P', 66));
  CHECK(choices({3.3e-6}, {1.7e-6}, 1200, 70, true) == repeat('P', 70));
  // spmv's rows (1,024 nested SDFGs of a few nonzeros): 10 us on one thread, a parallel run
  // 40 us with its fork/join. Parallel first (warm-up, measurement, 40 us < 100 us), then one
  // thread is tried (warm-up, measurement) and kept; the 64th choice retries parallel.
  std::string got = choices({1e-8}, {4e-8}, 1024, 70, true);
  CHECK(got == "PPSS" + repeat('S', 63) + "P" + "SS");
}

TEST_CASE("parallel choice: a map recorded as one thread emits no OpenMP region",
          "[codegen][parallel-choice]") {
  auto s = recorded_map("\"one\"");
  std::string code = state_function(codegen::generate_cpu(*s).source);
  INFO(code);
  // N points of a flat body would be measured at run time; the record says one thread.
  CHECK_FALSE(contains(code, "#pragma omp"));
  CHECK_FALSE(contains(code, "weir_run_sequentially"));
  CHECK(contains(code, "for (int64_t i = 0; i <= N - 1; ++i) {"));
  CHECK(run_recorded(*s, "one") == std::vector<double>{3, -3, 8, 1, 21});
}

TEST_CASE("parallel choice: a map recorded as many threads is parallel without measuring",
          "[codegen][parallel-choice]") {
  auto s = recorded_map("\"many\"");
  std::string code = state_function(codegen::generate_cpu(*s).source);
  INFO(code);
  auto pragma = code.find("#pragma omp parallel for\n");
  REQUIRE(pragma != std::string::npos);
  CHECK(code.find("for (int64_t i = 0; i <= N - 1; ++i) {", pragma) != std::string::npos);
  CHECK_FALSE(contains(code, "weir_run_sequentially"));
  CHECK(run_recorded(*s, "many") == std::vector<double>{3, -3, 8, 1, 21});
}

TEST_CASE("parallel choice: a recorded measured choice divides by the recorded points",
          "[codegen][parallel-choice]") {
  // The record's points, not the map's N; a work per point unknown measures even tiny maps.
  auto s = recorded_map("\"measured_unknown_work\"", "\"3*N\"");
  std::string code = codegen::generate_cpu(*s).source;
  INFO(code);
  CHECK(contains(code, "const double weir_points = static_cast<double>(3*N);"));
  CHECK(contains(code, "const bool weir_tiny = false;"));
  CHECK(run_recorded(*s, "measured") == std::vector<double>{3, -3, 8, 1, 21});
}

TEST_CASE("parallel choice: a recorded verdict equal to the code generator's own generates the same code",
          "[codegen][parallel-choice]") {
  // SDFGs without the record (DaCe's, hand-written) get choose_threads' verdict in the code
  // generator: the same analysis cpu-schedules records, so both spellings emit one program.
  auto plain = recorded_map(nullptr);
  auto marked = recorded_map(nullptr);
  SDFGState& st = *marked->all_states().front();
  for (Node* n : st.nodes())
    if (auto* e = n->as<MapEntry>()) {
      ThreadsVerdict v = choose_threads(st, st.scope_tree(), *e);
      CHECK(v.choice == ThreadChoice::Measured);
      CHECK(v.points == sym::Expr::symbol("N"));
      record_threads(*e->map, v);
      CHECK(*e->map->extra.find(kThreadsAttribute) == "\"measured\"");
      CHECK(*e->map->extra.find(kPointsAttribute) == "\"N\"");
    }
  CHECK(codegen::generate_cpu(*marked).source == codegen::generate_cpu(*plain).source);
}

TEST_CASE("parallel choice: a malformed record is an error located at the map",
          "[codegen][parallel-choice]") {
  auto message = [](const SDFG& s) {
    try {
      codegen::generate_cpu(s);
    } catch (const codegen::CodegenError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string bad = message(*recorded_map("\"sometimes\""));
  CHECK(contains(bad, "node 2"));
  CHECK(contains(bad,
                 "map attribute weir_threads is \"sometimes\", expected \"many\", \"one\", \"measured\" or "
                 "\"measured_unknown_work\""));
  std::string no_points = message(*recorded_map("\"measured\""));
  CHECK(contains(no_points,
                 "map attribute weir_threads \"measured\" needs weir_points, a string holding the "
                 "points of one run"));
  std::string bad_points = message(*recorded_map("\"measured\"", "\"N +\""));
  CHECK(contains(bad_points, "map attribute weir_points \"N +\" is no expression"));
}

TEST_CASE("parallel choice: a tiled map counts the points of its tiles, not the tiles",
          "[codegen][parallel]") {
  // MapTiling's outer map runs over tile starts (step 32), its inner map over one tile
  // (i = t .. Min(N - 1, t + 31)), whose size depends on t. Counted as tiles, a 3-D stencil of
  // 5 million points was 8 "points": its first calls ran on one thread and the choice stayed
  // with whichever branch the load favoured then (weir tune measured heat3d tiled 1.34x faster
  // than --auto cpu, weir-bench replayed it 0.61x). Now tiles x the first tile's size.
  auto s = test::map_program("b = a * 2 + 1", Language::Python, ScheduleType::CPU_Multicore);
  s->add_symbol("N");  // the script validates the SDFG after each step
  auto before = [&] {
    SDFGState& st = *s->all_states().front();
    const ScopeTree tree = st.scope_tree();
    for (Node* n : st.nodes())
      if (auto* e = n->as<MapEntry>(); e && tree.parent[e->id()] == kNoNode)
        return choose_threads(st, tree, *e);
    FAIL("no top-level map");
    return ThreadsVerdict{};
  };
  const ThreadsVerdict untiled = before();
  REQUIRE(untiled.choice == ThreadChoice::Measured);
  CHECK(untiled.points.evaluate({{"N", 1000}}) == 1000);

  transforms::apply_script(*s, transforms::parse_script(R"([{"pass": "map-tiling{tile_sizes=32}"}])", "test"),
                           "test");
  const ThreadsVerdict tiled = before();
  CHECK(tiled.choice == ThreadChoice::Measured);  // flat: no longer "work per point unknown"
  // 32 tiles of 32 (the last, partial tile counted whole: 1024 for 1000 points); 40 points are
  // 2 tiles of 32; 20 points one tile of 20.
  CHECK(tiled.points.evaluate({{"N", 1000}}) == 1024);
  CHECK(tiled.points.evaluate({{"N", 40}}) == 64);
  CHECK(tiled.points.evaluate({{"N", 20}}) == 20);
  // A million points start on the threads and stay there (weir_run_sequentially: 32768 and up).
  CHECK(tiled.points.evaluate({{"N", 1000000}}) >= kMinParallelIterations);
}

namespace {

/// Calls of one CBLAS call site (codegen/prelude/weir_blas_threads.h) against a stand-in for
/// OpenBLAS's thread controls (4 threads), where `fake` (else none: another CBLAS): a call on
/// OpenBLAS's threads takes `par` seconds, on one thread `seq`; each call's branch as 'P' (OpenBLAS's
/// threads), 'S' (one) or '-' (left as it is), 'x' where the count during the call does not match
/// the branch or is not restored after it; `in_parallel`: each call made inside a parallel region.
std::string blas_choices(bool fake, double seq, double par, int calls, bool in_parallel,
                         const std::string& name) {
  // A generated program (the entry points the loader wants, the common prelude) with the part.
  const auto header = std::filesystem::path(WEIR_SOURCE_DIR) / "codegen" / "prelude" / "weir_blas_threads.h";
  std::string source =
      codegen::generate_cpu(*test::map_program("b = a * 2")).source + test::read_text(header);
  source += "static int weir_test_count = 4;\n";
  if (fake)
    source += R"(
extern "C" void openblas_set_num_threads(int n) { weir_test_count = n; }
extern "C" int openblas_get_num_threads(void) { return weir_test_count; }
)";
  source += R"(
static int weir_test_threads() { return weir_test_count; }
extern "C" void weir_test_blas(double seq, double par, int calls, int in_parallel, char* out) {
  omp_set_num_threads(2);
  weir_blas_times t;
  for (int c = 0; c < calls; ++c) {
    int how = -2;
    if (in_parallel) {
#pragma omp parallel num_threads(2)
#pragma omp single
      how = weir_blas_before(t);
    } else {
      how = weir_blas_before(t);
    }
    char k = how < 0 ? '-' : how == 0 ? 'P' : 'S';
    if ((weir_test_threads() == 1) != (k == 'S')) k = 'x';
    weir_blas_ran(t, how, how == 0 ? par : seq);  // exact: no clock, so no preemption counted
    if (weir_test_threads() != 4) k = 'x';
    out[c] = k;
  }
  out[calls] = '\0';
}
)";
  test::LoadedProgram p(test::compile_shared(source, test::scratch_dir("blas_choice_" + name)));
  auto fn = reinterpret_cast<void (*)(double, double, int, int, char*)>(p.symbol("weir_test_blas"));
  REQUIRE(fn != nullptr);
  std::string out(static_cast<std::size_t>(calls) + 1, '\0');
  fn(seq, par, calls, in_parallel ? 1 : 0, out.data());
  out.resize(static_cast<std::size_t>(calls));
  return out;
}

}  // namespace

TEST_CASE("parallel choice: a CBLAS call runs on OpenBLAS's threads or on one, whichever was faster",
          "[codegen][parallel-choice][blas]") {
  // npbench atax's cblas_dgemv calls (400 x 500) took 0.030 or 0.050 ms on OpenBLAS's two
  // threads depending on the process, 0.040-0.046 ms on one. The first calls run on OpenBLAS's
  // threads (a warm-up, then 50 us measured), one thread is tried (under 100 us), is faster and
  // kept; every 64th choice OpenBLAS's threads again. The count is 1 during a one-thread call
  // and OpenBLAS's own (4) after every call.
  CHECK(blas_choices(true, 20e-6, 50e-6, 140, false, "small") ==
        "PPSS" + repeat('S', 63) + "P" + repeat('S', 63) + "P" + repeat('S', 8));
  // Where OpenBLAS's threads are faster they stay (one thread tried again at the 64th choice).
  CHECK(blas_choices(true, 50e-6, 20e-6, 70, false, "threads_faster") ==
        "PPSS" + repeat('P', 63) + "S" + "PP");
  // A call over 100 us (a large gemm) never tries one thread.
  CHECK(blas_choices(true, 20e-6, 500e-6, 20, false, "large") == repeat('P', 20));
  // Inside a parallel region, or with a CBLAS that is not OpenBLAS, nothing changes.
  CHECK(blas_choices(true, 20e-6, 50e-6, 5, true, "in_parallel") == repeat('-', 5));
  CHECK(blas_choices(false, 20e-6, 50e-6, 5, false, "other_cblas") == repeat('-', 5));
}
