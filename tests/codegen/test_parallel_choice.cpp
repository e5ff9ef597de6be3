// The run-time choice between one thread and a parallel loop (parallel_threshold.cpp, the
// prelude's weir_run_sequentially and weir_map_ran), driven with given times instead of clock
// reads: which branch each of a map's calls takes, as a string of 'S' (one thread) and 'P'.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "weir/codegen/cpu_codegen.h"

using namespace weir;

namespace {

/// Appended to a generated program: runs `calls` choices of one map of `points` points on two
/// threads; the k-th one-thread run takes seq[min(k, n - 1)] seconds per point, the k-th
/// parallel run par[...] likewise.
const char* kDriver = R"(
extern "C" void weir_test_choices(const double* seq, int nseq, const double* par, int npar, double points,
                                  int calls, char* out) {
    omp_set_num_threads(2);
    weir_map_times t;
    int s = 0, p = 0;
    for (int c = 0; c < calls; ++c) {
        if (weir_run_sequentially(t, points)) {
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

using ChoicesFn = void (*)(const double*, int, const double*, int, double, int, char*);

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
                         int calls) const {
    std::string out(static_cast<std::size_t>(calls) + 1, '\0');
    fn_(seq.data(), static_cast<int>(seq.size()), par.data(), static_cast<int>(par.size()), points, calls,
        out.data());
    out.resize(static_cast<std::size_t>(calls));
    return out;
  }

 private:
  std::unique_ptr<test::LoadedProgram> program_;
  ChoicesFn fn_ = nullptr;
};

std::string repeat(char c, int n) { return std::string(static_cast<std::size_t>(n), c); }

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

TEST_CASE("parallel choice: a one-thread run predicted over 1 ms is not tried again",
          "[codegen][parallel-choice]") {
  Choices choices("over_1ms");
  // 10,000 points, 1 ms on one thread, parallel 0.4 ms (0.8 ms predicted for one thread):
  // retried at the 64th choice.
  CHECK(choices({1e-7}, {4e-8}, 1e4, 70) == "SSPP" + repeat('P', 63) + "S" + "PP");
  // Parallel 0.6 ms: a one-thread run predicted at 1.2 ms is never tried again.
  CHECK(choices({1e-7}, {6e-8}, 1e4, 140) == "SSPP" + repeat('P', 136));
  // 40,000 points start parallel; a parallel run over 100 us never tries one thread.
  CHECK(choices({1e-7}, {1e-8}, 4e4, 100) == repeat('P', 100));
}
