// Tests of MapFusion: structure, validity and semantics (reference interpreter) after fusing,
// refusal reasons, and every match applied on DaCe's corpus.
#include <catch2/catch.hpp>

#include <algorithm>

#include "corpus.h"
#include "support/builders.h"
#include "weir/transforms/map_fusion.h"
#include "weir/transforms/pipeline.h"
#include "weir/transforms/registry.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;
using Catch::Matchers::Contains;

namespace {

const std::vector<Symbols> kSizes{{{"N", 5}, {"M", 7}}, {{"N", 1}, {"M", 3}}, {{"N", 8}, {"M", 6}}};

struct ChainSpec {
  std::string range1 = "0:N, 0:M";
  std::string range2 = "0:N, 0:M";
  std::string read = "k, l";  ///< where map 2 reads B (its parameters are k, l)
  bool transient = true;
  bool second_output = false;  ///< map 1 also writes B2 = a + 5, which map 2 reads too
};

/// first: B[i, j] = A[i, j] * 2 over `range1`; second: C[k, l] = B[read] + 1 over `range2`.
std::unique_ptr<SDFG> make_chain(const ChainSpec& spec = {}) {
  auto sdfg = std::make_unique<SDFG>("chain");
  sdfg->add_symbol("N");
  sdfg->add_symbol("M");
  sdfg->add_array("A", ScalarType::Float64, {E("N"), E("M")});
  sdfg->add_array("B", ScalarType::Float64, {E("N"), E("M")}, spec.transient);
  sdfg->add_array("C", ScalarType::Float64, {E("N"), E("M")});
  if (spec.second_output) sdfg->add_array("B2", ScalarType::Float64, {E("N"), E("M")}, true);
  SDFGState& st = sdfg->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& c = st.add_access("C");
  auto& m1 = st.add_map("first", {"i", "j"}, S(spec.range1));
  auto& m2 = st.add_map("second", {"k", "l"}, S(spec.range2));
  std::vector<std::string> outs{"b"};
  if (spec.second_output) outs.push_back("b2");
  auto& t1 = st.add_tasklet(
      "double", {spec.second_output ? "b = a * 2; b2 = a + 5" : "b = a * 2", Language::Python}, {"a"}, outs);
  std::vector<std::string> ins{"b"};
  if (spec.second_output) ins.push_back("b2");
  auto& t2 = st.add_tasklet("inc", {spec.second_output ? "c = b + 1 - b2" : "c = b + 1", Language::Python},
                            ins, {"c"});
  path_in(st, a.id(), {m1.id()}, t1.id(), "a", {M("A", spec.range1), M("A", "i, j")});
  path_out(st, t1.id(), "b", {m1.exit}, b.id(), {M("B", "i, j"), M("B", spec.range1)});
  path_in(st, b.id(), {m2.id()}, t2.id(), "b", {M("B", spec.range1), M("B", spec.read)});
  path_out(st, t2.id(), "c", {m2.exit}, c.id(), {M("C", "k, l"), M("C", spec.range2)});
  if (spec.second_output) {
    auto& b2 = st.add_access("B2");
    path_out(st, t1.id(), "b2", {m1.exit}, b2.id(), {M("B2", "i, j"), M("B2", spec.range1)});
    path_in(st, b2.id(), {m2.id()}, t2.id(), "b2", {M("B2", spec.range1), M("B2", "k, l")});
  }
  return sdfg;
}

std::size_t count_maps(const SDFG& sdfg) {
  std::size_t n = 0;
  for (SDFGState* st : sdfg.all_states()) n += maps_of(*st).size();
  return n;
}

}  // namespace

TEST_CASE("MapFusion: a two-map chain with a transient becomes one map", "[transforms][map-fusion]") {
  auto sdfg = make_chain();
  MapFusion t;
  apply_and_check(*sdfg, t, kSizes);
  SDFGState& st = only_state(*sdfg);
  auto maps = maps_of(st);
  REQUIRE(maps.size() == 1);
  CHECK(maps[0]->map->label == "first");
  CHECK(maps[0]->map->params == std::vector<std::string>{"i", "j"});
  CHECK_FALSE(sdfg->has_data("B"));  // used nowhere else: gone
  REQUIRE(sdfg->has_data("B_0"));
  const DataDescriptor& local = sdfg->data("B_0");
  CHECK(local.is_scalar());
  CHECK(local.transient);
  CHECK(local.storage == StorageType::Register);
  // The scalar lives inside the fused scope; the consumer reads it with renamed parameters.
  auto tree = st.scope_tree();
  for (Node* n : st.nodes()) {
    if (auto* an = n->as<AccessNode>(); an && an->data == "B_0") CHECK(tree.parent[n->id()] == maps[0]->id());
    if (auto* tk = n->as<Tasklet>(); tk && tk->label == "inc")
      for (EdgeId e : st.out_edges(n->id())) CHECK(st.edge(e).memlet.subset == S("i, j"));
  }
  CHECK(st.num_nodes() == 7);  // A, C, entry, exit, two tasklets, B_0
}

TEST_CASE("MapFusion: several intermediates between the same maps fuse at once", "[transforms][map-fusion]") {
  ChainSpec spec;
  spec.second_output = true;
  auto sdfg = make_chain(spec);
  MapFusion t;
  AnalysisCache cache;
  CHECK(find_matches(*sdfg, t, cache).size() == 1);  // one candidate per pair of maps
  apply_and_check(*sdfg, t, kSizes);
  CHECK(count_maps(*sdfg) == 1);
  CHECK_FALSE(sdfg->has_data("B"));
  CHECK_FALSE(sdfg->has_data("B2"));
  CHECK(sdfg->has_data("B_0"));
  CHECK(sdfg->has_data("B2_0"));
}

TEST_CASE("MapFusion: a transient used elsewhere is still written out", "[transforms][map-fusion]") {
  auto sdfg = make_chain();
  // A later state copies B into the output D.
  sdfg->add_array("D", ScalarType::Float64, {E("N"), E("M")});
  SDFGState& main = only_state(*sdfg);
  SDFGState& after = sdfg->add_state("after");
  sdfg->add_edge(main.id(), after.id());
  auto& b = after.add_access("B");
  auto& d = after.add_access("D");
  after.add_edge(b.id(), "", d.id(), "", M("B", "0:N, 0:M"));
  MapFusion t;
  apply_and_check(*sdfg, t, kSizes);
  CHECK(sdfg->has_data("B"));
  CHECK(sdfg->has_data("B_0"));
  CHECK(main.access_nodes("B").size() == 2);  // outside, and inside the scope copying B_0 out
  auto tree = main.scope_tree();
  auto outer_b = main.access_nodes("B");
  CHECK(((tree.parent[outer_b[0]->id()] == kNoNode) != (tree.parent[outer_b[1]->id()] == kNoNode)));
  CHECK(count_maps(*sdfg) == 1);
}

TEST_CASE("MapFusion: renames the consumer's parameters in code and memlets", "[transforms][map-fusion]") {
  auto sdfg = make_chain();
  for (Node* n : only_state(*sdfg).nodes())
    if (auto* tk = n->as<Tasklet>(); tk && tk->label == "inc") tk->code.code = "c = b + 1 + k * 10 - l";
  MapFusion t;
  apply_and_check(*sdfg, t, kSizes);
  for (Node* n : only_state(*sdfg).nodes())
    if (auto* tk = n->as<Tasklet>(); tk && tk->label == "inc")
      CHECK(tk->code.code == "c = b + 1 + (i) * 10 - (j)");
}

TEST_CASE("MapFusion: the map-fusion pass fuses a chain of three maps",
          "[transforms][map-fusion][pipeline]") {
  auto sdfg = make_chain();
  // Append a third map: E[p, q] = C[p, q] * 3 with C made transient.
  sdfg->data("C").transient = true;
  sdfg->add_array("E", ScalarType::Float64, {E("N"), E("M")});
  SDFGState& st = only_state(*sdfg);
  auto& c = *st.access_nodes("C").front();
  auto& e = st.add_access("E");
  auto& m3 = st.add_map("third", {"p", "q"}, S("0:N, 0:M"));
  auto& t3 = st.add_tasklet("triple", {"e = c * 3", Language::Python}, {"c"}, {"e"});
  path_in(st, c.id(), {m3.id()}, t3.id(), "c", {M("C", "0:N, 0:M"), M("C", "p, q")});
  path_out(st, t3.id(), "e", {m3.exit}, e.id(), {M("E", "p, q"), M("E", "0:N, 0:M")});
  require_valid(*sdfg);
  auto before = sdfg->clone_sdfg();
  auto pipeline = parse_pipeline("map-fusion");
  CHECK(pipeline->run(*sdfg) == 2);
  require_valid(*sdfg);
  CHECK(count_maps(*sdfg) == 1);
  for (const auto& syms : kSizes) CHECK(run_program(*before, syms, 3) == run_program(*sdfg, syms, 3));
}

TEST_CASE("MapFusion: refuses with reasons", "[transforms][map-fusion]") {
  MapFusion t;
  SECTION("ranges differ") {
    ChainSpec spec;
    spec.range2 = "0:N, 1:M-1";
    auto sdfg = make_chain(spec);
    CHECK(refusal(*sdfg, t) == "ranges differ in dimension 1 (0:M vs 1:M - 1)");
  }
  SECTION("number of dimensions differs") {
    auto sdfg = make_chain();
    auto maps = maps_of(only_state(*sdfg));
    maps[1]->map->params = {"k"};
    maps[1]->map->range = S("0:N");
    CHECK(refusal(*sdfg, t) == "map 'first' has 2 dimension(s), map 'second' has 1");
  }
  SECTION("stencil offsets") {
    ChainSpec spec;
    spec.range1 = spec.range2 = "0:N-1, 0:M";
    spec.read = "k + 1, l";
    auto sdfg = make_chain(spec);
    CHECK(refusal(*sdfg, t) ==
          "'B' is read at offsets (i + 1, j) that map 'first' does not write at the same point (it writes "
          "B[i, j])");
  }
  SECTION("not transient") {
    ChainSpec spec;
    spec.transient = false;
    auto sdfg = make_chain(spec);
    CHECK(refusal(*sdfg, t) == "'B' is not transient");
  }
  SECTION("an intermediate node other than the access node") {
    auto sdfg = make_chain();
    SDFGState& st = only_state(*sdfg);
    // B is also copied into U, which the second map reads as well.
    sdfg->add_array("U", ScalarType::Float64, {E("N"), E("M")}, true);
    auto& b = *st.access_nodes("B").front();
    auto& u = st.add_access("U");
    st.add_edge(b.id(), "", u.id(), "", M("B", "0:N, 0:M"));
    auto maps = maps_of(st);
    MapEntry& second = *maps[1];
    Tasklet* inc = nullptr;
    for (Node* n : st.nodes())
      if (auto* tk = n->as<Tasklet>(); tk && tk->label == "inc") inc = tk;
    REQUIRE(inc);
    inc->in_connectors["u"] = std::nullopt;
    inc->code.code = "c = b + u";
    path_in(st, u.id(), {second.id()}, inc->id(), "u", {M("U", "0:N, 0:M"), M("U", "k, l")});
    require_valid(*sdfg);
    CHECK_THAT(refusal(*sdfg, t),
               Contains("an intermediate node other than the access node lies between the maps: node " +
                        std::to_string(u.id())));
  }
  SECTION("several writes from one iteration") {
    ChainSpec spec;
    auto sdfg = make_chain(spec);
    for (const DataflowEdge* e : only_state(*sdfg).edges())
      if (e->memlet.data == "B" && only_state(*sdfg).node(e->src).as<Tasklet>())
        only_state(*sdfg).edge(e->id).memlet.subset = S("i, 0");
    // Second map reads B[k, 0] too, so only the write pattern is wrong.
    for (const DataflowEdge* e : only_state(*sdfg).edges())
      if (e->memlet.data == "B" && only_state(*sdfg).node(e->dst).as<Tasklet>())
        only_state(*sdfg).edge(e->id).memlet.subset = S("k, 0");
    CHECK(refusal(*sdfg, t) ==
          "map 'first' writes B[i, 0] from several iterations (parameter 'j' does not index it alone)");
  }
}

TEST_CASE("MapFusion: is registered", "[transforms][map-fusion][registry]") {
  auto t = make_transformation("MapFusion");
  REQUIRE(t);
  CHECK(t->name() == "MapFusion");
  REQUIRE(make_pass("map-fusion"));
}

TEST_CASE("MapFusion: every match on the corpus keeps it valid", "[transforms][map-fusion][corpus]") {
  std::size_t fused = 0, files = 0;
  for (const auto& path : dace_corpus_files()) {
    INFO(path.string());
    auto sdfg = load_sdfg(path.string());
    if (!validate(*sdfg).empty()) continue;
    ++files;
    MapFusion t;
    for (int round = 0; round < 200; ++round) {
      AnalysisCache cache;
      auto cands = find_matches(*sdfg, t, cache);
      auto it = std::find_if(cands.begin(), cands.end(), [](const Candidate& c) { return c.result.ok(); });
      if (it == cands.end()) break;
      INFO(it->match.id());
      apply_transactional(*sdfg, t, it->match, cache);
      require_valid(*sdfg);
      ++fused;
    }
  }
  INFO("fused " << fused << " map pairs in " << files << " files");
  CHECK(files > 0);
}
