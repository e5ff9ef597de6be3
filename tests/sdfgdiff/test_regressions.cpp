// What the SDFG-level differential run found, as fixed cases with hand-computed values.
#include <catch2/catch.hpp>

#include <functional>

#include "diff_driver.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/registry.h"
#include "weir/transforms/transformation.h"

using namespace weir;
using namespace weir::test::sdfgdiff;

namespace {

Subset S(const std::string& s) { return Subset::parse(s); }

/// Applies the first applicable candidate of `name` whose anchor passes `ok`; false if none.
bool apply_first(SDFG& sdfg, const std::string& name,
                 const std::function<bool(const transforms::Match&)>& ok = {}) {
  transforms::AnalysisCache cache;
  auto t = transforms::make_transformation(name);
  if (name == "MapTiling") t->options().set("tile_sizes", std::vector<long long>{2});
  for (const auto& c : transforms::find_matches(sdfg, *t, cache))
    if (c.result && (!ok || ok(c.match))) {
      transforms::apply_transactional(sdfg, *t, c.match, cache);
      return true;
    }
  return false;
}

}  // namespace

TEST_CASE("LoopMapInterchange refuses a run whose map range uses the loop variable (tiled map, tile loop)",
          "[sdfgdiff][regression][loop-map-interchange]") {
  // Found by seeds 107, 112, 113: MapTiling, then MapToForLoop on the tile map, then
  // LoopMapInterchange moved the map over i in tile_i:... out of the loop over tile_i
  // (invalid: tile_i undefined outside). B = 2 * A, A = arange(5).
  auto sdfg = std::make_unique<SDFG>("tiled");
  sdfg->add_array("A", ScalarType::Float64, {5});
  sdfg->add_array("B", ScalarType::Float64, {5});
  SDFGState& st = sdfg->add_state("s", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& me = st.add_map("m", {"i"}, S("0:5"));
  auto& t = st.add_tasklet("t", {"y = 2 * x", Language::Python}, {"x"}, {"y"});
  auto ids = st.add_memlet_path({a.id(), me.id(), t.id()}, Memlet::simple("A", S("i")), "", "x");
  st.edge(ids[0]).memlet = Memlet::simple("A", S("0:5"));
  ids = st.add_memlet_path({t.id(), me.exit, b.id()}, Memlet::simple("B", S("i")), "y", "");
  st.edge(ids[1]).memlet = Memlet::simple("B", S("0:5"));
  REQUIRE(apply_first(*sdfg, "MapTiling"));
  // MapToForLoop on the outer (tile) map, not on the original map `me` (now the inner one).
  NodeId inner = me.id();
  REQUIRE(apply_first(*sdfg, "MapToForLoop",
                      [&](const transforms::Match& m) { return m.subgraph.front() != inner; }));
  REQUIRE(validate(*sdfg).empty());
  while (apply_first(*sdfg, "LoopMapInterchange")) REQUIRE(validate(*sdfg).empty());
  Values in{{"A", {0, 1, 2, 3, 4}}};
  CHECK(run_reference(*sdfg, {}, in).at("B") == std::vector<double>{0, 2, 4, 6, 8});
  CHECK(run_cpu(*sdfg, {}, in).at("B") == std::vector<double>{0, 2, 4, 6, 8});
}

TEST_CASE("a view copied back into an overlapping part of its own array reads the view first",
          "[sdfgdiff][regression][view]") {
  // Found by seed 500 (WEIR_SDFGFUZZ_KINDS=view-copy), part g1: V = A[0:4, 0:4] (a view),
  // A[1:5, 1:5] = V. NumPy: A = arange(25).reshape(5, 5); A[1:5, 1:5] = A[0:4, 0:4]. The cpu
  // backend buffered self copies only when both ends named the same container, not through a
  // view, and copied element by element (reading what it had already overwritten). Copies with
  // a view at either end now go through a buffer.
  auto sdfg = std::make_unique<SDFG>("view_back");
  sdfg->add_array("A", ScalarType::Float64, {5, 5});
  DataDescriptor v = DataDescriptor::make_array(ScalarType::Float64, {4, 4}, true);
  v.kind = DataKind::View;
  v.type_name = "View";
  v.strides = {5, 1};
  sdfg->add_data("V", v);
  SDFGState& st = sdfg->add_state("s", true);
  auto& a = st.add_access("A");
  auto& vn = st.add_access("V");
  auto& a2 = st.add_access("A");
  vn.in_connectors["views"] = std::nullopt;
  st.add_edge(a.id(), "", vn.id(), "views", Memlet::simple("A", S("0:4, 0:4")));
  Memlet m = Memlet::simple("V", S("0:4, 0:4"));
  m.other_subset = S("1:5, 1:5");
  st.add_edge(vn.id(), "", a2.id(), "", m);
  REQUIRE(validate(*sdfg).empty());
  std::vector<double> in(25),
      want{0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 10, 5, 6, 7, 8, 15, 10, 11, 12, 13, 20, 15, 16, 17, 18};
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(i);
  CHECK(run_reference(*sdfg, {}, {{"A", in}}).at("A") == want);
  CHECK(run_cpu(*sdfg, {}, {{"A", in}}).at("A") == want);
}

TEST_CASE("a copy with a write-conflict resolution between device arrays runs as a kernel on the GPU",
          "[sdfgdiff][regression][gpu]") {
  // Found by seeds 1 and 2 of the cuda-emulation stage: after gpu-transform both ends of
  // `B[0, 1:3] += A[1, 5, 1:3]` (and `B[1, 0:3, 1] += A[1:4, 1, 1]`) are device copies of the
  // arguments, and the CUDA generator refused a wcr copy in host code ("between host and device
  // memory with write-conflict resolution"). gpu-transform now makes such copies kernels.
  auto sdfg = std::make_unique<SDFG>("wcr_copy");
  sdfg->add_array("A", ScalarType::Float64, {2, 6, 3});
  sdfg->add_array("B", ScalarType::Float64, {1, 3});
  sdfg->add_array("C", ScalarType::Float64, {4, 2});
  sdfg->add_array("D", ScalarType::Float64, {2, 4, 2});
  SDFGState& st = sdfg->add_state("s", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  Memlet m = Memlet::simple("A", S("1, 5, 1:3"), "lambda x, y: x + y");
  m.other_subset = S("0, 1:3");
  st.add_edge(a.id(), "", b.id(), "", m);
  // Strided, between ranks: D[1, 0:4:2, 1] += C[0:4:2, 0].
  auto& c = st.add_access("C");
  auto& d = st.add_access("D");
  Memlet n = Memlet::simple("C", S("0:4:2, 0"), "lambda x, y: x + y");
  n.other_subset = S("1, 0:4:2, 1");
  st.add_edge(c.id(), "", d.id(), "", n);
  REQUIRE(validate(*sdfg).empty());
  Values in = random_inputs(*sdfg, {}, 7);
  Values want = run_reference(*sdfg, {}, in);
  // By hand: B[0, j] += A[1, 5, j] for j in 1, 2; B[0, 0] unchanged.
  const auto& A = in.at("A");
  const auto& B = in.at("B");
  CHECK(want.at("B") ==
        std::vector<double>{B[0], B[1] + A[1 * 18 + 5 * 3 + 1], B[2] + A[1 * 18 + 5 * 3 + 2]});
  // D[1, k, 1] += C[k, 0] for k in 0, 2.
  const auto& C = in.at("C");
  std::vector<double> D = in.at("D");
  D[1 * 8 + 0 * 2 + 1] += C[0 * 2 + 0];
  D[1 * 8 + 2 * 2 + 1] += C[2 * 2 + 0];
  CHECK(want.at("D") == D);
  CHECK(differences(want, run_cuda_emulation(*sdfg, {}, in)).empty());
}

TEST_CASE("a self-copy of overlapping rows of a device array reads its whole source first",
          "[sdfgdiff][regression][gpu]") {
  // Found by seed 4 of the cuda-emulation stage (under ASan): P[5:0:-1, 2:4] = P[0:5, 2:4] ran as
  // five row copies in order on the device, so rows 3 and 4 were read after rows 2 and 1 had
  // been written there. NumPy (and the CPU generator) read the whole source first; gpu-transform
  // now copies through a device transient.
  auto sdfg = std::make_unique<SDFG>("self_copy");
  sdfg->add_array("P", ScalarType::Float64, {6, 6});
  SDFGState& st = sdfg->add_state("s", true);
  auto& a = st.add_access("P");
  auto& b = st.add_access("P");
  // Rows 5, 4, 3, 2, 1 (inclusive end 1, step -1), columns 2 and 3.
  Memlet m = Memlet::simple("P", Subset({Range(5, 1, -1), Range(2, 3)}));
  m.other_subset = S("0:5, 2:4");
  m.is_data_src = false;
  st.add_edge(a.id(), "", b.id(), "", m);
  std::string problems;
  for (const auto& d : validate(*sdfg)) problems += d.str() + "\n";
  REQUIRE(problems == "");
  Values in;
  for (int k = 0; k < 36; ++k) in["P"].push_back(k);
  // By hand: P[5 - r, c] = P0[r, c] for r in 0..4, c in 2, 3.
  std::vector<double> want = in.at("P");
  for (int r = 0; r < 5; ++r)
    for (int c = 2; c < 4; ++c) want[(5 - r) * 6 + c] = in.at("P")[r * 6 + c];
  CHECK(run_reference(*sdfg, {}, in).at("P") == want);
  CHECK(run_cpu(*sdfg, {}, in).at("P") == want);
  CHECK(run_cuda_emulation(*sdfg, {}, in).at("P") == want);
}
