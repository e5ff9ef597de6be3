// The modification contract of passes (docs/adr/0017): rollback of passes that fail half-way,
// analyses kept current without hand invalidation, verify-each, print-after and timing.
#include <catch2/catch.hpp>

#include <sstream>

#include "break_validity_pass.h"
#include "corpus.h"
#include "data_use_check.h"
#include "support/builders.h"
#include "weir/sdfg/serialize.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/auto_optimize.h"
#include "weir/transforms/cpu_schedules.h"
#include "weir/transforms/instrumentation.h"
#include "weir/transforms/pipeline.h"
#include "weir/transforms/registry.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;
using Catch::Matchers::Contains;

namespace {

/// A test-only pass that changes a state, a container, a symbol and the control flow, then
/// throws in the middle of changing a second state.
class ThrowsMidway final : public Pass {
 public:
  ThrowsMidway() : Pass("throws-midway", "test: fails half-way") {}

 protected:
  std::size_t run_pass(SDFG& sdfg, Transaction& tx) override {
    auto states = sdfg.all_states();
    SDFGState& first = *states.front();
    tx.modify_state(first, [&] {
      sdfg.add_array("junk", ScalarType::Int32, {E("3")}, true);
      first.add_access("junk");
      for (Node* n : first.nodes())
        if (auto* me = n->as<MapEntry>()) me->map->range = S("0:3");
      first.remove_node(first.nodes().front()->id());
    });
    tx.modify_all([&] {
      sdfg.add_symbol("junk_sym");
      auto& extra = sdfg.add_state("extra");
      sdfg.add_edge(states.back()->id(), extra.id());
    });
    SDFGState& last = *states.back();
    tx.modify_state(last, [&] {
      for (Node* n : last.nodes())
        if (n->as<Tasklet>()) {
          last.remove_node(n->id());
          break;
        }
      throw std::runtime_error("injected failure");
    });
    return 1;
  }
};

/// A test-only transformation that renames the first map it applies to and fails on the second.
class FailsSecondTime final : public Transformation {
 public:
  std::string name() const override { return "FailsSecondTime"; }
  std::string description() const override { return "test: fails at its second application"; }
  MatchScope scope() const override { return MatchScope::Dataflow; }
  std::vector<std::vector<std::uint32_t>> expand(const MatchContext&, std::uint32_t a) const override {
    return {{a}};
  }
  MatchResult can_apply(const MatchContext&, const std::vector<std::uint32_t>&) const override {
    return MatchResult::success();
  }
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) override {
    if (applied_++) throw std::runtime_error("second application fails");
    ctx.state->node(sub[0]).as<MapEntry>()->map->label = "renamed";
    ctx.sdfg.add_symbol("first_was_here");
  }

 private:
  int applied_ = 0;
};

SDFG& with_two_states(SDFG& sdfg) {
  auto& s1 = sdfg.add_state("second");
  sdfg.add_edge(only_state(sdfg).id(), s1.id());
  auto& a = s1.add_access("A");
  auto& b = s1.add_access("B");
  auto& t = s1.add_tasklet("copy", {"b = a", Language::Python}, {"a"}, {"b"});
  s1.add_edge(a.id(), "", t.id(), "a", M("A", "0, 0"));
  s1.add_edge(t.id(), "b", b.id(), "", M("B", "0, 0"));
  return sdfg;
}

/// Every analysis `kept` holds for `sdfg` equals a fresh computation.
void require_current(SDFG& sdfg, AnalysisCache& kept) {
  AnalysisCache fresh;
  REQUIRE(kept.cfg_list(sdfg) == fresh.cfg_list(sdfg));
  for (ControlFlowRegion* r : fresh.cfg_list(sdfg)) {
    if (auto* s = r->as<SDFG>()) require_same_use(kept.data_use(*s), fresh.data_use(*s));
    CHECK(kept.reachable_blocks(*r) == fresh.reachable_blocks(*r));
    for (ControlFlowBlock* b : r->blocks())
      if (auto* st = b->as<SDFGState>())
        for (NodeKind k : {NodeKind::MapEntry, NodeKind::MapExit, NodeKind::Access, NodeKind::Tasklet,
                           NodeKind::NestedSDFG})
          CHECK(kept.nodes_of_kind(*st, k) == fresh.nodes_of_kind(*st, k));
  }
}

/// Restores verify_each() when a test changed it.
struct VerifySetting {
  bool was = verify_each();
  ~VerifySetting() { set_verify_each(was); }
};

}  // namespace

TEST_CASE("pass contract: a pass that throws half-way leaves the SDFG as before",
          "[transforms][pass-contract]") {
  auto sdfg = make_map2d(true);
  with_two_states(*sdfg);
  auto before = sdfg->clone_sdfg();
  AnalysisCache cache;
  cache.data_use(*sdfg);  // analyses computed before the pass must not survive it stale
  ThrowsMidway pass;
  CHECK_THROWS_WITH(pass.run(*sdfg, cache), "injected failure");
  CHECK(sdfg_difference(*before, *sdfg) == "");
  CHECK(sdfg->arrays.count("junk") == 0);
  CHECK(sdfg->symbols.count("junk_sym") == 0);
  require_valid(*sdfg);
  require_current(*sdfg, cache);
  // A pipeline fails as a whole: what cpu-schedules did before the failing pass is undone too.
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(std::make_unique<CpuSchedules>());
  passes.push_back(std::make_unique<ThrowsMidway>());
  Pipeline pipeline("test", std::move(passes));
  CHECK_THROWS_WITH(pipeline.run(*sdfg, cache), "injected failure");
  CHECK(sdfg_difference(*before, *sdfg) == "");
  require_current(*sdfg, cache);
  // The restored SDFG still optimizes and computes what it computed.
  auto copy = sdfg->clone_sdfg();
  CHECK(CpuSchedules().run(*copy, cache) > 0);
  require_valid(*copy);
  for (unsigned seed : {1u, 7u})
    CHECK(run_program(*before, {{"N", 3}, {"M", 4}}, seed) == run_program(*copy, {{"N", 3}, {"M", 4}}, seed));
}

TEST_CASE("pass contract: a transformation pass failing at its second application undoes the first",
          "[transforms][pass-contract]") {
  auto sdfg = make_map2d(true);  // two map entries: outer and inner
  auto before = sdfg->clone_sdfg();
  TransformationPass pass(std::make_unique<FailsSecondTime>());
  AnalysisCache cache;
  CHECK_THROWS_WITH(pass.run(*sdfg, cache), "second application fails");
  CHECK(sdfg_difference(*before, *sdfg) == "");
  CHECK(sdfg->symbols.count("first_was_here") == 0);
  require_current(*sdfg, cache);
}

TEST_CASE("pass contract: analyses stay current through auto-optimize without hand invalidation",
          "[transforms][pass-contract]") {
  for (const char* kernel : {"hdiff", "jacobi_2d"}) {
    INFO(kernel);
    auto sdfg = load_sdfg((dace_corpus_dir() / kernel / (std::string(kernel) + ".simplified.sdfg")).string());
    AnalysisCache cache;
    std::size_t changed = 0;
    for (const auto& name : auto_optimize_pass_names(DeviceType::CPU)) {
      INFO("after " << name);
      auto pass = make_pass(name);
      REQUIRE(pass);
      changed += pass->run(*sdfg, cache);
      require_current(*sdfg, cache);
      require_valid(*sdfg);
    }
    CHECK(changed > 0);
  }
}

TEST_CASE("verify-each: a pass that leaves an invalid SDFG is named, and rolled back",
          "[transforms][pass-contract]") {
  VerifySetting restore;
  auto sdfg = make_map2d(false);
  auto before = sdfg->clone_sdfg();
  set_verify_each(true);
  BreakValidity pass;
  AnalysisCache cache;
  try {
    pass.run(*sdfg, cache);
    FAIL("no PassVerificationError");
  } catch (const PassVerificationError& e) {
    CHECK(e.pass() == "break-validity");
    CHECK_THAT(e.what(), Contains("the SDFG is invalid after pass 'break-validity': "));
    CHECK_THAT(e.what(), Contains("nowhere"));
  }
  CHECK(sdfg_difference(*before, *sdfg) == "");
  // Inside a pipeline the pass is named too, not the pipeline.
  auto pipeline = parse_pipeline("simplify");
  pipeline->passes().push_back(std::make_unique<BreakValidity>());
  CHECK_THROWS_WITH(pipeline->run(*sdfg), Contains("after pass 'break-validity'"));
  CHECK(sdfg_difference(*before, *sdfg) == "");
  // Without verification the broken SDFG is kept (and the validator finds it).
  set_verify_each(false);
  CHECK(pass.run(*sdfg, cache) == 1);
  CHECK(!validate(*sdfg).empty());
}

TEST_CASE("instrumentation: timing rows and print-after", "[transforms][pass-contract]") {
  auto sdfg = make_map2d(true);
  auto expected = sdfg->clone_sdfg();
  AnalysisCache expected_cache;
  std::size_t cpu_changes = CpuSchedules().run(*expected, expected_cache);
  auto pipeline = parse_pipeline("simplify,cpu-schedules");
  std::ostringstream printed, table;
  {
    PassTiming timing;
    PrintAfter print({"cpu-schedules", "simplify", "no-such-pass"}, false, printed);
    pipeline->run(*sdfg);
    CHECK(print.unseen() == std::vector<std::string>{"no-such-pass"});
    // Leaf passes in order of first run; simplify's six run once per round (a fixed point
    // that changes nothing here stops after one round).
    std::vector<std::string> names;
    for (const auto& r : timing.rows()) names.push_back(r.pass);
    CHECK(names == std::vector<std::string>{"dead-state-elimination", "dead-assignment-elimination",
                                            "state-fusion", "dead-dataflow-elimination",
                                            "redundant-array-removal", "trivial-map-elimination",
                                            "cpu-schedules"});
    for (const auto& r : timing.rows()) {
      CHECK(r.runs == 1);
      CHECK(r.wall_ms >= 0);
      CHECK(r.applications == (r.pass == "cpu-schedules" ? cpu_changes : 0));
    }
    timing.report(table);
  }
  CHECK(sdfg_difference(*expected, *sdfg) == "");
  // Columns after the widest pass name ("dead-assignment-elimination", 27 characters).
  CHECK_THAT(table.str(),
             Catch::StartsWith("pass                          runs  applications     wall ms    share\n"));
  CHECK_THAT(table.str(), Contains("cpu-schedules"));
  CHECK_THAT(table.str(), Contains("total"));
  // Printed after simplify (the whole pipeline) and after cpu-schedules: two loadable SDFGs,
  // the last one the result.
  std::string out = printed.str();
  auto first = out.find("// SDFG after pass 'simplify' (run 1)\n");
  auto second = out.find("// SDFG after pass 'cpu-schedules' (run 1)\n");
  REQUIRE(first == 0);
  REQUIRE(second != std::string::npos);
  std::string last = out.substr(out.find('\n', second) + 1);
  CHECK(sdfg_difference(*sdfg_from_json_text(last), *sdfg) == "");
  // After an instrumentation is gone it sees nothing.
  CHECK(PassInstrumentation::installed().empty());
}
