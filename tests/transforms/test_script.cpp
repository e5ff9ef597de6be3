// Optimization scripts, transformation history and replay: parse errors are located, steps
// that do not apply name themselves, and match -> script -> apply -> save -> load -> replay
// gives the identical SDFG on the corpus kernels.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "corpus.h"
#include "support/builders.h"
#include "weir/sdfg/private_attributes.h"
#include "weir/sdfg/serialize.h"
#include "weir/transforms/registry.h"
#include "weir/transforms/script.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;
using Catch::Matchers::Contains;

namespace {

std::unique_ptr<SDFG> corpus(const std::string& kernel) {
  return load_sdfg((dace_corpus_dir() / kernel / (kernel + ".simplified.sdfg")).string());
}

/// A script with the first applicable match of each named transformation (as `weir transforms
/// match` would list it), applied one after the other on a scratch copy to keep ids valid.
std::string script_from_matches(const SDFG& original, const std::vector<std::string>& names) {
  auto work = original.clone_sdfg();
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& n : names) {
    auto t = make_transformation(n);
    if (n == "MapTiling") t->options().set("tile_sizes", std::vector<long long>{4, 3});
    AnalysisCache cache;
    for (const auto& c : find_matches(*work, *t, cache)) {
      if (!c.result) continue;
      nlohmann::json s{{"transformation", n}, {"where", c.match.id()}};
      if (n == "MapTiling") s["options"] = {{"tile_sizes", {4, 3}}};
      steps.push_back(s);
      apply_transactional(*work, *t, c.match, cache);
      break;
    }
  }
  return steps.dump(2);
}

}  // namespace

TEST_CASE("script: malformed scripts give located errors", "[transforms][script]") {
  try {
    parse_script("[\n  {\"transformation\": \"MapTiling\",, }\n]", "tune.json");
    FAIL("no error");
  } catch (const ScriptError& e) {
    CHECK_THAT(e.what(), Contains("tune.json:2:"));
    CHECK_THAT(e.what(), Contains("invalid JSON"));
  }
  auto err = [](const std::string& text) {
    try {
      parse_script(text, "s.json");
    } catch (const ScriptError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(err(R"([{"transformation": "NoSuch"}])") ==
        "s.json: step 1 (NoSuch): unknown transformation 'NoSuch' (see `weir transforms list`)");
  CHECK_THAT(
      err(R"([{"pass": "simplify"}, {"transformation": "MapTiling", "options": {"tile_size": [4]}}])"),
      Contains("s.json: step 2 (MapTiling): unknown option 'tile_size' (known: tile_sizes, divides_evenly)"));
  CHECK_THAT(err(R"([{"transformation": "MapTiling", "options": {"tile_sizes": "big"}}])"),
             Contains("option 'tile_sizes' must be a list of integers (JSON), not \"big\""));
  // Issue 35: [1.5] and [true] were read as [1] ("applies nowhere") instead of a type error.
  CHECK_THAT(err(R"([{"transformation": "MapTiling", "options": {"tile_sizes": [1.5]}}])"),
             Contains("s.json: step 1 (MapTiling): option 'tile_sizes' must be a list of integers "
                      "(JSON), not [1.5]"));
  CHECK_THAT(err(R"([{"transformation": "MapTiling", "options": {"tile_sizes": [true]}}])"),
             Contains("option 'tile_sizes' must be a list of integers (JSON), not [true]"));
  // user31 G2: a tile size of 20 digits reads as the double 1e+20: said to be past int64.
  CHECK_THAT(
      err(R"([{"transformation": "MapTiling", "options": {"tile_sizes": [99999999999999999999]}}])"),
      Contains("s.json: step 1 (MapTiling): option 'tile_sizes' must be a list of integers (JSON), not "
               "[1e+20] (an integer past int64's range, at most 9223372036854775807)"));
  CHECK_THAT(
      err(R"([{"transformation": "MapTiling", "options": {"tile_sizes": "32"}}])"),
      Contains("s.json: step 1 (MapTiling): option 'tile_sizes' must be a list of integers (JSON), not "
               "\"32\""));
  CHECK_THAT(err(R"([{"transformation": "MapTiling", "where": 3}])"), Contains("\"where\" is \"all\""));
  CHECK_THAT(err(R"([{"pass": "no-such-pass"}])"), Contains("s.json: step 1 (no-such-pass)"));
  CHECK_THAT(err(R"({"transformation": "MapTiling"})"), Contains("a script is a JSON list"));
  CHECK_THAT(err(R"([{"transformation": "MapTiling", "wher": "all"}])"), Contains("unknown key 'wher'"));
}

TEST_CASE("script: a step that does not apply names the step and the reason", "[transforms][script]") {
  auto sdfg = make_map2d(false);
  auto before = sdfg_to_json_text(*sdfg);
  // Node 0 is the access node A, not a map entry.
  auto steps = parse_script(R"([{"transformation": "MapTiling", "where": "0.0.0"}])", "s.json");
  try {
    apply_script(*sdfg, steps, "s.json");
    FAIL("no error");
  } catch (const ScriptError& e) {
    CHECK(e.step() == 1);
    CHECK(e.name() == "MapTiling");
    CHECK_THAT(e.what(),
               Contains("s.json: step 1 (MapTiling): does not apply at 0.0.0: node 0 is not a map entry"));
  }
  auto none = parse_script(R"([{"transformation": "MapCollapse"}])", "s.json");
  CHECK_THROWS_WITH(apply_script(*make_map2d(false), none, "s.json"),
                    Contains("step 1 (MapCollapse): applies nowhere"));
  auto labels = parse_script(
      R"([{"transformation": "MapCollapse", "where": {"labels": ["outer", "inner"]}}])", "s.json");
  auto nested = make_map2d(true);
  CHECK(apply_script(*nested, labels, "s.json") == 1);
  require_valid(*nested);
  CHECK(transformation_history(*nested).size() == 1);
}

TEST_CASE("script: a repeated step that applies again to its own result stops with an error",
          "[transforms][script]") {
  // MapTiling tiles the tiles it made, doubling the maps every round: it never reached a round
  // that applies nothing.
  auto sdfg = make_map2d(false);
  auto steps = parse_script(R"([{"transformation": "MapTiling", "where": "all", "repeat": true,
                                  "options": {"tile_sizes": [2, 2]}}])",
                            "s.json");
  try {
    apply_script(*sdfg, steps, "s.json");
    FAIL("no error");
  } catch (const ScriptError& e) {
    CHECK(e.step() == 1);
    CHECK_THAT(e.what(), Contains("s.json: step 1 (MapTiling): \"repeat\": still applies after ") &&
                             Contains("it applies again to its own result; give it without \"repeat\""));
    // Stopped by the nesting it adds (a level per round), before the node count's bound.
    CHECK_THAT(e.what(), Contains("still applies after 17 rounds") && Contains("map nesting 1 before"));
  }
  // A step that converges repeats until a round applies nothing: MapCollapse of a nest.
  auto nested = make_map2d(true);
  auto collapse =
      parse_script(R"([{"transformation": "MapCollapse", "where": "all", "repeat": true}])", "s.json");
  CHECK(apply_script(*nested, collapse, "s.json") == 1);
  require_valid(*nested);
}

TEST_CASE("script: applications are recorded as DaCe's transformation_hist with orig_sdfg",
          "[transforms][script]") {
  auto sdfg = make_map2d(true);
  auto original = sdfg->clone_sdfg();
  auto steps = parse_script(R"([{"transformation": "MapCollapse", "where": "all"},
                               {"transformation": "MapTiling", "options": {"tile_sizes": [2]}, "where": "all"}])");
  CHECK(apply_script(*sdfg, steps) == 2);
  require_valid(*sdfg);
  auto hist = transformation_history(*sdfg);
  REQUIRE(hist.size() == 2);
  auto h0 = nlohmann::json::parse(hist[0]);
  CHECK(h0["type"] == "PatternTransformation");
  CHECK(h0["transformation"] == "MapCollapse");
  CHECK(h0["cfg_id"] == 0);
  CHECK(h0["state_id"] == 0);
  CHECK(nlohmann::json::parse(hist[1])["tile_sizes"] == nlohmann::json::array({2}));
  // weir's entries are where DaCe's loader skips them (a `_meta` attribute); DaCe's own list is
  // empty, as DaCe writes it for an SDFG it did not transform.
  CHECK(*sdfg->extra.find("transformation_hist") == "[]");
  CHECK(nlohmann::json::parse(*sdfg->extra.find(kWeirHistoryAttribute)).size() == 2);
  CHECK(attribute_key_in_file(kWeirHistoryAttribute) == "_meta_weir_transformation_hist");
  const auto written = nlohmann::json::parse(sdfg_to_json_text(*sdfg));
  CHECK(written["attributes"]["_meta_weir_transformation_hist"].size() == 2);
  CHECK_FALSE(written["attributes"].contains("weir_transformation_hist"));
  auto orig = nlohmann::json::parse(*sdfg->extra.find("orig_sdfg"));
  CHECK(orig["type"] == "SDFG");
  CHECK(orig["attributes"]["transformation_hist"].empty());
  CHECK(orig["attributes"]["orig_sdfg"].is_null());
  CHECK_FALSE(orig["attributes"].contains(kWeirHistoryAttribute));
  auto orig_sdfg = sdfg_from_json_text(orig.dump());
  original->extra.set("transformation_hist", "[]");
  original->extra.set("orig_sdfg", "null");
  CHECK(sdfg_difference(*orig_sdfg, *original).empty());

  // A later optimization appends to the history and keeps the first original.
  auto more = parse_script(R"([{"pass": "simplify"}, {"transformation": "MapToForLoop"}])");
  apply_script(*sdfg, more);
  CHECK(transformation_history(*sdfg).size() == 3);
  CHECK(nlohmann::json::parse(*sdfg->extra.find("orig_sdfg")) == orig);
  auto replayed = replay_history(*sdfg);
  CHECK(sdfg_difference(*replayed, *sdfg).empty());
}

TEST_CASE("script: match -> script -> apply -> save -> load -> replay is identical on the corpus",
          "[transforms][script][corpus]") {
  const std::vector<std::string> names{"MapTiling", "MapFusion",  "MapExpansion", "MapToForLoop",
                                       "LoopToMap", "InlineSDFG", "MapCollapse",  "StateFusion"};
  for (const char* kernel : {"hdiff", "laplace2d", "jacobi_2d"}) {
    INFO(kernel);
    auto original = corpus(kernel);
    std::string text = script_from_matches(*original, names);
    auto steps = parse_script(text, "generated.json");
    REQUIRE(steps.size() >= 2);
    auto sdfg = original->clone_sdfg();
    CHECK(apply_script(*sdfg, steps, "generated.json") == steps.size());
    require_valid(*sdfg);
    auto dir = scratch_dir(std::string("script-roundtrip-") + kernel);
    save_sdfg(*sdfg, (dir / "out.sdfg").string());
    auto loaded = load_sdfg((dir / "out.sdfg").string());
    CHECK(transformation_history(*loaded).size() == steps.size());
    auto replayed = replay_history(*loaded);
    require_valid(*replayed);
    INFO(sdfg_difference(*replayed, *loaded));
    CHECK(sdfg_difference(*replayed, *loaded).empty());
    CHECK(sdfg_difference(*replayed, *sdfg).empty());
  }
}

TEST_CASE("script: replaying a history entry that no longer applies names the entry",
          "[transforms][script]") {
  auto sdfg = make_map2d(true);
  apply_script(
      *sdfg,
      parse_script(R"([{"transformation": "MapTiling", "options": {"tile_sizes": [2]}, "where": "0.0.3"}])"));
  auto hist = nlohmann::json::parse(*sdfg->extra.find(kWeirHistoryAttribute));
  hist[0]["_subgraph"]["0"] = 0;  // the access node A
  sdfg->extra.set(kWeirHistoryAttribute, hist.dump());
  try {
    replay_history(*sdfg);
    FAIL("no error");
  } catch (const ScriptError& e) {
    CHECK(e.step() == 1);
    CHECK_THAT(
        e.what(),
        Contains("history entry 1 (MapTiling): no longer applies at 0.0.0: node 0 is not a map entry"));
  }
  CHECK_THROWS_WITH(replay_history(*make_map2d(true)), Contains("no recorded history"));
}

TEST_CASE(
    "script: passes record their pattern applications (symbol-propagation without changes records nothing)",
    "[transforms][script]") {
  auto sdfg = make_map2d(true);
  auto p = parse_pipeline("map-collapse,symbol-propagation");
  run_recorded(*sdfg, *p);
  auto hist = transformation_history(*sdfg);
  REQUIRE(hist.size() == 1);  // symbol-propagation changed nothing
  CHECK(nlohmann::json::parse(hist[0])["transformation"] == "MapCollapse");
  CHECK(sdfg_difference(*replay_history(*sdfg), *sdfg).empty());
}

TEST_CASE("script: a pass that is not made of transformations is recorded as one Pass entry and replayed",
          "[transforms][script]") {
  auto sdfg = std::make_unique<SDFG>("sp");
  sdfg->add_symbol("N");
  sdfg->add_symbol("k");
  sdfg->add_array("A", ScalarType::Float64, {E("N")});
  sdfg->add_array("B", ScalarType::Float64, {E("N")});
  auto& s0 = sdfg->add_state("s0", true);
  auto& s1 = sdfg->add_state("s1");
  InterstateEdge e;
  e.assignments = {{"k", "2"}};
  sdfg->add_edge(s0.id(), s1.id(), e);
  auto& a = s1.add_access("A");
  auto& b = s1.add_access("B");
  s1.add_edge(a.id(), "", b.id(), "", M("A", "k"));
  b.label = "B";
  s1.edge(s1.out_edges(a.id())[0]).memlet.other_subset = S("0");
  require_valid(*sdfg);
  run_recorded(*sdfg, *parse_pipeline("symbol-propagation"));
  auto hist = transformation_history(*sdfg);
  REQUIRE(hist.size() == 1);
  CHECK(nlohmann::json::parse(hist[0]) == nlohmann::json({{"type", "Pass"}, {"pass", "symbol-propagation"}}));
  CHECK(s1.edge(s1.out_edges(a.id())[0]).memlet.subset.str() == "2");
  auto replayed = replay_history(*sdfg);
  CHECK(sdfg_difference(*replayed, *sdfg).empty());
}
