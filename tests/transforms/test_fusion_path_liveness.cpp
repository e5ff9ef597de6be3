// Tests of fusion with a path-based liveness of the intermediate (ADR 0052, 2026-12-06): a
// transient that a later state reads without writing it first still fuses in a state whose value
// is overwritten whole on every path before that read (the theta branch's `lap` of the diffusion
// granule), and stays where one path reads it (the else path of a conditional, a loop). Values:
// the reference interpreter before and after, and by hand.
#include <catch2/catch.hpp>

#include "support/builders.h"
#include "weir/transforms/greedy_map_fusion.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;

namespace {

/// `out`[i] = code(`in`[i]) over 0:N in its own map (code reads x, writes y).
void add_pointwise(SDFGState& st, std::map<std::string, NodeId>& nodes, const std::string& label,
                   const std::string& in, const std::string& code, const std::string& out) {
  auto node_of = [&](const std::string& d) {
    auto it = nodes.find(d);
    if (it == nodes.end()) it = nodes.emplace(d, st.add_access(d).id()).first;
    return it->second;
  };
  auto& m = st.add_map(label, {"i"}, S("0:N"));
  auto& t = st.add_tasklet(label, {code, Language::Python}, {"x"}, {"y"});
  path_in(st, node_of(in), {m.id()}, t.id(), "x", {M(in, "0:N"), M(in, "i")});
  NodeId o = st.add_access(out).id();
  nodes[out] = o;
  path_out(st, t.id(), "y", {m.exit}, o, {M(out, "i"), M(out, "0:N")});
}

/// A state computing T = 2 * `in` + 1, then `out` = T - 1 (a pair that fuses when T is dead after).
void add_pair(SDFGState& st, const std::string& in, const std::string& out) {
  std::map<std::string, NodeId> nodes;
  add_pointwise(st, nodes, st.label + "_producer", in, "y = 2 * x + 1", "T");
  add_pointwise(st, nodes, st.label + "_consumer", "T", "y = x - 1", out);
}

/// A state reading T without writing it: `out` = 3 * T.
void add_reader(SDFGState& st, const std::string& out) {
  std::map<std::string, NodeId> nodes;
  add_pointwise(st, nodes, st.label + "_reader", "T", "y = 3 * x", out);
}

std::unique_ptr<SDFG> base() {
  auto sdfg = std::make_unique<SDFG>("liveness");
  sdfg->add_symbol("N");
  sdfg->add_symbol("c");
  for (const char* a : {"A", "B", "C", "D"}) sdfg->add_array(a, ScalarType::Float64, {E("N")});
  sdfg->add_array("T", ScalarType::Float64, {E("N")}, true);
  return sdfg;
}

std::size_t map_count(const SDFG& sdfg) {
  std::size_t n = 0;
  for (const SDFGState* st : sdfg.all_states()) n += maps_of(*st).size();
  return n;
}

const std::vector<Symbols> kSizes{{{"N", 4}, {"c", 1}}, {{"N", 4}, {"c", 0}}, {{"N", 1}, {"c", 1}}};

/// Runs greedy-map-fusion on `sdfg`, returns the fusions, and checks the interpreter before and
/// after on every size and seed.
int fuse_and_compare(SDFG& sdfg) {
  require_valid(sdfg);
  auto before = sdfg.clone_sdfg();
  AnalysisCache cache;
  GreedyMapFusion pass;
  int n = pass.run(sdfg, cache);
  require_valid(sdfg);
  for (const auto& syms : kSizes)
    for (unsigned seed : {1u, 7u}) {
      INFO("N " << syms.at("N") << " c " << syms.at("c") << " seed " << seed);
      REQUIRE(run_program(*before, syms, seed) == run_program(sdfg, syms, seed));
    }
  return n;
}

}  // namespace

TEST_CASE("greedy-map-fusion: a transient overwritten whole before a later state reads it fuses",
          "[transforms][greedy-fusion][fusion-path-liveness]") {
  // s1: T = 2A + 1, B = T - 1; s2: T = 2B + 1, C = T - 1; s3: D = 3T. s3 reads s2's T, which
  // stays; s1's T is overwritten by s2 before s3 reads it, so s1's pair fuses.
  auto sdfg = base();
  SDFGState& s1 = sdfg->add_state("s1", true);
  SDFGState& s2 = sdfg->add_state("s2");
  SDFGState& s3 = sdfg->add_state("s3");
  sdfg->add_edge(s1.id(), s2.id());
  sdfg->add_edge(s2.id(), s3.id());
  add_pair(s1, "A", "B");
  add_pair(s2, "B", "C");
  add_reader(s3, "D");
  CHECK(fuse_and_compare(*sdfg) == 1);
  CHECK(maps_of(s1).size() == 1);
  CHECK(s1.access_nodes("T").empty());
  CHECK(maps_of(s2).size() == 2);
  CHECK(sdfg->has_data("T"));
  // By hand: B = 2A, C = 2B = 4A, D = 3 (2B + 1) = 12A + 3.
  Interpreter in(*sdfg, {{"N", 3}, {"c", 1}});
  in.randomize(3);
  const std::vector<double> a = in.mem.at("A");
  in.run();
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(in.mem.at("B")[i] == 2 * a[i]);
    CHECK(in.mem.at("C")[i] == 4 * a[i]);
    CHECK(in.mem.at("D")[i] == 12 * a[i] + 3);
  }
}

TEST_CASE("greedy-map-fusion: a transient that one branch leaves for a later read is kept",
          "[transforms][greedy-fusion][fusion-path-liveness]") {
  // s1 (T, B) -> if c > 0 { s2: T = 2B + 1, C = T - 1 } [else { s2e: same }] -> s3: D = 3T.
  for (bool with_else : {false, true}) {
    INFO("with else " << with_else);
    auto sdfg = base();
    SDFGState& s1 = sdfg->add_state("s1", true);
    auto& cond = sdfg->add_conditional("if_c");
    SDFGState& s3 = sdfg->add_state("s3");
    sdfg->add_edge(s1.id(), cond.id());
    sdfg->add_edge(cond.id(), s3.id());
    add_pair(cond.add_branch(CodeBlock{"c > 0", Language::Python}).add_state("s2", true), "B", "C");
    if (with_else) add_pair(cond.add_branch(std::nullopt).add_state("s2e", true), "B", "C");
    add_pair(s1, "A", "B");
    add_reader(s3, "D");
    // Without an else branch, c <= 0 reads s1's T in s3: nothing fuses. With it, every path
    // overwrites T: s1 fuses (the branches' T feed s3 and stay).
    CHECK(fuse_and_compare(*sdfg) == (with_else ? 1 : 0));
    CHECK(maps_of(s1).size() == (with_else ? 1u : 2u));
    CHECK(map_count(*sdfg) == (with_else ? 6u : 5u));
  }
}

TEST_CASE("greedy-map-fusion: a transient read in a loop after the state is kept",
          "[transforms][greedy-fusion][fusion-path-liveness]") {
  // s1 (T, B) -> for t in 0:c { s2: T = 2B + 1, C = T - 1; s3: D = 3T } : the loop may not run,
  // and its body reads T; s1's T stays (conservative: loops that access T count as reads).
  auto sdfg = base();
  sdfg->add_symbol("t");
  SDFGState& s1 = sdfg->add_state("s1", true);
  auto& loop = sdfg->add_loop("for_t", "t", "t = 0", "(t < c)", "t = (t + 1)");
  sdfg->add_edge(s1.id(), loop.id());
  SDFGState& s2 = loop.add_state("s2", true);
  SDFGState& s3 = loop.add_state("s3");
  loop.add_edge(s2.id(), s3.id());
  add_pair(s1, "A", "B");
  add_pair(s2, "B", "C");
  add_reader(s3, "D");
  CHECK(fuse_and_compare(*sdfg) == 0);
  CHECK(maps_of(s1).size() == 2);
}

TEST_CASE("greedy-map-fusion: at the end of a loop body a path runs the body again or leaves the loop",
          "[transforms][greedy-fusion][fusion-path-liveness]") {
  // for t in 0:c { s1 (T, B); s2 (T, C) } [-> s3: D = 3T]. s1's T is overwritten by s2. s2's T
  // is overwritten by s1 when the body runs again, and after the loop read by s3 or dead.
  for (bool read_after : {false, true}) {
    INFO("read after the loop " << read_after);
    auto sdfg = base();
    sdfg->add_symbol("t");
    auto& loop = sdfg->add_loop("for_t", "t", "t = 0", "(t < c)", "t = (t + 1)");
    sdfg->set_start_block(loop.id());
    SDFGState& s1 = loop.add_state("s1", true);
    SDFGState& s2 = loop.add_state("s2");
    loop.add_edge(s1.id(), s2.id());
    add_pair(s1, "A", "B");
    add_pair(s2, "B", "C");
    if (read_after) {
      SDFGState& s3 = sdfg->add_state("s3");
      sdfg->add_edge(loop.id(), s3.id());
      add_reader(s3, "D");
    }
    CHECK(fuse_and_compare(*sdfg) == (read_after ? 1 : 2));
    CHECK(maps_of(s1).size() == 1);
    CHECK(maps_of(s2).size() == (read_after ? 2u : 1u));
  }
}
