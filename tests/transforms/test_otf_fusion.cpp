// Tests of fusion across offsets (OTFMapFusion), horizontal fusion (MapFusionHorizontal) and
// the greedy fusion pass: structure, validity after every application, refusal reasons, and
// semantics (reference interpreter on seeded random inputs, several sizes) before and after.
#include <catch2/catch.hpp>

#include <chrono>

#include "support/builders.h"
#include "weir/transforms/auto_optimize.h"
#include "weir/transforms/greedy_map_fusion.h"
#include "weir/transforms/map_fusion_horizontal.h"
#include "weir/transforms/otf_map_fusion.h"
#include "weir/transforms/registry.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;
using Catch::Matchers::Contains;

namespace {

const std::vector<Symbols> kSizes{{{"N", 5}}, {{"N", 1}}, {{"N", 9}}};

/// A map `label` over `range` (parameter `p`) computing `out`[p] = code(inputs read at `reads`).
void add_stencil(SDFGState& st, std::map<std::string, NodeId>& nodes, const std::string& label,
                 const std::string& p, const std::string& range,
                 const std::vector<std::pair<std::string, std::string>>& reads, const std::string& code,
                 const std::string& out) {
  auto node_of = [&](const std::string& d) {
    auto it = nodes.find(d);
    if (it == nodes.end()) it = nodes.emplace(d, st.add_access(d).id()).first;
    return it->second;
  };
  std::vector<std::string> ins;
  for (std::size_t k = 0; k < reads.size(); ++k) ins.push_back("x" + std::to_string(k));
  auto& m = st.add_map(label, {p}, S(range));
  auto& t = st.add_tasklet(label, {code, Language::Python}, ins, {"y"});
  for (std::size_t k = 0; k < reads.size(); ++k) {
    const auto& [d, at] = reads[k];
    path_in(st, node_of(d), {m.id()}, t.id(), ins[k], {M(d, "0:N+1004"), M(d, at)});
  }
  NodeId o = st.add_access(out).id();
  nodes[out] = o;
  path_out(st, t.id(), "y", {m.exit}, o, {M(out, p), M(out, range)});
}

/// A -> T[i] = 2 * A[i] over 0:N+2 -> C[k] = T[k] + T[k+1] + T[k+2] * A[k] over 0:N.
std::unique_ptr<SDFG> make_offset_chain(const std::string& read3 = "k + 2", bool transient = true) {
  auto sdfg = std::make_unique<SDFG>("offsets");
  sdfg->add_symbol("N");
  sdfg->add_array("A", ScalarType::Float64, {E("N + 1004")});
  sdfg->add_array("T", ScalarType::Float64, {E("N + 1004")}, transient);
  sdfg->add_array("C", ScalarType::Float64, {E("N + 1004")});
  SDFGState& st = sdfg->add_state("main", true);
  std::map<std::string, NodeId> nodes;
  add_stencil(st, nodes, "producer", "i", "0:N+2", {{"A", "i"}}, "y = 2 * x0", "T");
  add_stencil(st, nodes, "consumer", "k", "0:N", {{"T", "k"}, {"T", "k + 1"}, {"T", read3}, {"A", "k"}},
              "y = x0 + x1 + x2 * x3", "C");
  return sdfg;
}

std::size_t count_kind(const SDFG& sdfg, NodeKind k) {
  std::size_t n = 0;
  for (SDFGState* st : sdfg.all_states())
    for (Node* x : st->nodes()) n += x->kind() == k;
  return n;
}

void check_semantics(const SDFG& before, const SDFG& after) {
  require_valid(after);
  for (const auto& syms : kSizes)
    for (unsigned seed : {1u, 7u, 42u}) {
      INFO("seed " << seed);
      REQUIRE(run_program(before, syms, seed) == run_program(after, syms, seed));
    }
}

}  // namespace

TEST_CASE("OTFMapFusion: a consumer reading at offsets recomputes the producer per point",
          "[transforms][otf-fusion]") {
  auto sdfg = make_offset_chain();
  OTFMapFusion t;
  apply_and_check(*sdfg, t, kSizes);
  CHECK(count_kind(*sdfg, NodeKind::MapEntry) == 1);
  CHECK(!sdfg->has_data("T"));
  // One copy of the producer per distinct point (k, k + 1, k + 2), plus the consumer.
  CHECK(count_kind(*sdfg, NodeKind::Tasklet) == 4);
  // A enters the fused map through one connector, its outer memlet widened to A[0:N+2].
  SDFGState& st = only_state(*sdfg);
  auto& m = *maps_of(st)[0];
  std::size_t a_in = 0;
  for (EdgeId e : st.in_edges(m.id()))
    if (st.edge(e).memlet.data == "A") {
      ++a_in;
      CHECK(st.edge(e).memlet.subset.str() == "0:N + 2");
    }
  CHECK(a_in == 1);
}

TEST_CASE("OTFMapFusion: a transposed 2-D producer is solved per dimension", "[transforms][otf-fusion]") {
  // T[j, i] = A[i, j] * 2 + 1 over i in 0:N+1, j in 0:N; C[k, l] = T[l, k] - T[l + 1, k + 1]
  // * A[k, l] over k, l in 0:N (T is N+1 x N+1: dimension 0 follows the producer's j).
  auto sdfg = std::make_unique<SDFG>("transposed");
  sdfg->add_symbol("N");
  sdfg->add_array("A", ScalarType::Float64, {E("N + 2"), E("N + 2")});
  sdfg->add_array("T", ScalarType::Float64, {E("N + 2"), E("N + 2")}, true);
  sdfg->add_array("C", ScalarType::Float64, {E("N + 2"), E("N + 2")});
  SDFGState& st = sdfg->add_state("main", true);
  auto& a = st.add_access("A");
  auto& t = st.add_access("T");
  auto& c = st.add_access("C");
  auto& m1 = st.add_map("producer", {"i", "j"}, S("0:N+2, 0:N+1"));
  auto& t1 = st.add_tasklet("producer", {"y = x * 2 + 1", Language::Python}, {"x"}, {"y"});
  path_in(st, a.id(), {m1.id()}, t1.id(), "x", {M("A", "0:N+2, 0:N+1"), M("A", "i, j")});
  path_out(st, t1.id(), "y", {m1.exit}, t.id(), {M("T", "j, i"), M("T", "0:N+1, 0:N+2")});
  auto& m2 = st.add_map("consumer", {"k", "l"}, S("0:N, 0:N"));
  auto& t2 = st.add_tasklet("consumer", {"z = p - q * r", Language::Python}, {"p", "q", "r"}, {"z"});
  path_in(st, t.id(), {m2.id()}, t2.id(), "p", {M("T", "0:N+1, 0:N+1"), M("T", "l, k")});
  path_in(st, t.id(), {m2.id()}, t2.id(), "q", {M("T", "0:N+1, 0:N+1"), M("T", "l + 1, k + 1")});
  path_in(st, a.id(), {m2.id()}, t2.id(), "r", {M("A", "0:N, 0:N"), M("A", "k, l")});
  path_out(st, t2.id(), "z", {m2.exit}, c.id(), {M("C", "k, l"), M("C", "0:N, 0:N")});
  OTFMapFusion f;
  apply_and_check(*sdfg, f, kSizes);
  CHECK(count_kind(*sdfg, NodeKind::Tasklet) == 3);
  CHECK(!sdfg->has_data("T"));
  // The copies read A at the points the producer would have: A[k, l] and A[k + 1, l + 1].
  std::set<std::string> reads;
  for (const auto* e : only_state(*sdfg).edges())
    if (e->memlet.data == "A" && st.node(e->dst).as<Tasklet>()) reads.insert(e->memlet.subset.str());
  CHECK(reads == std::set<std::string>{"k, l", "k + 1, l + 1"});
}

TEST_CASE("OTFMapFusion: an input overwritten after the consumer is safe to recompute from",
          "[transforms][otf-fusion]") {
  // After the chain, a map writes A from C (a time step's ping-pong): the consumer finishes
  // before A is overwritten, so the producer's copies still read the old A.
  auto sdfg = make_offset_chain();
  SDFGState& st = only_state(*sdfg);
  std::map<std::string, NodeId> nodes;
  for (Node* n : st.nodes())
    if (auto* a = n->as<AccessNode>(); a && a->data == "C") nodes["C"] = a->id();
  add_stencil(st, nodes, "overwrite", "j", "0:N", {{"C", "j"}}, "y = x0 * 0.5", "A");
  OTFMapFusion t;
  apply_and_check(*sdfg, t, kSizes);
  CHECK(!sdfg->has_data("T"));
}

TEST_CASE("OTFMapFusion: equal points share one copy", "[transforms][otf-fusion]") {
  auto sdfg = make_offset_chain("k + 1");
  OTFMapFusion t;
  apply_and_check(*sdfg, t, kSizes);
  CHECK(count_kind(*sdfg, NodeKind::Tasklet) == 3);
}

TEST_CASE("OTFMapFusion: refusals say why", "[transforms][otf-fusion]") {
  {
    auto sdfg = make_offset_chain("k + 3");
    CHECK_THAT(
        refusal(*sdfg, OTFMapFusion()),
        Contains("cannot prove that map 'consumer' reads T[k + 3] only where map 'producer' writes it"));
  }
  {
    auto sdfg = make_offset_chain("k + 2", false);
    CHECK_THAT(refusal(*sdfg, OTFMapFusion()), Contains("'T' is not transient"));
  }
  {
    auto sdfg = make_offset_chain();
    OTFMapFusion t;
    t.options().set("max_points", 2LL);
    CHECK_THAT(refusal(*sdfg, t), Contains("at 3 points, more than max_points=2"));
  }
  {
    // Another map of the state writes A, which the producer reads: recomputing later could
    // read the new values.
    auto sdfg = make_offset_chain();
    SDFGState& st = only_state(*sdfg);
    sdfg->add_array("Z", ScalarType::Float64, {E("N + 1004")});
    std::map<std::string, NodeId> nodes;
    add_stencil(st, nodes, "overwrite", "j", "0:N", {{"Z", "j"}}, "y = x0", "A");
    CHECK_THAT(refusal(*sdfg, OTFMapFusion()),
               Contains("'A', which map 'producer' reads, is also written in the state where map 'consumer' "
                        "may not have read it yet"));
  }
  {
    // The producer's code names its parameter: copies at other points would be wrong.
    auto sdfg = make_offset_chain();
    for (Node* n : only_state(*sdfg).nodes())
      if (auto* tk = n->as<Tasklet>(); tk && tk->label == "producer") tk->code.code = "y = 2 * x0 + i";
    CHECK_THAT(refusal(*sdfg, OTFMapFusion()),
               Contains("tasklet 'producer' uses map parameter 'i' in its code"));
  }
}

TEST_CASE("OTFMapFusion: a map parameter's name inside a string literal is not a use",
          "[transforms][otf-fusion]") {
  // Regression: the text scanner behind "uses map parameter" promised to skip string literals
  // and did not, so this producer was refused. On the syntax tree 'i' is a constant, not a name.
  auto sdfg = make_offset_chain();
  const std::string code = "y = 2 * x0 if 'i' != 'k' else x0  # i";
  for (Node* n : only_state(*sdfg).nodes())
    if (auto* tk = n->as<Tasklet>(); tk && tk->label == "producer") tk->code.code = code;
  require_valid(*sdfg);
  OTFMapFusion t;
  transforms::AnalysisCache cache;
  auto cands = transforms::find_matches(*sdfg, t, cache);
  const transforms::Candidate* ok = nullptr;
  for (const auto& c : cands) {
    if (!c.result) CHECK_THAT(c.result.reason(), !Contains("uses map parameter"));
    if (c.result && !ok) ok = &c;
  }
  REQUIRE(ok);
  transforms::apply_transactional(*sdfg, t, ok->match, cache);
  require_valid(*sdfg);
  // The three copies of the producer keep its text byte for byte (literal and comment included).
  std::size_t copies = 0;
  for (Node* n : only_state(*sdfg).nodes())
    if (auto* tk = n->as<Tasklet>(); tk && tk->code.code == code) ++copies;
  CHECK(copies == 3);
}

TEST_CASE("OTFMapFusion: a transient with another reader stays and is still written",
          "[transforms][otf-fusion]") {
  auto sdfg = make_offset_chain();
  SDFGState& st = only_state(*sdfg);
  sdfg->add_array("D", ScalarType::Float64, {E("N + 1004")});
  std::map<std::string, NodeId> nodes;
  for (Node* n : st.nodes())
    if (auto* a = n->as<AccessNode>()) nodes[a->data] = a->id();
  add_stencil(st, nodes, "other", "j", "0:N", {{"T", "j + 1"}}, "y = x0 - 1", "D");
  OTFMapFusion t;
  apply_and_check(*sdfg, t, kSizes);
  CHECK(sdfg->has_data("T"));
  CHECK(count_kind(*sdfg, NodeKind::MapEntry) == 3);
}

/// T[i] = 2 * A[i] over 0:N+2 -> A[k] = T[`read`] + 1 over 0:N: the consumer updates in place
/// what the producer reads (gemm's `C = alpha * A @ B + beta * C` after DaCe's simplify).
std::unique_ptr<SDFG> make_in_place_update(const std::string& read) {
  auto sdfg = std::make_unique<SDFG>("in_place");
  sdfg->add_symbol("N");
  sdfg->add_array("A", ScalarType::Float64, {E("N + 1004")});
  sdfg->add_array("T", ScalarType::Float64, {E("N + 1004")}, true);
  SDFGState& st = sdfg->add_state("main", true);
  std::map<std::string, NodeId> nodes;
  add_stencil(st, nodes, "producer", "i", "0:N+2", {{"A", "i"}}, "y = 2 * x0", "T");
  add_stencil(st, nodes, "consumer", "k", "0:N", {{"T", read}}, "y = x0 + 1", "A");
  return sdfg;
}

TEST_CASE("OTFMapFusion: a consumer updating in place what the producer reads, element by element, fuses",
          "[transforms][otf-fusion]") {
  // Iteration k reads A[k] (through its copy of the producer) before it writes A[k], and no
  // other iteration touches A[k]: the fused map computes what the two maps did.
  auto sdfg = make_in_place_update("k");
  OTFMapFusion t;
  apply_and_check(*sdfg, t, kSizes);
  CHECK(!sdfg->has_data("T"));
  CHECK(count_kind(*sdfg, NodeKind::MapEntry) == 1);
  for (const auto& syms : kSizes) {
    // By hand: A[k] becomes 2 * A[k] + 1 for k < N, the rest stays.
    Interpreter in(*sdfg, syms);
    in.randomize(3);
    std::vector<double> a = in.mem["A"];
    in.run();
    long long n = syms.at("N");
    for (long long k = 0; k < n; ++k) a[static_cast<std::size_t>(k)] = 2 * a[static_cast<std::size_t>(k)] + 1;
    CHECK(in.mem["A"] == a);
  }
}

TEST_CASE("OTFMapFusion: an in-place update that another iteration's copy would read is refused",
          "[transforms][otf-fusion]") {
  // Iteration k's copy would read A[k + 1], which iteration k + 1 may already have written.
  CHECK_THAT(
      refusal(*make_in_place_update("k + 1"), OTFMapFusion()),
      Contains("map 'consumer' writes 'A', which map 'producer' reads, and its copy for T[k + 1] reads "
               "A[k + 1] at another element than A[k]"));
  // A stencil's other points are other iterations' elements too.
  CHECK_THAT(refusal(*make_in_place_update("k + 2"), OTFMapFusion()),
             Contains("at another element than A[k]"));
}

TEST_CASE("MapFusionHorizontal: independent siblings over one range become one map",
          "[transforms][horizontal-fusion]") {
  auto sdfg = std::make_unique<SDFG>("siblings");
  sdfg->add_symbol("N");
  for (const char* n : {"A", "C", "D"}) sdfg->add_array(n, ScalarType::Float64, {E("N + 1004")});
  SDFGState& st = sdfg->add_state("main", true);
  std::map<std::string, NodeId> nodes;
  add_stencil(st, nodes, "left", "i", "0:N", {{"A", "i"}, {"A", "i + 1"}}, "y = x0 + x1", "C");
  add_stencil(st, nodes, "right", "j", "0:N", {{"A", "j + 2"}}, "y = x0 * 3", "D");
  MapFusionHorizontal t;
  apply_and_check(*sdfg, t, kSizes);
  auto maps = maps_of(only_state(*sdfg));
  REQUIRE(maps.size() == 1);
  CHECK(maps[0]->map->params == std::vector<std::string>{"i"});

  // A consumer of the first map is not independent of it.
  auto dep = std::make_unique<SDFG>("dependent");
  dep->add_symbol("N");
  for (const char* n : {"A", "C", "D"}) dep->add_array(n, ScalarType::Float64, {E("N + 1004")});
  SDFGState& s2 = dep->add_state("main", true);
  std::map<std::string, NodeId> n2;
  add_stencil(s2, n2, "first", "i", "0:N", {{"A", "i"}}, "y = x0 + 1", "C");
  add_stencil(s2, n2, "second", "j", "0:N", {{"A", "j"}, {"C", "j"}}, "y = x0 * x1", "D");
  CHECK_THAT(refusal(*dep, MapFusionHorizontal()),
             Contains("map 'first' writes 'C', which map 'second' reads"));
}

TEST_CASE("greedy-map-fusion: a two-level stencil chain fuses consumer first, one copy per point",
          "[transforms][greedy-fusion]") {
  // L[i] = A[i] * 4 over 0:N+4; F[j] = L[j+1] - L[j] over 0:N+3; C[k] = F[k+1] - F[k] over 0:N+2.
  auto sdfg = std::make_unique<SDFG>("chain2");
  sdfg->add_symbol("N");
  sdfg->add_array("A", ScalarType::Float64, {E("N + 1004")});
  sdfg->add_array("L", ScalarType::Float64, {E("N + 1004")}, true);
  sdfg->add_array("F", ScalarType::Float64, {E("N + 1004")}, true);
  sdfg->add_array("C", ScalarType::Float64, {E("N + 1004")});
  SDFGState& st = sdfg->add_state("main", true);
  std::map<std::string, NodeId> nodes;
  add_stencil(st, nodes, "lap", "i", "0:N+4", {{"A", "i"}}, "y = x0 * 4", "L");
  add_stencil(st, nodes, "flux", "j", "0:N+3", {{"L", "j + 1"}, {"L", "j"}}, "y = x0 - x1", "F");
  add_stencil(st, nodes, "div", "k", "0:N+2", {{"F", "k + 1"}, {"F", "k"}}, "y = x0 - x1", "C");
  auto before = sdfg->clone_sdfg();
  AnalysisCache cache;
  GreedyMapFusion pass;
  CHECK(pass.run(*sdfg, cache) == 2);
  check_semantics(*before, *sdfg);
  CHECK(count_kind(*sdfg, NodeKind::MapEntry) == 1);
  CHECK(!sdfg->has_data("L"));
  CHECK(!sdfg->has_data("F"));
  // div + 2 flux copies + 3 lap copies (points k, k + 1, k + 2; k + 1 is shared).
  CHECK(count_kind(*sdfg, NodeKind::Tasklet) == 6);
}

TEST_CASE("greedy-map-fusion: a transient read by two maps is recomputed in both and disappears",
          "[transforms][greedy-fusion]") {
  // T[i] = A[i] * 3 over 0:N+2; C[k] = T[k] + T[k + 1] over 0:N+1; D[j] = T[j + 2] - T[j] over
  // 0:N (ranges differ, so the consumers are not fused horizontally).
  auto sdfg = std::make_unique<SDFG>("two_readers");
  sdfg->add_symbol("N");
  sdfg->add_array("A", ScalarType::Float64, {E("N + 1004")});
  sdfg->add_array("T", ScalarType::Float64, {E("N + 1004")}, true);
  sdfg->add_array("C", ScalarType::Float64, {E("N + 1004")});
  sdfg->add_array("D", ScalarType::Float64, {E("N + 1004")});
  SDFGState& st = sdfg->add_state("main", true);
  std::map<std::string, NodeId> nodes;
  add_stencil(st, nodes, "producer", "i", "0:N+2", {{"A", "i"}}, "y = x0 * 3", "T");
  add_stencil(st, nodes, "c", "k", "0:N+1", {{"T", "k"}, {"T", "k + 1"}}, "y = x0 + x1", "C");
  add_stencil(st, nodes, "d", "j", "0:N", {{"T", "j + 2"}, {"T", "j"}}, "y = x0 - x1", "D");
  auto before = sdfg->clone_sdfg();
  AnalysisCache cache;
  GreedyMapFusion pass;
  CHECK(pass.run(*sdfg, cache) == 2);
  check_semantics(*before, *sdfg);
  CHECK(!sdfg->has_data("T"));
  CHECK(count_kind(*sdfg, NodeKind::MapEntry) == 2);
  CHECK(count_kind(*sdfg, NodeKind::Tasklet) == 6);
}

TEST_CASE("greedy-map-fusion: a 1-D producer read by every row of a 2-D map is not recomputed per row",
          "[transforms][greedy-fusion]") {
  // T[j] = sqrt(A[j]) over 0:M; C[i, j] = B[i, j] / T[j] over 0:N, 0:M (correlation's column
  // norms). Fusing would compute each T[j] N times: the map reads T independently of i.
  auto sdfg = std::make_unique<SDFG>("broadcast");
  sdfg->add_symbol("N");
  sdfg->add_symbol("M");
  sdfg->add_array("A", ScalarType::Float64, {E("M")});
  sdfg->add_array("T", ScalarType::Float64, {E("M")}, true);
  sdfg->add_array("B", ScalarType::Float64, {E("N"), E("M")});
  sdfg->add_array("C", ScalarType::Float64, {E("N"), E("M")});
  SDFGState& st = sdfg->add_state("main", true);
  auto& a = st.add_access("A");
  auto& t = st.add_access("T");
  auto& b = st.add_access("B");
  auto& c = st.add_access("C");
  auto& pm = st.add_map("norms", {"j"}, S("0:M"));
  auto& pt = st.add_tasklet("norm", {"y = math.sqrt(x)", Language::Python}, {"x"}, {"y"});
  path_in(st, a.id(), {pm.id()}, pt.id(), "x", {M("A", "0:M"), M("A", "j")});
  path_out(st, pt.id(), "y", {pm.exit}, t.id(), {M("T", "j"), M("T", "0:M")});
  auto& cm = st.add_map("scale", {"i", "j"}, S("0:N, 0:M"));
  auto& ct = st.add_tasklet("scale", {"y = u / v", Language::Python}, {"u", "v"}, {"y"});
  path_in(st, b.id(), {cm.id()}, ct.id(), "u", {M("B", "0:N, 0:M"), M("B", "i, j")});
  path_in(st, t.id(), {cm.id()}, ct.id(), "v", {M("T", "0:M"), M("T", "j")});
  path_out(st, ct.id(), "y", {cm.exit}, c.id(), {M("C", "i, j"), M("C", "0:N, 0:M")});
  require_valid(*sdfg);
  AnalysisCache cache;
  GreedyMapFusion pass;
  CHECK(pass.run(*sdfg, cache) == 0);
  CHECK(count_kind(*sdfg, NodeKind::MapEntry) == 2);
  CHECK(sdfg->has_data("T"));
  // The option (and the OTFMapFusion transformation, applied by hand) still allow it.
  GreedyMapFusion broadcast;
  broadcast.options().set("broadcast", true);
  AnalysisCache cache2;
  CHECK(broadcast.run(*sdfg, cache2) == 1);
  CHECK(count_kind(*sdfg, NodeKind::MapEntry) == 1);
}

TEST_CASE("auto_optimize: 1,000 composed stencils in one SDFG", "[transforms][auto-optimize][scaling]") {
  // T0 = A; T(n+1)[i] = T(n)[i] + T(n)[i + 1] * 0.5 over 0:N; every 4th T is non-transient
  // output so fusion stops there (recomputation bounded by the default limits).
  auto sdfg = std::make_unique<SDFG>("composed");
  sdfg->add_symbol("N");
  const int n = 1000;
  sdfg->add_array("T0", ScalarType::Float64, {E("N + 1004")});
  for (int k = 1; k <= n; ++k)
    sdfg->add_array("T" + std::to_string(k), ScalarType::Float64, {E("N + 1004")}, k % 4 != 0);
  SDFGState& st = sdfg->add_state("main", true);
  std::map<std::string, NodeId> nodes;
  for (int k = 0; k < n; ++k) {
    std::string in = "T" + std::to_string(k);
    add_stencil(st, nodes, "s" + std::to_string(k), "i", "0:N+" + std::to_string(n - k),
                {{in, "i"}, {in, "i + 1"}}, "y = x0 + x1 * 0.5", "T" + std::to_string(k + 1));
  }
  auto t0 = std::chrono::steady_clock::now();
  auto_optimize(*sdfg, DeviceType::CPU);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  WARN("auto_optimize on 1000 composed stencils: " << s << " s");
  require_valid(*sdfg);
  std::size_t transients = 0;
  for (const auto& [name, d] : sdfg->arrays)
    transients += d.transient && !d.total_size.free_symbols().empty();
  CHECK(transients == 0);
}
