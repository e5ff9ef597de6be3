// The nested parts of the SDFG-level differential run that InlineSDFG may meet: one-state nested
// SDFGs writing Y, reading back the Y they wrote, or copying X straight into Y, alone or in a
// map scope. Inlined everywhere InlineSDFG applies (validated after each step), written and read
// back, the batch runs on the cpu backend and the interpreter with the values the interpreter
// gave the batch before; in a map scope the two DaCe refuses (and whose inlined form DaCe ran
// with another meaning, ADR 0050) stay nested.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "diff_driver.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/registry.h"
#include "weir/transforms/transformation.h"

using namespace weir;
using namespace weir::test::sdfgdiff;

namespace {

/// Applies InlineSDFG wherever it applies, validating after each step; returns how often.
int inline_all(SDFG& sdfg) {
  int applied = 0;
  for (bool again = true; again;) {
    again = false;
    transforms::AnalysisCache cache;
    auto t = transforms::make_transformation("InlineSDFG");
    for (const auto& c : transforms::find_matches(sdfg, *t, cache))
      if (c.result) {
        transforms::apply_transactional(sdfg, *t, c.match, cache);
        std::string diags;
        for (const auto& d : validate(sdfg)) diags += d.str() + "\n";
        INFO(diags);
        REQUIRE(diags.empty());
        ++applied;
        again = true;
        break;
      }
  }
  return applied;
}

/// Labels of the nested SDFG nodes left in `sdfg`'s states.
std::set<std::string> nested_labels(const SDFG& sdfg) {
  std::set<std::string> out;
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* n : st->nodes())
      if (n->as<NestedSDFGNode>()) out.insert(n->label);
  return out;
}

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE(
    "nested parts reading back their output or copying an input stay nested in a map and run alike inlined",
    "[sdfgdiff][inline]") {
  GenOptions opts;
  opts.kinds = {PartKind::Nested};
  std::set<std::string> seen;  // "<body>, <in a map or not>"
  for (unsigned seed : {11u, 12u}) {
    INFO("seed " << seed);
    Batch b = make_batch(seed, 12, opts);
    Values in = random_inputs(*b.sdfg, b.symbols, seed);
    Values want = run_reference(*b.sdfg, b.symbols, in);
    auto t = b.sdfg->clone_sdfg();
    CHECK(inline_all(*t) > 0);
    t = sdfg_from_json_text(sdfg_to_json_text(*t));
    const std::set<std::string> left = nested_labels(*t);
    for (std::size_t k = 0; k < b.parts.size(); ++k) {
      const std::string& part = b.parts[k];
      INFO(part);
      const bool kept = left.count("g" + std::to_string(k) + "_nsdfg") != 0;
      const bool in_map = has(part, "in a map");
      if (has(part, "reading back") || has(part, "copying")) {
        seen.insert(std::string(has(part, "copying") ? "copies" : "reads back") + (in_map ? ", map" : ""));
        if (in_map) CHECK(kept);
      } else if (has(part, "one state")) {
        seen.insert(std::string("writes only") + (in_map ? ", map" : ""));
        CHECK_FALSE(kept);
      } else {
        CHECK(kept);  // two states: never inlined
      }
    }
    for (const auto& p : b.parts) UNSCOPED_INFO(p);
    // Seed 11's g3 (X copied into Y, row 1 of A into row 1 of B) was inlined as a copy into the
    // whole of B: the copy's other subset was unset, the whole Y inside, the whole B outside.
    CHECK(differences(want, run_cpu(*t, b.symbols, in)) == std::vector<std::string>{});
    CHECK(differences(want, run_reference(*t, b.symbols, in)).empty());
  }
  CHECK(seen == std::set<std::string>{"writes only", "writes only, map", "reads back", "reads back, map",
                                      "copies", "copies, map"});
}
