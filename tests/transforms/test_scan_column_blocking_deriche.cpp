// ScanColumnBlocking on deriche's recursions (DaCe's simplified SDFG from the npbench corpus):
// a level's expression carries its intermediate values between tasklets through transient
// scalars, which block with the tasklets (ADR 0053, session 34). Results before and after on the
// reference interpreter.
#include <catch2/catch.hpp>

#include <random>

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

/// deriche's simplified stage through auto-optimize-cpu's passes up to its second
/// loop-map-interchange (which makes the recursions' column maps), without the blocking.
std::unique_ptr<SDFG> deriche_columns() {
  auto sdfg = load_sdfg((test::npbench_corpus_dir() / "deriche" / "deriche.simplified.sdfg").string());
  // The test interpreter has no DaCe casts: `dace.float64(alpha)` is Python's float(alpha).
  for (SDFGState* st : sdfg->all_states())
    for (Node* n : st->nodes())
      if (auto* t = n->as<Tasklet>(); t && t->code.code.find("dace.float64(") != std::string::npos) {
        std::string c = t->code.code;
        for (auto at = c.find("dace.float64("); at != std::string::npos; at = c.find("dace.float64("))
          c.replace(at, 13, "float(");
        t->code = CodeBlock{c, Language::Python};
      }
  std::vector<std::unique_ptr<Pass>> passes;
  for (const std::string& n : auto_optimize_pass_names(DeviceType::CPU)) {
    if (n == "local-storage") break;
    if (n != "scan-column-blocking") passes.push_back(make_pass(n));
  }
  Pipeline("until-columns", std::move(passes)).run(*sdfg);
  return sdfg;
}

/// deriche's output for an image of W x H seeded values in [0, 1) and alpha 0.25.
std::vector<double> deriche_output(const SDFG& sdfg, long long w, long long h) {
  test::Interpreter in(sdfg, {{"W", w}, {"H", h}}, true);
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (double& v : in.mem["imgIn"]) v = u(gen);
  in.mem["alpha"] = {0.25};
  in.run();
  return in.mem["__return"];
}

}  // namespace

TEST_CASE("ScanColumnBlocking: deriche's recursions block with their intermediate transients",
          "[transforms][scan-column-blocking]") {
  auto sdfg = deriche_columns();
  auto before = sdfg->clone_sdfg();
  ScanColumnBlocking t;
  // Each recursion's level computes a1 * x[j] + a2 * x[j - 1] + b1 * y[j - 1] + b2 * y[j - 2]
  // through transient scalars between its tasklets: all three column maps block.
  AnalysisCache cache;
  std::size_t applicable = 0;
  for (auto& c : find_matches(*sdfg, t, cache)) {
    INFO(c.match.id() << ": " << (c.result ? "applies" : c.result.reason()));
    CHECK(c.result);
    applicable += c.result ? 1 : 0;
  }
  CHECK(applicable == 3);
  for (int i = 0; i < 3; ++i) {
    AnalysisCache c2;
    auto cands = find_matches(*sdfg, t, c2);
    std::vector<Candidate> ok;
    for (auto& c : cands)
      if (c.result) ok.push_back(c);
    REQUIRE(!ok.empty());
    apply_transactional(*sdfg, t, ok.front().match, c2);
  }
  weir::test::require_valid(*sdfg);
  // The intermediates stay scalars (one per column of the SIMD loop); the carries' containers
  // are the outer arrays, blocked.
  std::size_t nested = 0;
  for (const SDFGState* st : sdfg->all_states())
    for (const Node* n : st->nodes())
      if (const auto* ns = n->as<NestedSDFGNode>()) {
        ++nested;
        for (const auto& [name, d] : ns->sdfg->arrays) {
          INFO(name);
          if (d.transient) CHECK(d.is_scalar());
        }
      }
  CHECK(nested == 3);
  // Blocks of 8 that divide the columns and a remainder (H = 11, W = 13: both recursions' maps).
  for (auto [w, h] : {std::pair<long long, long long>{13, 11}, {16, 8}, {3, 5}}) {
    INFO("W " << w << ", H " << h);
    CHECK(deriche_output(*sdfg, w, h) == deriche_output(*before, w, h));
  }
}
