// Tests of the transformation framework: pipeline texts, transactional rollback, JSON records
// of matches, the analysis cache, the registry and the DaCe corpus.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "corpus.h"
#include "support/builders.h"
#include "weir/transforms/map_collapse.h"
#include "weir/transforms/map_tiling.h"
#include "weir/transforms/pipeline.h"
#include "weir/transforms/registry.h"
#include "weir/transforms/simplify.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;
using Catch::Matchers::Contains;

TEST_CASE("pipeline text: parse and print", "[transforms][pipeline]") {
  auto p = parse_pipeline("simplify,map-collapse,map-tiling{tile_sizes=32,8}");
  REQUIRE(p->passes().size() == 3);
  CHECK(p->passes()[0]->name() == "simplify");
  CHECK(p->passes()[1]->name() == "map-collapse");
  CHECK(p->passes()[2]->options().get_int_list("tile_sizes") == std::vector<long long>{32, 8});
  CHECK(p->str_passes() == "simplify,map-collapse,map-tiling{tile_sizes=32,8}");
  auto q = parse_pipeline(" MapTiling { divides_evenly=true tile_sizes=4 } , state-fusion ");
  CHECK(q->str_passes() == "map-tiling{tile_sizes=4 divides_evenly=true},state-fusion");
  auto r = parse_pipeline("map-tiling{tile_sizes=4,2, divides_evenly=1}");
  CHECK(r->str_passes() == "map-tiling{tile_sizes=4,2 divides_evenly=true}");
  // Printing and parsing again gives the same text.
  CHECK(parse_pipeline(p->str_passes())->str_passes() == p->str_passes());
  // Every registered pass name parses.
  for (const auto& n : pass_names()) CHECK(parse_pipeline(n)->passes().front()->name() == n);
}

TEST_CASE("pipeline text: located errors", "[transforms][pipeline]") {
  auto error_of = [](const std::string& text) -> std::pair<std::string, std::size_t> {
    try {
      parse_pipeline(text);
    } catch (const PipelineParseError& e) {
      return {e.what(), e.column()};
    }
    FAIL("no error for '" << text << "'");
    return {};
  };
  auto [m1, c1] = error_of("simplify,map-fuson,map-tiling");
  CHECK(c1 == 10);
  CHECK_THAT(m1,
             Contains("unknown pass 'map-fuson'; did you mean 'map-fusion'? (known: simplify, map-collapse"));
  auto [m2, c2] = error_of("map-tiling{tile_size=4}");
  CHECK(c2 == 12);
  CHECK_THAT(m2, Contains("unknown option 'tile_size' (known: tile_sizes, divides_evenly)"));
  auto [m3, c3] = error_of("map-tiling{tile_sizes=4,x}");
  CHECK(c3 == 23);
  CHECK_THAT(m3, Contains("option 'tile_sizes' must be a comma-separated list of integers, not '4,x'"));
  auto [m4, c4] = error_of("map-tiling{tile_sizes=4");
  CHECK(c4 == 11);
  CHECK_THAT(m4, Contains("missing '}'"));
  auto [m5, c5] = error_of("");
  CHECK(c5 == 1);
  auto [m6, c6] = error_of("state-fusion{x=1}");
  CHECK_THAT(m6, Contains("unknown option 'x' (it has no options)"));
  auto [m7, c7] = error_of("state-fusion map-collapse");
  CHECK(c7 == 14);
  CHECK_THAT(m7, Contains("expected ',' between passes"));
  auto [m8, c8] = error_of("simplify,");
  CHECK(c8 == 10);
}

namespace {

/// A test-only transformation that edits its state, a descriptor and the control flow halfway,
/// then fails.
class FailingMidway final : public Transformation {
 public:
  explicit FailingMidway(bool control_flow) : cf_(control_flow) {}
  std::string name() const override { return "FailingMidway"; }
  std::string description() const override { return "fails after changing things"; }
  MatchScope scope() const override { return cf_ ? MatchScope::ControlFlow : MatchScope::Dataflow; }
  std::vector<std::vector<std::uint32_t>> expand(const MatchContext&, std::uint32_t a) const override {
    return {{a}};
  }
  MatchResult can_apply(const MatchContext&, const std::vector<std::uint32_t>&) const override {
    return MatchResult::success();
  }
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) override {
    ctx.sdfg.add_array("junk", ScalarType::Int32, {E("3")}, true);
    ctx.sdfg.add_symbol("junk_sym");
    if (cf_) {
      auto& extra = ctx.region.add_state("extra");
      ctx.region.add_edge(sub[0], extra.id());
      auto* st = ctx.region.block(sub[0]).as<SDFGState>();
      if (st) st->remove_node(st->nodes().front()->id());
      for (auto* b : ctx.region.blocks())
        if (b->id() != sub[0] && b->id() != extra.id()) {
          ctx.region.remove_block(b->id());
          break;
        }
    } else {
      SDFGState& st = *ctx.state;
      auto& me = *st.node(sub[0]).as<MapEntry>();
      me.map->range = S("0:3");
      st.add_access("junk");
      st.remove_node(st.out_edges(me.id()).empty() ? me.id() : st.edge(st.out_edges(me.id())[0]).dst);
    }
    throw std::runtime_error("injected failure");
  }

 private:
  bool cf_;
};

}  // namespace

TEST_CASE("apply_transactional: a failure midway leaves the SDFG as before", "[transforms][transaction]") {
  auto sdfg = make_map2d(true);
  auto& s1 = sdfg->add_state("after");
  sdfg->add_edge(only_state(*sdfg).id(), s1.id());
  auto& s2 = sdfg->add_state("third");
  sdfg->add_edge(s1.id(), s2.id());
  auto before = sdfg->clone_sdfg();
  for (bool cf : {false, true}) {
    INFO("control flow: " << cf);
    FailingMidway t(cf);
    AnalysisCache cache;
    auto cands = find_matches(*sdfg, t, cache);
    REQUIRE(!cands.empty());
    CHECK_THROWS_WITH(apply_transactional(*sdfg, t, cands.front().match, cache), "injected failure");
    CHECK(sdfg_difference(*before, *sdfg) == "");
    require_valid(*sdfg);
    // The restored SDFG still transforms and still computes the same.
    auto copy = sdfg->clone_sdfg();
    MapCollapse c;
    apply_and_check(*copy, c, {{{"N", 3}, {"M", 4}}});
  }
}

TEST_CASE("apply_transactional: refuses a match that does not apply", "[transforms][transaction]") {
  auto sdfg = make_map2d(false);
  MapCollapse t;
  AnalysisCache cache;
  auto cands = find_matches(*sdfg, t, cache);
  REQUIRE(cands.size() == 1);
  CHECK_THROWS_WITH(apply_transactional(*sdfg, t, cands[0].match, cache),
                    Contains("MapCollapse does not apply at 0.0.3:"));
  // An id past every id the state gave (its nodes: A, B, the tasklet, the map's entry and
  // exit, ids 0 to 4) was never a node: a mistyped match, not one a step removed (user30 F5).
  Match never{0, 0, {99}};
  CHECK(check_match(*sdfg, t, never, cache).reason() == "state 0.0 has no node 99 (5 nodes, ids below 5)");
  only_state(*sdfg).remove_node(1);  // B
  AnalysisCache after;               // (the graph changed outside a Transaction)
  Match gone{0, 0, {1}};
  CHECK(check_match(*sdfg, t, gone, after).reason() ==
        "element 1 of the match no longer exists (it was removed)");
  Match no_block{0, 7, {3}};
  CHECK(check_match(*sdfg, t, no_block, after).reason() == "no block 7 in region 0");
}

TEST_CASE("match JSON: DaCe's record format round trips", "[transforms][json]") {
  auto sdfg = std::make_unique<SDFG>("ids");
  sdfg->add_symbol("N");
  sdfg->add_array("A", ScalarType::Float64, {E("N")});
  sdfg->add_array("B", ScalarType::Float64, {E("N")});
  SDFGState& st = sdfg->add_state("main", true);
  // A removed node makes internal ids differ from dense indices.
  st.remove_node(st.add_tasklet("junk", {"x = 1", Language::Python}, {}, {}).id());
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& tk = st.add_tasklet("t", {"b = a", Language::Python}, {"a"}, {"b"});
  auto& me = st.add_map("m", {"i"}, S("0:N"));
  path_in(st, a.id(), {me.id()}, tk.id(), "a", {M("A", "0:N"), M("A", "i")});
  path_out(st, tk.id(), "b", {me.exit}, b.id(), {M("B", "i"), M("B", "0:N")});
  require_valid(*sdfg);
  MapTiling t;
  t.options().set("tile_sizes", std::vector<long long>{16, 4});
  AnalysisCache cache;
  auto cands = find_matches(*sdfg, t, cache);
  REQUIRE(cands.size() == 1);
  std::string text = match_to_json(*sdfg, t, cands[0].match);
  auto j = nlohmann::json::parse(text);
  CHECK(j["type"] == "PatternTransformation");
  CHECK(j["transformation"] == "MapTiling");
  CHECK(j["tile_sizes"] == nlohmann::json::array({16, 4}));
  CHECK(j["divides_evenly"] == false);
  CHECK(j["cfg_id"] == 0);
  CHECK(j["state_id"] == 0);
  CHECK(me.id() == 4);
  CHECK(j["_subgraph"]["0"] == 3);  // dense index: node 0 was removed
  auto rec = match_from_json(*sdfg, text);
  CHECK(rec.transformation == "MapTiling");
  CHECK(rec.match == cands[0].match);
  auto t2 = make_transformation(rec.transformation);
  set_options_from_record(*t2, rec);
  CHECK(t2->options().get_int_list("tile_sizes") == std::vector<long long>{16, 4});
  CHECK(match_to_json(*sdfg, *t2, rec.match) == text);
  CHECK_THROWS_WITH(match_from_json(*sdfg, R"({"type": "PatternTransformation", "transformation": "MapTiling",
                     "cfg_id": 0, "state_id": 0, "_subgraph": {"0": 17}})"),
                    Contains("no node with index 17"));
  rec.options_json["tile_sizes"] = "\"x\"";
  CHECK_THROWS_WITH(set_options_from_record(*t2, rec),
                    Contains("option 'tile_sizes' must be a list of integers (JSON), not \"x\""));
  // nlohmann's get<> turned 1.5 and true into 1 (issue 35): a record's option has the JSON type.
  rec.options_json["tile_sizes"] = "[16, 1.5]";
  CHECK_THROWS_WITH(set_options_from_record(*t2, rec), Contains("not [16, 1.5]"));
  rec.options_json["tile_sizes"] = "[16]";
  rec.options_json["divides_evenly"] = "1";
  CHECK_THROWS_WITH(set_options_from_record(*t2, rec),
                    Contains("option 'divides_evenly' must be true or false (JSON), not 1"));
}

TEST_CASE("analysis cache: lazy, reused, invalidated by applications", "[transforms][analysis]") {
  auto sdfg = make_map2d(true);
  AnalysisCache cache;
  auto& st = only_state(*sdfg);
  cache.scope_tree(st);
  std::size_t n = cache.computations();
  cache.scope_tree(st);
  cache.cfg_list(*sdfg);
  cache.cfg_list(*sdfg);
  CHECK(cache.computations() == n + 1);
  MapCollapse t;
  auto cands = find_matches(*sdfg, t, cache);
  std::size_t m = cache.computations();
  find_matches(*sdfg, t, cache);
  CHECK(cache.computations() == m);  // matching again recomputes nothing
  apply_transactional(*sdfg, t, cands[0].match, cache);
  CHECK(cache.nodes_of_kind(st, NodeKind::MapEntry).size() == 1);  // recomputed after invalidation
}

TEST_CASE("registry: every transformation has a name, description and pass", "[transforms][registry]") {
  auto names = transformation_names();
  CHECK(names.size() == 24);  // + OTFMapFusion, MapFusionHorizontal, LoopToMap, MapToForLoop, InlineSDFG,
                              // LoopMapInterchange, ScanColumnBlocking, MapFission, MapUnroll,
                              // MapVectorization, ScanFullBlocks, HaloExchangeOverlap, CodeReadFusion,
                              // CopyIntoMap
  for (const auto& n : names) {
    auto t = make_transformation(n);
    REQUIRE(t);
    CHECK(t->name() == n);
    CHECK_FALSE(t->description().empty());
    auto p = make_pass(pass_name_of(n));
    REQUIRE(p);
    CHECK(p->description() == t->description());
  }
  CHECK(pass_name_of("DeadDataflowElimination") == "dead-dataflow-elimination");
  CHECK(pass_name_of("OTFMapFusion") == "otf-map-fusion");
  CHECK(pass_name_of("CodeReadFusion") == "code-read-fusion");
  CHECK(make_transformation("MapFusion") != nullptr);
  CHECK(make_transformation("NoSuchTransformation") == nullptr);
  // Pass names (as `weir transforms list` shows them) name the same classes.
  REQUIRE(make_transformation("map-fusion") != nullptr);
  CHECK(make_transformation("map-fusion")->name() == make_transformation("MapFusion")->name());
  CHECK(make_transformation("no-such-transformation") == nullptr);
}

TEST_CASE("corpus: applicable transformations keep DaCe's SDFGs valid", "[transforms][corpus]") {
  std::size_t applied = 0;
  for (const auto& path : dace_corpus_files()) {
    INFO(path.string());
    auto original = load_sdfg(path.string());
    if (!validate(*original).empty()) continue;  // only files weir considers valid
    for (const auto& name : transformation_names()) {
      INFO(name);
      auto t = make_transformation(name);
      AnalysisCache cache;
      auto cands = find_matches(*original, *t, cache);
      std::size_t tried = 0;
      for (const auto& c : cands) {
        if (!c.result || tried >= 4) continue;
        ++tried;
        auto copy = original->clone_sdfg();
        AnalysisCache c2;
        INFO(c.match.id());
        apply_transactional(*copy, *t, c.match, c2);
        require_valid(*copy);
        ++applied;
      }
    }
    auto simplified = original->clone_sdfg();
    simplify(*simplified);
    require_valid(*simplified);
  }
  CHECK(applied > 0);
}
