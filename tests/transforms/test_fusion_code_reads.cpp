// Tests of fusion by recomputation at neighbour reads in tasklet code (CodeReadFusion and the
// greedy pass, ADR 0052 "2026-12-06, later"): an edge gradient G[e] = (P[E2C[e, 1]] - P[E2C[e, 0]])
// * W[e] read by a cell divergence through C2E inside its code, as the field-view lowering writes
// `neighbor_sum(g(C2E) * geofac, ...)`. Values: worked out by hand on a three-cell mesh, on the cpu
// backend before and after (the reference interpreter does not read containers in code); refusals: an
// expensive producer (the cost rule), a producer whose output another map also reads, a read under a
// condition.
#include <catch2/catch.hpp>

#include "support/builders.h"
#include "support/cpu_run.h"
#include "weir/runtime/errors.h"
#include "weir/sdfg/checked_accesses.h"
#include "weir/transforms/code_read_fusion.h"
#include "weir/transforms/greedy_map_fusion.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;
using Catch::Matchers::Contains;

namespace {

/// One state: G[e] = (P[E2C[e, 1]] - P[E2C[e, 0]]) * W[e] over `gradient` (0:NE), then
/// OUT[c] = G[C2E[c, 0]] * GEO[c, 0] + G[C2E[c, 1]] * GEO[c, 1] over `divergence` (0:NC), G read
/// through a dynamic connector in the code (`consumer_code`). With `second_reader`, a map `copy`
/// also reads G (H[e] = G[e]).
std::unique_ptr<SDFG> make_gradient_divergence(const std::string& consumer_code, bool second_reader = false) {
  auto sdfg = std::make_unique<SDFG>("code_reads");
  for (const char* s : {"NC", "NE"}) sdfg->add_symbol(s);
  sdfg->add_array("P", ScalarType::Float64, {E("NC")});
  sdfg->add_array("W", ScalarType::Float64, {E("NE")});
  sdfg->add_array("E2C", ScalarType::Int32, {E("NE"), E("2")});
  sdfg->add_array("C2E", ScalarType::Int32, {E("NC"), E("2")});
  sdfg->add_array("GEO", ScalarType::Float64, {E("NC"), E("2")});
  sdfg->add_array("G", ScalarType::Float64, {E("NE")}, true);
  sdfg->add_array("OUT", ScalarType::Float64, {E("NC")});
  SDFGState& st = sdfg->add_state("main", true);
  NodeId p = st.add_access("P").id(), w = st.add_access("W").id(), e2c = st.add_access("E2C").id();
  NodeId c2e = st.add_access("C2E").id(), geo = st.add_access("GEO").id(), g = st.add_access("G").id();
  NodeId out = st.add_access("OUT").id();
  auto& a = st.add_map("gradient", {"e"}, S("0:NE"));
  auto& at = st.add_tasklet("gradient", {"y = (__all_P[i1] - __all_P[i0]) * w", Language::Python},
                            {"__all_P", "i0", "i1", "w"}, {"y"});
  Memlet all_p = M("P", "0:NC");
  all_p.dynamic = true;
  path_in(st, p, {a.id()}, at.id(), "__all_P", {all_p});
  path_in(st, e2c, {a.id()}, at.id(), "i0", {M("E2C", "0:NE, 0:2"), M("E2C", "e, 0")});
  path_in(st, e2c, {a.id()}, at.id(), "i1", {M("E2C", "0:NE, 0:2"), M("E2C", "e, 1")});
  path_in(st, w, {a.id()}, at.id(), "w", {M("W", "0:NE"), M("W", "e")});
  path_out(st, at.id(), "y", {a.exit}, g, {M("G", "e"), M("G", "0:NE")});
  auto& b = st.add_map("divergence", {"c"}, S("0:NC"));
  auto& bt = st.add_tasklet("divergence", {consumer_code, Language::Python},
                            {"__all_G", "j0", "j1", "g0", "g1"}, {"y"});
  Memlet all_g = M("G", "0:NE");
  all_g.dynamic = true;
  path_in(st, g, {b.id()}, bt.id(), "__all_G", {all_g});
  path_in(st, c2e, {b.id()}, bt.id(), "j0", {M("C2E", "0:NC, 0:2"), M("C2E", "c, 0")});
  path_in(st, c2e, {b.id()}, bt.id(), "j1", {M("C2E", "0:NC, 0:2"), M("C2E", "c, 1")});
  path_in(st, geo, {b.id()}, bt.id(), "g0", {M("GEO", "0:NC, 0:2"), M("GEO", "c, 0")});
  path_in(st, geo, {b.id()}, bt.id(), "g1", {M("GEO", "0:NC, 0:2"), M("GEO", "c, 1")});
  path_out(st, bt.id(), "y", {b.exit}, out, {M("OUT", "c"), M("OUT", "0:NC")});
  if (second_reader) {
    sdfg->add_array("H", ScalarType::Float64, {E("NE")});
    auto& c = st.add_map("copy", {"e"}, S("0:NE"));
    auto& ct = st.add_tasklet("copy", {"y = x", Language::Python}, {"x"}, {"y"});
    path_in(st, g, {c.id()}, ct.id(), "x", {M("G", "0:NE"), M("G", "e")});
    path_out(st, ct.id(), "y", {c.exit}, st.add_access("H").id(), {M("H", "e"), M("H", "0:NE")});
  }
  return sdfg;
}

const char* kDivergence = "t0 = __all_G[j0] * g0\nt1 = __all_G[j1] * g1\ny = t0 + t1";

/// The three-cell mesh: P = 1, 4, 9; W = 0.5, 2, 1; E2C = (0, 1), (1, 2), (2, 0); C2E = (0, 1),
/// (1, 2), (2, 0); GEO = (1, 1), (1, -1), (2, 0.5). By hand: G = 1.5, 10, -8 and
/// OUT = 1.5 + 10 = 11.5, 10 + 8 = 18, -16 + 0.75 = -15.25.
const std::vector<double> kOut{11.5, 18.0, -15.25};

void fill_mesh(std::map<std::string, std::vector<double>>& mem) {
  mem["P"] = {1, 4, 9};
  mem["W"] = {0.5, 2, 1};
  mem["E2C"] = {0, 1, 1, 2, 2, 0};
  mem["C2E"] = {0, 1, 1, 2, 2, 0};
  mem["GEO"] = {1, 1, 1, -1, 2, 0.5};
}

runtime::Field field(ScalarType t, std::vector<std::int64_t> shape, const std::vector<double>& v) {
  runtime::Field f = runtime::Allocator::cpu().allocate(t, shape);
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (t == ScalarType::Int32)
      static_cast<std::int32_t*>(f.data())[i] = static_cast<std::int32_t>(v[i]);
    else
      static_cast<double*>(f.data())[i] = v[i];
  }
  return f;
}

/// Runs `sdfg` on the cpu backend on the three-cell mesh (C2E[1, 1] = `c2e_11`, 2 in the mesh);
/// returns OUT, or the error's text in `error`.
std::vector<double> run_cpu(const SDFG& sdfg, std::string& error, double c2e_11 = 2) {
  std::map<std::string, std::vector<double>> mem;
  fill_mesh(mem);
  mem["C2E"][3] = c2e_11;
  runtime::Arguments args;
  args.arrays.emplace("P", field(ScalarType::Float64, {3}, mem["P"]));
  args.arrays.emplace("W", field(ScalarType::Float64, {3}, mem["W"]));
  args.arrays.emplace("E2C", field(ScalarType::Int32, {3, 2}, mem["E2C"]));
  args.arrays.emplace("C2E", field(ScalarType::Int32, {3, 2}, mem["C2E"]));
  args.arrays.emplace("GEO", field(ScalarType::Float64, {3, 2}, mem["GEO"]));
  args.arrays.emplace("OUT", field(ScalarType::Float64, {3}, {0, 0, 0}));
  args.values["NC"] = 3;
  args.values["NE"] = 3;
  error.clear();
  try {
    return run_arguments_on_cpu(sdfg, args).at("OUT");
  } catch (const runtime::RuntimeError& e) {
    error = e.what();
  }
  return {};
}

std::vector<double> run_cpu(const SDFG& sdfg) {
  std::string error;
  auto out = run_cpu(sdfg, error);
  INFO(error);
  CHECK(error.empty());
  return out;
}

/// Every candidate's refusal reason (each must refuse), one a line.
std::string reasons(SDFG& sdfg, const Transformation& t) {
  AnalysisCache cache;
  std::string all;
  for (auto& c : find_matches(sdfg, t, cache)) {
    CHECK_FALSE(c.result);
    if (!c.result) all += c.result.reason() + "\n";
  }
  return all;
}

}  // namespace

TEST_CASE("CodeReadFusion: an edge gradient is recomputed at the divergence's neighbour reads",
          "[transforms][fusion][code-read-fusion]") {
  auto sdfg = make_gradient_divergence(kDivergence);
  REQUIRE(run_cpu(*sdfg) == kOut);
  CodeReadFusion t;
  AnalysisCache cache;
  auto cands = find_matches(*sdfg, t, cache);
  std::vector<Candidate> ok;
  for (auto& c : cands)
    if (c.result) ok.push_back(c);
  REQUIRE(ok.size() == 1);
  apply_transactional(*sdfg, t, ok[0].match, cache);
  require_valid(*sdfg);
  auto reloaded = sdfg_from_json_text(sdfg_to_json_text(*sdfg));
  REQUIRE(sdfg_difference(*reloaded, *sdfg).empty());
  // One map left, G gone, the consumer's code computes each neighbour's gradient itself.
  auto maps = maps_of(only_state(*sdfg));
  REQUIRE(maps.size() == 1);
  CHECK(maps[0]->map->label == "divergence");
  CHECK_FALSE(sdfg->has_data("G"));
  // The records of what went: the consumer's read of G, the producer's outer memlets.
  std::vector<std::string> recorded;
  for (const CheckedAccess& c : checked_accesses(*maps[0]->map))
    recorded.push_back(c.data + (c.write ? " w " : " r ") + c.subset.str() + " " + c.scope);
  // (P's read is dynamic: checked in the code, at each index, as before.)
  CHECK(recorded == std::vector<std::string>{"G r 0:NE map 'divergence'", "E2C r 0:NE, 0:2 map 'gradient'",
                                             "W r 0:NE map 'gradient'", "G w 0:NE map 'gradient'"});
  // The same values, worked out by hand, on the cpu backend (the reference interpreter does not
  // read containers in tasklet code).
  CHECK(run_cpu(*sdfg) == kOut);
}

TEST_CASE("greedy-map-fusion: recomputes at code reads within the cost rule, not beyond it",
          "[transforms][fusion][greedy-fusion][code-read-fusion]") {
  // One copy of the gradient reads 5 elements (two of E2C, one of W, two of P in its code); the
  // divergence reads G twice: 10 reads per iteration, within the default 16.
  auto fused = make_gradient_divergence(kDivergence);
  AnalysisCache cache;
  GreedyMapFusion pass;
  REQUIRE(pass.run(*fused, cache) == 1);
  require_valid(*fused);
  CHECK(maps_of(only_state(*fused)).size() == 1);
  CHECK(run_cpu(*fused) == kOut);
  // An expensive producer (the cost rule): with max_code_reads = 9 the gradient stays.
  auto kept = make_gradient_divergence(kDivergence);
  GreedyMapFusion strict;
  strict.options().set("max_code_reads", 9LL);
  AnalysisCache cache2;
  CHECK(strict.run(*kept, cache2) == 0);
  CHECK(maps_of(only_state(*kept)).size() == 2);
  CodeReadFusion t;
  t.options().set("max_reads", 9LL);
  CHECK_THAT(reasons(*kept, t), Contains("recomputing map 'gradient' (5 reads) at the 2 reads of 'G' in map "
                                         "'divergence' costs 10 reads per iteration, more than max_reads=9"));
}

TEST_CASE("CodeReadFusion: refuses a producer whose output another map reads, and conditional reads",
          "[transforms][fusion][code-read-fusion]") {
  CodeReadFusion t;
  // G also read by `copy`: the producer would stay.
  auto shared = make_gradient_divergence(kDivergence, true);
  CHECK_THAT(reasons(*shared, t),
             Contains("'G' is also read by 'copy'; the producer would stay and recomputing only adds work"));
  GreedyMapFusion pass;
  AnalysisCache cache2;
  auto shared2 = make_gradient_divergence(kDivergence, true);
  pass.run(*shared2, cache2);
  CHECK(shared2->has_data("G"));
  // A read Python may skip (the branch of a conditional expression): inlining would compute it
  // always, at an index that may be out of range where the condition is false.
  auto cond = make_gradient_divergence("y = (__all_G[j0] * g0) if j0 >= 0 else 0.0");
  CHECK_THAT(reasons(*cond, t), Contains("the code reads __all_G[j0] under a condition"));
}

TEST_CASE("CodeReadFusion: a neighbour index outside the producer's output still fails on the cpu backend",
          "[transforms][fusion][code-read-fusion][run]") {
  // C2E[1, 1] = 3 names an edge that does not exist (3 edges): the divergence read G[3] before
  // the fusion; after it, the copies read E2C[3, 0] and W[3] through connectors that cover the
  // gradient's range 0:NE, G's extent, and the index check fails the same way.
  auto before = make_gradient_divergence(kDivergence);
  auto after = before->clone_sdfg();
  AnalysisCache cache;
  GreedyMapFusion pass;
  REQUIRE(pass.run(*after, cache) == 1);
  std::string e0, e1;
  CHECK(run_cpu(*before, e0, 3).empty());
  CHECK(run_cpu(*after, e1, 3).empty());
  CHECK_THAT(e0,
             Contains("connector '__all_G' of 'G': index 3 in dimension 0 is outside [0, 3) at (c=1); the "
                      "index is C2E[c, 1]"));
  CHECK_THAT(
      e1, Contains("connector '__G___all_E2C' of 'E2C': index 3 in dimension 0 is outside [0, 3) at (c=1); "
                   "the index is C2E[c, 1]"));
}

namespace {

/// The gradient and divergence over levels: G[e, k] = (P[E2C[e, 1], k] - P[E2C[e, 0], k]) * W[e]
/// over 0:NE x 0:NK, OUT[c, k] = G[C2E[c, 0], k] + G[C2E[c, 1], k] over 0:NC x 0:NKO. No input of
/// the gradient is read at `k`, so its copies cannot check the consumer's level index against
/// G's extent NK: the fused map checks its own range 0:NKO instead.
std::unique_ptr<SDFG> make_levels() {
  auto sdfg = std::make_unique<SDFG>("code_reads_levels");
  for (const char* s : {"NC", "NE", "NK", "NKO"}) sdfg->add_symbol(s);
  sdfg->add_array("P", ScalarType::Float64, {E("NC"), E("NK")});
  sdfg->add_array("W", ScalarType::Float64, {E("NE")});
  sdfg->add_array("E2C", ScalarType::Int32, {E("NE"), E("2")});
  sdfg->add_array("C2E", ScalarType::Int32, {E("NC"), E("2")});
  sdfg->add_array("G", ScalarType::Float64, {E("NE"), E("NK")}, true);
  sdfg->add_array("OUT", ScalarType::Float64, {E("NC"), E("NKO")});
  SDFGState& st = sdfg->add_state("main", true);
  NodeId p = st.add_access("P").id(), w = st.add_access("W").id(), e2c = st.add_access("E2C").id();
  NodeId c2e = st.add_access("C2E").id(), g = st.add_access("G").id(), out = st.add_access("OUT").id();
  auto& a = st.add_map("gradient", {"e", "k"}, S("0:NE, 0:NK"));
  auto& at = st.add_tasklet("gradient", {"y = (__all_P[i1, k] - __all_P[i0, k]) * w", Language::Python},
                            {"__all_P", "i0", "i1", "w"}, {"y"});
  Memlet all_p = M("P", "0:NC, 0:NK");
  all_p.dynamic = true;
  path_in(st, p, {a.id()}, at.id(), "__all_P", {all_p});
  path_in(st, e2c, {a.id()}, at.id(), "i0", {M("E2C", "0:NE, 0:2"), M("E2C", "e, 0")});
  path_in(st, e2c, {a.id()}, at.id(), "i1", {M("E2C", "0:NE, 0:2"), M("E2C", "e, 1")});
  path_in(st, w, {a.id()}, at.id(), "w", {M("W", "0:NE"), M("W", "e")});
  path_out(st, at.id(), "y", {a.exit}, g, {M("G", "e, k"), M("G", "0:NE, 0:NK")});
  auto& b = st.add_map("divergence", {"c", "k"}, S("0:NC, 0:NKO"));
  auto& bt = st.add_tasklet("divergence", {"y = __all_G[j0, k] + __all_G[j1, k]", Language::Python},
                            {"__all_G", "j0", "j1"}, {"y"});
  Memlet all_g = M("G", "0:NE, 0:NK");
  all_g.dynamic = true;
  path_in(st, g, {b.id()}, bt.id(), "__all_G", {all_g});
  path_in(st, c2e, {b.id()}, bt.id(), "j0", {M("C2E", "0:NC, 0:2"), M("C2E", "c, 0")});
  path_in(st, c2e, {b.id()}, bt.id(), "j1", {M("C2E", "0:NC, 0:2"), M("C2E", "c, 1")});
  path_out(st, bt.id(), "y", {b.exit}, out, {M("OUT", "c, k"), M("OUT", "0:NC, 0:NKO")});
  return sdfg;
}

/// The three-cell mesh with two levels of P (level 1 = 10 x level 0); OUT of NKO levels.
std::vector<double> run_levels(const SDFG& sdfg, long long nko, std::string& error) {
  runtime::Arguments args;
  args.arrays.emplace("P", field(ScalarType::Float64, {3, 2}, {1, 10, 4, 40, 9, 90}));
  args.arrays.emplace("W", field(ScalarType::Float64, {3}, {0.5, 2, 1}));
  args.arrays.emplace("E2C", field(ScalarType::Int32, {3, 2}, {0, 1, 1, 2, 2, 0}));
  args.arrays.emplace("C2E", field(ScalarType::Int32, {3, 2}, {0, 1, 1, 2, 2, 0}));
  args.arrays.emplace(
      "OUT", field(ScalarType::Float64, {3, nko}, std::vector<double>(static_cast<std::size_t>(3 * nko))));
  for (const auto& [n, v] : std::map<std::string, long long>{{"NC", 3}, {"NE", 3}, {"NK", 2}, {"NKO", nko}})
    args.values[n] = v;
  error.clear();
  try {
    return run_arguments_on_cpu(sdfg, args).at("OUT");
  } catch (const runtime::RuntimeError& e) {
    error = e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("CodeReadFusion: a level index no copy checks is checked over the consumer's range",
          "[transforms][fusion][code-read-fusion][run]") {
  auto before = make_levels();
  auto after = before->clone_sdfg();
  CodeReadFusion t;
  AnalysisCache cache;
  std::vector<Candidate> ok;
  for (auto& c : find_matches(*after, t, cache))
    if (c.result) ok.push_back(c);
  REQUIRE(ok.size() == 1);
  apply_transactional(*after, t, ok[0].match, cache);
  require_valid(*after);
  auto maps = maps_of(only_state(*after));
  REQUIRE(maps.size() == 1);
  std::vector<std::string> reads;
  for (const CheckedAccess& c : checked_accesses(*maps[0]->map))
    if (c.data == "G" && !c.write) reads.push_back(c.subset.str());
  CHECK(reads == std::vector<std::string>{"0:NE, 0:NK", "0:NE, 0:NKO"});
  // By hand, G = (1.5, 15), (10, 100), (-8, -80) by level; OUT[c, k] = G[c, k] + G[c + 1 mod 3, k].
  std::string e0, e1;
  const std::vector<double> expected{11.5, 115, 2, 20, -6.5, -65};
  CHECK(run_levels(*before, 2, e0) == expected);
  CHECK(run_levels(*after, 2, e1) == expected);
  CHECK(e0.empty());
  CHECK(e1.empty());
  // NKO = 3 > NK: level 2 of G does not exist. Before, the divergence's read failed; after, the
  // record of its range fails before the map runs, naming G.
  CHECK(run_levels(*before, 3, e0).empty());
  CHECK(run_levels(*after, 3, e1).empty());
  CHECK_THAT(e0, Contains("of 'G'"));
  CHECK_THAT(e1,
             Contains("map 'divergence' (fused into map 'divergence'): reads G[0 .. 2] in dimension 1 of G "
                      "with shape 2"));
}
