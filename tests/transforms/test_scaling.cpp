// Scaling of the transformation framework: operation counters (not wall time) of simplify on
// generated chains of N stencil states stay proportional to N, the incrementally updated
// analyses equal freshly computed ones, and local transactions roll back exactly (ids too).
#include <catch2/catch.hpp>

#include "data_use_check.h"
#include "support/builders.h"
#include "support/interpreter.h"
#include "weir/sdfg/serialize.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/pipeline.h"
#include "weir/transforms/registry.h"
#include "weir/transforms/simplify.h"
#include "weir/transforms/state_fusion.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;

namespace {

constexpr int kPool = 8;  // fields the stages rotate through, as bench/src/scaling_bench.cpp

/// out[i] = code(a = in[i]) over i in 0:N.
void map1d(SDFGState& st, const std::string& in, const std::string& out, const std::string& code) {
  auto& a = st.add_access(in);
  auto& b = st.add_access(out);
  auto& t = st.add_tasklet("t_" + out, {code, Language::Python}, {"a"}, {"b"});
  auto& m = st.add_map("m_" + out, {"i"}, S("0:N"));
  path_in(st, a.id(), {m.id()}, t.id(), "a", {M(in, "0:N"), M(in, "i")});
  path_out(st, t.id(), "b", {m.exit}, b.id(), {M(out, "i"), M(out, "0:N")});
}

/// N states in sequence. Stage k computes T_k from F[k % 8], copies T_k into F[(k+2) % 8] (a
/// redundant transient) and writes D_k from F[(k+1) % 8], which nobody reads (dead dataflow).
/// The rotation makes some neighbouring states conflict, so fusion stops now and then, as in
/// the composed stencil program of the scaling benchmark.
std::unique_ptr<SDFG> make_chain(int n) {
  auto sdfg = std::make_unique<SDFG>("chain");
  sdfg->add_symbol("N");
  for (int f = 0; f < kPool; ++f) sdfg->add_array("F" + std::to_string(f), ScalarType::Float64, {E("N")});
  BlockId prev = kNoBlock;
  for (int k = 0; k < n; ++k) {
    std::string t = "T" + std::to_string(k), d = "D" + std::to_string(k);
    std::string in = "F" + std::to_string(k % kPool), in2 = "F" + std::to_string((k + 1) % kPool);
    std::string out = "F" + std::to_string((k + 2) % kPool);
    sdfg->add_array(t, ScalarType::Float64, {E("N")}, true);
    sdfg->add_array(d, ScalarType::Float64, {E("N")}, true);
    auto& st = sdfg->add_state("s" + std::to_string(k), k == 0);
    map1d(st, in, t, "b = a * 0.5 + " + std::to_string(k % 7 + 1));
    auto& o = st.add_access(out);
    st.add_edge(st.access_nodes(t)[0]->id(), "", o.id(), "", M(t, "0:N"));
    map1d(st, in2, d, "b = a - 1");
    if (prev != kNoBlock) sdfg->add_edge(prev, st.id());
    prev = st.id();
  }
  return sdfg;
}

/// N independent states in sequence (out_k = in_k + 1 over distinct containers): all fuse.
std::unique_ptr<SDFG> make_independent(int n) {
  auto sdfg = std::make_unique<SDFG>("independent");
  sdfg->add_symbol("N");
  BlockId prev = kNoBlock;
  for (int k = 0; k < n; ++k) {
    std::string in = "A" + std::to_string(k), out = "B" + std::to_string(k);
    sdfg->add_array(in, ScalarType::Float64, {E("N")});
    sdfg->add_array(out, ScalarType::Float64, {E("N")});
    auto& st = sdfg->add_state("s" + std::to_string(k), k == 0);
    map1d(st, in, out, "b = a + 1");
    if (prev != kNoBlock) sdfg->add_edge(prev, st.id());
    prev = st.id();
  }
  return sdfg;
}

struct Counts {
  std::size_t applied, candidates, snapshot, computations;
};

Counts simplify_counting(SDFG& sdfg) {
  AnalysisCache cache;
  auto p = make_simplify_pipeline();
  std::size_t applied = p->run(sdfg, cache);
  return {applied, cache.candidates_checked(), cache.snapshot_elements(), cache.computations()};
}

}  // namespace

TEST_CASE("scaling: simplify of a stencil chain is right and a fixed point", "[transforms][scaling]") {
  auto sdfg = make_chain(12);
  require_valid(*sdfg);
  auto before = sdfg->clone_sdfg();
  AnalysisCache cache;
  auto p = make_simplify_pipeline();
  CHECK(p->run(*sdfg, cache) > 0);
  require_valid(*sdfg);
  // Every redundant and every dead transient is gone, and some states were fused.
  for (int k = 0; k < 12; ++k) {
    CHECK_FALSE(sdfg->has_data("T" + std::to_string(k)));
    CHECK_FALSE(sdfg->has_data("D" + std::to_string(k)));
  }
  CHECK(sdfg->num_blocks() < 12);
  CHECK(simplify(*sdfg) == 0);
  for (const Symbols& syms : {Symbols{{"N", 5}}, Symbols{{"N", 1}}})
    for (unsigned seed : {1u, 9u}) CHECK(run_program(*before, syms, seed) == run_program(*sdfg, syms, seed));

  // The container use the cache kept up to date through all applications equals a fresh one.
  AnalysisCache fresh;
  require_same_use(cache.data_use(*sdfg), fresh.data_use(*sdfg));
}

TEST_CASE("scaling: work per application of simplify does not grow with the program",
          "[transforms][scaling]") {
  // Operation counters, not wall time: candidates checked by the pass drivers, elements copied
  // by transaction snapshots and analyses computed, per application, at 40 and 8x as many states.
  auto small = make_chain(40);
  auto large = make_chain(320);
  Counts a = simplify_counting(*small), b = simplify_counting(*large);
  require_valid(*large);
  INFO("applied " << a.applied << " / " << b.applied << ", candidates " << a.candidates << " / "
                  << b.candidates << ", snapshot " << a.snapshot << " / " << b.snapshot << ", computations "
                  << a.computations << " / " << b.computations);
  REQUIRE(a.applied > 0);
  // Applications grow linearly with the chain (every stage has its own dead and redundant data).
  CHECK(b.applied >= 7 * a.applied);
  CHECK(b.applied <= 9 * a.applied);
  auto per = [](std::size_t x, std::size_t applied) { return double(x) / double(applied); };
  CHECK(per(b.candidates, b.applied) <= 1.25 * per(a.candidates, a.applied));
  CHECK(per(b.snapshot, b.applied) <= 1.25 * per(a.snapshot, a.applied));
  CHECK(per(b.computations, b.applied) <= 1.25 * per(a.computations, a.applied));
}

namespace {

/// A control-flow transformation that keeps to a narrow footprint (its matched block) and a
/// declared data footprint, and fails midway after changing all of them.
class FailingLocally final : public Transformation {
 public:
  std::string name() const override { return "FailingLocally"; }
  std::string description() const override { return "test: fails after local changes"; }
  MatchScope scope() const override { return MatchScope::ControlFlow; }
  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx, std::uint32_t a) const override {
    if (!ctx.region.block(a).as<SDFGState>() || ctx.region.out_edges(a).empty()) return {};
    return {{a}};
  }
  MatchResult can_apply(const MatchContext&, const std::vector<std::uint32_t>&) const override {
    return MatchResult::success();
  }
  std::vector<BlockId> footprint(const MatchContext&, const std::vector<std::uint32_t>& sub) const override {
    return {sub[0]};
  }
  std::optional<std::vector<std::string>> data_footprint(const MatchContext&,
                                                         const std::vector<std::uint32_t>&) const override {
    return std::vector<std::string>{"F0", "T0", "junk"};
  }
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) override {
    ControlFlowRegion& r = ctx.region;
    auto& st = *r.block(sub[0]).as<SDFGState>();
    st.remove_node(st.nodes().front()->id());
    st.add_access("F1");
    auto& extra = r.add_state("extra");
    EdgeId out = r.out_edges(sub[0]).front()->id;
    BlockId next = r.edge(out).dst;
    r.remove_edge(out);
    r.add_edge(sub[0], extra.id());
    r.add_edge(extra.id(), next);
    r.edge(r.in_edges(sub[0]).empty() ? r.out_edges(sub[0]).front()->id : r.in_edges(sub[0]).front()->id)
        .data.assignments.push_back({"x", "1"});
    r.set_start_block(extra.id());
    ctx.sdfg.data("F0").transient = true;
    ctx.sdfg.arrays.erase("T0");
    ctx.sdfg.add_array("junk", ScalarType::Int32, {E("3")}, true);
    throw std::runtime_error("injected failure");
  }
};

std::vector<BlockId> block_ids(const ControlFlowRegion& r) {
  std::vector<BlockId> out;
  for (ControlFlowBlock* b : r.blocks()) out.push_back(b->id());
  return out;
}

std::vector<std::tuple<EdgeId, BlockId, BlockId>> edge_ids(const ControlFlowRegion& r) {
  std::vector<std::tuple<EdgeId, BlockId, BlockId>> out;
  for (const ControlFlowEdge* e : r.edges()) out.emplace_back(e->id, e->src, e->dst);
  return out;
}

}  // namespace

TEST_CASE("scaling: a local transaction rolls back exactly, ids and counters included",
          "[transforms][transaction]") {
  auto sdfg = make_chain(4);
  auto before = sdfg->clone_sdfg();
  auto blocks = block_ids(*sdfg);
  auto edges = edge_ids(*sdfg);
  std::size_t block_cap = sdfg->block_capacity(), edge_cap = sdfg->edge_capacity();
  FailingLocally t;
  AnalysisCache cache;
  auto cands = find_matches(*sdfg, t, cache);
  REQUIRE(cands.size() == 3);
  for (const Candidate& c : cands) {
    INFO("at " << c.match.id());
    CHECK_THROWS_WITH(apply_transactional(*sdfg, t, c.match, cache), "injected failure");
    CHECK(sdfg_difference(*before, *sdfg) == "");
    CHECK(block_ids(*sdfg) == blocks);
    CHECK(edge_ids(*sdfg) == edges);
    CHECK(sdfg->block_capacity() == block_cap);
    CHECK(sdfg->edge_capacity() == edge_cap);
    CHECK(sdfg->explicit_start() == before->explicit_start());
    CHECK(sdfg->has_data("T0"));
    CHECK_FALSE(sdfg->has_data("junk"));
    CHECK_FALSE(sdfg->data("F0").transient);
    require_valid(*sdfg);
  }
  // Matches found before the failures still apply: the ids they name are the same.
  CHECK(find_matches(*sdfg, t, cache).size() == 3);
  CHECK(simplify(*sdfg) > 0);
  require_valid(*sdfg);
}

TEST_CASE("scaling: a long chain of independent states fuses into one state", "[transforms][scaling]") {
  auto sdfg = make_independent(200);
  auto before = sdfg->clone_sdfg();
  Counts c = simplify_counting(*sdfg);
  require_valid(*sdfg);
  CHECK(sdfg->num_blocks() == 1);
  CHECK(only_state(*sdfg).num_nodes() == 200 * 5);
  CHECK(c.applied == 199);
  // Matching stays local (a few candidates per application, all passes of simplify together)
  // even though the fused state grows.
  CHECK(c.candidates <= 10 * c.applied);
  for (unsigned seed : {2u, 4u})
    CHECK(run_program(*before, {{"N", 3}}, seed) == run_program(*sdfg, {{"N", 3}}, seed));
  // The state-fusion pass fuses the chain in one step, copying every state once: applying
  // StateFusion pair by pair copied the growing first state each time (about 9 * N^2 / 2 =
  // 180,000 elements here).
  CHECK(c.snapshot <= 20 * 200);
}

TEST_CASE("scaling: the state-fusion pass fuses what pair-wise StateFusion applications fuse",
          "[transforms][scaling][state-fusion]") {
  // Chains with conflicts (the rotation), fully fusable chains, and a branch: two successors,
  // a join with two predecessors, a conditional edge.
  auto branchy = [] {
    auto sdfg = make_independent(6);
    std::vector<BlockId> ids;
    for (ControlFlowBlock* b : sdfg->blocks()) ids.push_back(b->id());
    InterstateEdge cond;
    cond.condition = {"N > 2", Language::Python};
    sdfg->add_edge(ids[1], ids[4], cond);
    return sdfg;
  };
  // A chain whose block ids are not in chain order (3 -> 1 -> 4 -> 0 -> 5 -> 2).
  auto shuffled = [] {
    auto sdfg = std::make_unique<SDFG>("shuffled");
    sdfg->add_symbol("N");
    const int order[] = {3, 1, 4, 0, 5, 2};
    std::vector<SDFGState*> st;
    for (int k = 0; k < 6; ++k) {
      std::string in = "A" + std::to_string(k), out = "A" + std::to_string(k + 1);
      sdfg->add_array(in, ScalarType::Float64, {E("N")}, k > 0);
      st.push_back(&sdfg->add_state("s" + std::to_string(k)));
    }
    sdfg->add_array("A6", ScalarType::Float64, {E("N")});
    for (int p = 0; p < 6; ++p)
      map1d(*st[order[p]], "A" + std::to_string(p), "A" + std::to_string(p + 1),
            "b = a * 2 + " + std::to_string(p));
    sdfg->set_start_block(st[order[0]]->id());
    for (int p = 0; p + 1 < 6; ++p) sdfg->add_edge(st[order[p]]->id(), st[order[p + 1]]->id());
    return sdfg;
  };
  std::vector<std::unique_ptr<SDFG>> cases;
  cases.push_back(shuffled());
  cases.push_back(make_chain(40));
  cases.push_back(make_independent(30));
  cases.push_back(branchy());
  for (auto& original : cases) {
    INFO(original->name << " with " << original->num_blocks() << " blocks");
    auto pairwise = original->clone_sdfg(), chained = original->clone_sdfg();
    AnalysisCache c1, c2;
    TransformationPass pairs(std::make_unique<StateFusion>());
    std::size_t n1 = pairs.run(*pairwise, c1);
    auto pass = make_pass("state-fusion");
    REQUIRE(pass);
    CHECK(dynamic_cast<TransformationPass*>(pass.get()) == nullptr);
    std::size_t n2 = pass->run(*chained, c2);
    CHECK(n1 > 0);
    CHECK(n2 == n1);
    CHECK(chained->num_blocks() == pairwise->num_blocks());
    CHECK(sdfg_difference(*pairwise, *chained) == "");
    require_valid(*chained);
    for (unsigned seed : {2u, 7u})
      CHECK(run_program(*original, {{"N", 3}}, seed) == run_program(*chained, {{"N", 3}}, seed));
    // A fixed point: nothing left to fuse for either.
    CHECK(pass->run(*chained, c2) == 0);
  }
}
