// Fusion on fan-out graphs: one producer map writes a transient `tmp` that two or three consumer
// maps read, point-wise or at an offset. Every fusion pass (MapFusion applied until nothing
// matches, OTFMapFusion, MapFusionHorizontal, greedy fusion, auto_optimize) must keep the cpu
// backend's outputs equal to those of the SDFG before fusion, and the reference interpreter's too.
// Regression: the second MapFusion of a producer read `tmp[0]` instead of `tmp[i]`.
#include "support/builders.h"
#include "support/cpu_run.h"
#include "weir/transforms/map_fusion.h"
#include "weir/transforms/pipeline.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;

namespace {

/// prod: tmp[i] = a * 2 + 1 over 0:N; consumer k (k = 1..offsets.size()): C<k>[i] =
/// tmp[i + offsets[k-1]] * (k + 1) + k over 0:N-offset (a read beyond i for offset > 0).
std::unique_ptr<SDFG> fan_out(const std::vector<int>& offsets) {
  auto sdfg = std::make_unique<SDFG>("fan_out");
  sdfg->add_symbol("N");
  sdfg->add_array("A", ScalarType::Float64, {E("N")});
  sdfg->add_array("tmp", ScalarType::Float64, {E("N")}, true);
  SDFGState& st = sdfg->add_state("main", true);
  auto& a = st.add_access("A");
  auto& tmp = st.add_access("tmp");
  auto& prod = st.add_map("prod", {"i"}, S("0:N"));
  auto& tp = st.add_tasklet("produce", {"t = a * 2 + 1", Language::Python}, {"a"}, {"t"});
  path_in(st, a.id(), {prod.id()}, tp.id(), "a", {M("A", "0:N"), M("A", "i")});
  path_out(st, tp.id(), "t", {prod.exit}, tmp.id(), {M("tmp", "i"), M("tmp", "0:N")});
  for (std::size_t k = 1; k <= offsets.size(); ++k) {
    std::string c = "C" + std::to_string(k), off = std::to_string(offsets[k - 1]);
    sdfg->add_array(c, ScalarType::Float64, {E("N")});
    auto& out = st.add_access(c);
    std::string range = "0:N-" + off;
    auto& m = st.add_map("cons" + std::to_string(k), {"i"}, S(range));
    auto& t = st.add_tasklet(
        "consume" + std::to_string(k),
        {"c = t * " + std::to_string(k + 1) + " + " + std::to_string(k), Language::Python}, {"t"}, {"c"});
    path_in(st, tmp.id(), {m.id()}, t.id(), "t", {M("tmp", off + ":N"), M("tmp", "i + " + off)});
    path_out(st, t.id(), "c", {m.exit}, out.id(), {M(c, "i"), M(c, range)});
  }
  return sdfg;
}

std::size_t count_maps(const SDFG& sdfg) {
  std::size_t n = 0;
  for (SDFGState* st : sdfg.all_states()) n += maps_of(*st).size();
  return n;
}

const std::vector<std::vector<int>> kShapes{{0, 0}, {0, 0, 0}, {0, 1}, {1, 0}, {0, 1, 0}, {2, 0, 1}};

/// The cpu outputs (C1..Ck; A unchanged) of `sdfg` for N = 9, three seeds; the interpreter's too.
std::vector<CpuOutputs> outputs(const SDFG& sdfg) {
  std::vector<CpuOutputs> out;
  for (unsigned seed : {1u, 5u, 9u}) out.push_back(run_on_cpu(sdfg, {{"N", 9}}, seed));
  return out;
}

}  // namespace

TEST_CASE("fan-out: MapFusion applied until nothing matches keeps every consumer's values",
          "[transforms][map-fusion][fan-out]") {
  for (const auto& shape : kShapes) {
    std::string label;
    for (int o : shape) label += std::to_string(o) + " ";
    INFO("consumer offsets: " << label);
    auto sdfg = fan_out(shape);
    require_valid(*sdfg);
    auto before = sdfg->clone_sdfg();
    auto expect = outputs(*before);
    // One application at a time, each checked (validity, interpreter on three seeds).
    MapFusion t;
    std::size_t applied = 0;
    for (int round = 0; round < 5; ++round) {
      AnalysisCache cache;
      bool any = false;
      for (auto& c : find_matches(*sdfg, t, cache))
        if (c.result) {
          apply_transactional(*sdfg, t, c.match, cache);
          any = true;
          break;
        }
      if (!any) break;
      ++applied;
      require_valid(*sdfg);
      for (unsigned seed : {1u, 7u})
        CHECK(run_program(*before, {{"N", 6}}, seed) == run_program(*sdfg, {{"N", 6}}, seed));
    }
    // Every point-wise consumer with the producer's range fuses; offset ones stay apart.
    std::size_t pointwise = static_cast<std::size_t>(std::count(shape.begin(), shape.end(), 0));
    CHECK(applied == pointwise);
    CHECK(count_maps(*sdfg) == 1 + shape.size() - pointwise);
    CHECK(outputs(*sdfg) == expect);
  }
}

TEST_CASE("fan-out: every fusion pass and auto_optimize keep the cpu outputs",
          "[transforms][fusion][fan-out]") {
  for (const char* pass :
       {"map-fusion", "otf-map-fusion", "map-fusion-horizontal", "greedy-map-fusion",
        "otf-map-fusion, map-fusion", "map-fusion-horizontal, map-fusion", "auto-optimize-cpu"}) {
    for (const auto& shape : std::vector<std::vector<int>>{{0, 0}, {0, 0, 0}, {0, 1, 0}}) {
      std::string label;
      for (int o : shape) label += std::to_string(o) + " ";
      INFO(pass << " on consumer offsets " << label);
      auto sdfg = fan_out(shape);
      auto expect = outputs(*sdfg);
      auto before = sdfg->clone_sdfg();
      parse_pipeline(pass)->run(*sdfg);
      require_valid(*sdfg);
      // (auto_optimize's output may hold constructs the reference interpreter does not run)
      if (std::string(pass) != "auto-optimize-cpu")
        CHECK(run_program(*before, {{"N", 6}}, 3) == run_program(*sdfg, {{"N", 6}}, 3));
      CHECK(outputs(*sdfg) == expect);
    }
  }
}
