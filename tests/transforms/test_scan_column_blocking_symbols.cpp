// ScanColumnBlocking on the forms DaCe writes around a column's nested SDFG (ADR 0053, session
// 35): the map parameter passed again as a symbol of the nested SDFG (DaCe maps every symbol of
// the caller), used there as the column's index into a container passed whole (vadv's
// `wcon[__i0 + 1, __i1, k]`) or not at all, and inner containers that keep the blocked dimension
// of the memlet (DaCe's auto-optimized deriche: `imgIn[__i0, 0:H]` into an inner W x H `imgIn`
// read as `imgIn[0, j]`). Results before and after on the reference interpreter.
#include <catch2/catch.hpp>

#include <functional>
#include <random>
#include <tuple>

#include "corpus.h"
#include "support/builders.h"
#include "support/interpreter.h"
#include "weir/sdfg/serialize.h"
#include "weir/transforms/auto_optimize.h"
#include "weir/transforms/pipeline.h"
#include "weir/transforms/registry.h"
#include "weir/transforms/scan_column_blocking.h"

using namespace weir;
using namespace weir::transforms;

namespace {

/// `path` with DaCe's casts as the test interpreter's Python (`dace.float64(x)` is float(x)).
std::unique_ptr<SDFG> load_for_interpreter(const std::filesystem::path& path) {
  auto sdfg = load_sdfg(path.string());
  std::function<void(SDFG&)> fix = [&](SDFG& s) {
    for (SDFGState* st : s.all_states())
      for (Node* n : st->nodes()) {
        if (auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg) fix(*ns->sdfg);
        if (auto* t = n->as<Tasklet>(); t && t->code.code.find("dace.float64(") != std::string::npos) {
          std::string c = t->code.code;
          for (auto at = c.find("dace.float64("); at != std::string::npos; at = c.find("dace.float64("))
            c.replace(at, 13, "float(");
          t->code = CodeBlock{c, Language::Python};
        }
      }
  };
  fix(*sdfg);
  return sdfg;
}

/// Applies ScanColumnBlocking wherever it applies; returns how often, the refusals of the SDFG
/// as given in `refused` (a blocked map is refused again: its step is the block's).
std::size_t block_all(SDFG& sdfg, std::vector<std::string>& refused) {
  ScanColumnBlocking t;
  std::size_t applied = 0;
  for (;;) {
    AnalysisCache cache;
    std::optional<Candidate> next;
    for (auto& c : find_matches(sdfg, t, cache)) {
      if (c.result && !next) next = c;
      if (!c.result && applied == 0) refused.push_back(c.result.reason());
    }
    if (!next) return applied;
    apply_transactional(sdfg, t, next->match, cache);
    ++applied;
  }
}

/// The containers after a run with seeded inputs in [0, 1) (`scalars` as given).
test::Arrays run(const SDFG& sdfg, const test::Symbols& symbols, const std::vector<std::string>& inputs,
                 const std::map<std::string, double>& scalars) {
  test::Interpreter in(sdfg, symbols, true);
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (const auto& name : inputs)
    for (double& v : in.mem[name]) v = u(gen);
  for (const auto& [name, v] : scalars) in.mem[name] = {v};
  in.run();
  return in.mem;
}

}  // namespace

TEST_CASE("ScanColumnBlocking: DaCe's auto-optimized deriche, its parameter a symbol of the column SDFG",
          "[transforms][scan-column-blocking]") {
  auto sdfg =
      load_for_interpreter(test::npbench_corpus_dir() / "deriche" / "deriche.auto_optimized_cpu.sdfg");
  auto before = sdfg->clone_sdfg();
  std::vector<std::string> refused;
  // The four recursions' column maps; each maps `__i0` from the parameter and passes imgIn, y1
  // and y2 with the column's dimension kept.
  CHECK(block_all(*sdfg, refused) == 4);
  for (const auto& r : refused) FAIL_CHECK("refused: " << r);
  weir::test::require_valid(*sdfg);
  for (auto [w, h] : {std::pair<long long, long long>{13, 11}, {16, 8}, {3, 5}}) {
    INFO("W " << w << ", H " << h);
    const test::Symbols sy{{"W", w}, {"H", h}};
    CHECK(run(*sdfg, sy, {"imgIn"}, {{"alpha", 0.25}}).at("__return") ==
          run(*before, sy, {"imgIn"}, {{"alpha", 0.25}}).at("__return"));
  }
}

TEST_CASE("ScanColumnBlocking: vadv's sweeps read a container passed whole at the column symbol",
          "[transforms][scan-column-blocking]") {
  auto sdfg = load_for_interpreter(std::filesystem::path(WEIR_SOURCE_DIR) / "tests" / "npbench" /
                                   "dace_kinds" / "vadv_sweeps" / "vadv_sweeps.sdfg");
  // auto-optimize-cpu's passes up to local-storage, without the blocking: the three sweeps as
  // parallel maps over the columns (i, j) around nested SDFGs walking k.
  std::vector<std::unique_ptr<Pass>> passes;
  for (const std::string& n : auto_optimize_pass_names(DeviceType::CPU)) {
    if (n == "local-storage") break;
    if (n != "scan-column-blocking") passes.push_back(make_pass(n));
  }
  Pipeline("until-columns", std::move(passes)).run(*sdfg);
  auto before = sdfg->clone_sdfg();
  std::vector<std::string> refused;
  // The forward sweeps read `wcon[__i0 + 1, __i1, k]` through the symbol `__i1` (session 34
  // refused them: "symbol '__i1' of the nested SDFG is mapped from parameter '__i1'").
  CHECK(block_all(*sdfg, refused) == 3);
  for (const auto& r : refused) FAIL_CHECK("refused: " << r);
  weir::test::require_valid(*sdfg);
  for (auto [i, j, k] : {std::tuple<long long, long long, long long>{5, 4, 7}, {3, 16, 5}, {2, 11, 4}}) {
    INFO("I " << i << ", J " << j << ", K " << k);
    const test::Symbols sy{{"I", i}, {"J", j}, {"K", k}};
    const std::vector<std::string> in{"utens_stage", "wcon", "u_pos"};
    auto got = run(*sdfg, sy, in, {{"dtr_stage", 0.3}});
    auto want = run(*before, sy, in, {{"dtr_stage", 0.3}});
    CHECK(got.at("utens_stage") == want.at("utens_stage"));
  }
}
