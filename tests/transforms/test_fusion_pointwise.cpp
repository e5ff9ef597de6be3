// Tests of pointwise fusion across calls (ADR 0052, 2026-12-06): a producer whose tasklet uses its
// map parameters in code fuses into a consumer that reads the intermediate at its own point; a
// transient that every state writes whole before reading disappears from each state. A consumer
// over size symbols of its own: test_fusion_size_premise.cpp. Validity after every change, refusal reasons,
// and values: the reference interpreter before and after, and the fused result against the formula worked out
// by hand.
#include <catch2/catch.hpp>

#include "support/builders.h"
#include "weir/transforms/greedy_map_fusion.h"
#include "weir/transforms/otf_map_fusion.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;
using Catch::Matchers::Contains;

namespace {

/// N: the arrays' size and the maps' range; M <= N: a consumer's own size symbol.
const std::vector<Symbols> kSizes{{{"N", 5}, {"M", 3}}, {{"N", 1}, {"M", 1}}, {{"N", 9}, {"M", 9}}};

/// `out`[i] = code(`in`[i], i) over `range` (parameter i); `code` reads x, may use i, writes y.
void add_pointwise(SDFGState& st, std::map<std::string, NodeId>& nodes, const std::string& label,
                   const std::string& range, const std::string& in, const std::string& at,
                   const std::string& code, const std::string& out) {
  auto node_of = [&](const std::string& d) {
    auto it = nodes.find(d);
    if (it == nodes.end()) it = nodes.emplace(d, st.add_access(d).id()).first;
    return it->second;
  };
  auto& m = st.add_map(label, {"i"}, S(range));
  auto& t = st.add_tasklet(label, {code, Language::Python}, {"x"}, {"y"});
  path_in(st, node_of(in), {m.id()}, t.id(), "x", {M(in, "0:N"), M(in, at)});
  NodeId o = st.add_access(out).id();
  nodes[out] = o;
  path_out(st, t.id(), "y", {m.exit}, o, {M(out, "i"), M(out, range)});
}

/// One state: T[i] = 2 * A[i] + i over `producer_range`; C[i] = T[`read`] - 1 over `consumer_range`.
std::unique_ptr<SDFG> make_pair(const std::string& producer_range, const std::string& read,
                                const std::string& producer_code = "y = 2 * x + i",
                                const std::string& consumer_range = "0:N") {
  auto sdfg = std::make_unique<SDFG>("pointwise");
  sdfg->add_symbol("N");
  sdfg->add_symbol("M");
  sdfg->add_array("A", ScalarType::Float64, {E("N")});
  sdfg->add_array("T", ScalarType::Float64, {E("N")}, true);
  sdfg->add_array("C", ScalarType::Float64, {E("N")});
  SDFGState& st = sdfg->add_state("main", true);
  std::map<std::string, NodeId> nodes;
  add_pointwise(st, nodes, "producer", producer_range, "A", "i", producer_code, "T");
  add_pointwise(st, nodes, "consumer", consumer_range, "T", read, "y = x - 1", "C");
  return sdfg;
}

/// Maps and tasklets over every state of `sdfg`.
std::pair<std::size_t, std::size_t> maps_and_tasklets(const SDFG& sdfg) {
  std::pair<std::size_t, std::size_t> n{0, 0};
  for (const SDFGState* st : sdfg.all_states()) {
    n.first += maps_of(*st).size();
    for (const Node* x : st->nodes()) n.second += x->as<Tasklet>() != nullptr;
  }
  return n;
}

/// A new state after the first one.
SDFGState& second_state(SDFG& sdfg) {
  BlockId s1 = sdfg.all_states()[0]->id();
  SDFGState& s2 = sdfg.add_state("second");
  sdfg.add_edge(s1, s2.id());
  return s2;
}

/// Runs `sdfg` on seeded inputs and returns (A, C) after it.
std::pair<std::vector<double>, std::vector<double>> run_a_c(const SDFG& sdfg, const Symbols& syms,
                                                            unsigned seed) {
  Interpreter in(sdfg, syms);
  in.randomize(seed);
  in.run();
  return {in.mem.at("A"), in.mem.at("C")};
}

}  // namespace

TEST_CASE("OTFMapFusion: a producer using its parameter in code fuses where the consumer reads its own point",
          "[transforms][otf-fusion][fusion-pointwise]") {
  auto sdfg = make_pair("0:N", "i");
  OTFMapFusion t;
  apply_and_check(*sdfg, t, kSizes);
  CHECK(maps_and_tasklets(*sdfg) == std::make_pair<std::size_t, std::size_t>(1, 2));
  CHECK(!sdfg->has_data("T"));
  // By hand: C[i] = (2 * A[i] + i) - 1.
  for (const auto& syms : kSizes) {
    auto [a, c] = run_a_c(*sdfg, syms, 3);
    for (long long i = 0; i < syms.at("N"); ++i) {
      auto k = static_cast<std::size_t>(i);
      CHECK(c[k] == 2 * a[k] + static_cast<double>(i) - 1);
    }
  }
}

TEST_CASE("OTFMapFusion: a producer using its parameter in code is refused at another point",
          "[transforms][otf-fusion][fusion-pointwise]") {
  // The copy for T[i + 1] would compute 2 * A[i + 1] + i: the code's i is the consumer's.
  auto sdfg = make_pair("0:N", "i + 1", "y = 2 * x + i", "0:N-1");
  OTFMapFusion t;
  CHECK_THAT(refusal(*sdfg, t), Contains("tasklet 'producer' uses map parameter 'i' in its code") &&
                                    Contains("reads T[i + 1], not at the producer's own point"));
  // Without the parameter in its code the same pair fuses by recomputation.
  auto plain = make_pair("0:N", "i + 1", "y = 2 * x + 1", "0:N-1");
  OTFMapFusion t2;
  apply_and_check(*plain, t2, {{{"N", 5}, {"M", 3}}, {{"N", 9}, {"M", 8}}});
  CHECK(!plain->has_data("T"));
}

TEST_CASE("greedy-map-fusion: a transient written whole before every read fuses in each state",
          "[transforms][greedy-fusion][fusion-pointwise]") {
  // s1: T[i] = 2 A[i] + i, C[i] = T[i] - 1; s2: T[i] = 2 C[i] + i, A[i] = T[i] - 1 (the
  // unrolled copies of a loop body share T). No state reads what another wrote.
  auto sdfg = make_pair("0:N", "i");
  SDFGState& s2 = second_state(*sdfg);
  std::map<std::string, NodeId> nodes;
  add_pointwise(s2, nodes, "producer2", "0:N", "C", "i", "y = 2 * x + i", "T");
  add_pointwise(s2, nodes, "consumer2", "0:N", "T", "i", "y = x - 1", "A");
  require_valid(*sdfg);
  auto before = sdfg->clone_sdfg();
  AnalysisCache cache;
  GreedyMapFusion pass;
  CHECK(pass.run(*sdfg, cache) == 2);
  require_valid(*sdfg);
  CHECK(maps_and_tasklets(*sdfg).first == 2);
  for (SDFGState* st : sdfg->all_states()) CHECK(st->access_nodes("T").empty());
  for (const auto& syms : kSizes)
    for (unsigned seed : {1u, 7u, 42u}) {
      INFO("seed " << seed);
      REQUIRE(run_program(*before, syms, seed) == run_program(*sdfg, syms, seed));
    }
  // By hand, for i < M: C = 2 A0 + i - 1, then A = 2 C + i - 1.
  for (const auto& syms : kSizes) {
    Interpreter in0(*before, syms);
    in0.randomize(5);
    auto a0 = in0.mem.at("A");
    auto [a, c] = run_a_c(*sdfg, syms, 5);
    for (long long i = 0; i < syms.at("N"); ++i) {
      auto k = static_cast<std::size_t>(i);
      double ci = 2 * a0[k] + static_cast<double>(i) - 1;
      CHECK(c[k] == ci);
      CHECK(a[k] == 2 * ci + static_cast<double>(i) - 1);
    }
  }
}

TEST_CASE("greedy-map-fusion: a transient read in a later state without a write there is kept",
          "[transforms][greedy-fusion][fusion-pointwise]") {
  // s2 reads the T that s1 wrote: s1's producer must keep writing T, so nothing fuses.
  auto sdfg = make_pair("0:N", "i");
  SDFGState& s2 = second_state(*sdfg);
  std::map<std::string, NodeId> nodes;
  add_pointwise(s2, nodes, "reader", "0:N", "T", "i", "y = x * 3", "A");
  require_valid(*sdfg);
  AnalysisCache cache;
  GreedyMapFusion pass;
  CHECK(pass.run(*sdfg, cache) == 0);
  CHECK(maps_and_tasklets(*sdfg).first == 3);
  CHECK(sdfg->has_data("T"));
}
