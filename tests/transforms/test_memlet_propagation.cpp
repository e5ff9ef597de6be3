// Tests of memlet propagation: worked-out subsets and volumes outside map scopes, and that
// propagating DaCe's corpus keeps it valid.
#include <catch2/catch.hpp>

#include "corpus.h"
#include "support/builders.h"
#include "weir/transforms/map_tiling.h"
#include "weir/transforms/memlet_propagation.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;

namespace {

/// One map `params` over `range` whose tasklet reads A at each subset of `reads` (one
/// connector per read, all through one map connector pair) and writes B[write].
struct OneMap {
  std::unique_ptr<SDFG> sdfg;
  SDFGState* st;
  NodeId a, b, entry, exit, tasklet;
};

OneMap one_map(const std::vector<std::string>& params, const std::string& range,
               const std::vector<std::string>& reads, const std::string& write,
               std::vector<sym::Expr> a_shape, std::vector<sym::Expr> b_shape) {
  OneMap m;
  m.sdfg = std::make_unique<SDFG>("prop");
  m.sdfg->add_symbol("N");
  m.sdfg->add_symbol("M");
  m.sdfg->add_array("A", ScalarType::Float64, a_shape);
  m.sdfg->add_array("B", ScalarType::Float64, b_shape);
  m.st = &m.sdfg->add_state("main", true);
  SDFGState& st = *m.st;
  m.a = st.add_access("A").id();
  m.b = st.add_access("B").id();
  std::vector<std::string> ins;
  std::string code = "b = 0";
  for (std::size_t k = 0; k < reads.size(); ++k) {
    ins.push_back("a" + std::to_string(k));
    code += " + a" + std::to_string(k);
  }
  m.tasklet = st.add_tasklet("t", {code, Language::Python}, ins, {"b"}).id();
  auto& me = st.add_map("m", params, S(range));
  m.entry = me.id();
  m.exit = me.exit;
  me.in_connectors["IN_A"] = std::nullopt;
  me.out_connectors["OUT_A"] = std::nullopt;
  st.add_edge(m.a, "", m.entry, "IN_A", Memlet::simple("A", Subset::full(a_shape)));
  for (std::size_t k = 0; k < reads.size(); ++k)
    st.add_edge(m.entry, "OUT_A", m.tasklet, ins[k], M("A", reads[k]));
  st.node(m.exit).in_connectors["IN_B"] = std::nullopt;
  st.node(m.exit).out_connectors["OUT_B"] = std::nullopt;
  st.add_edge(m.tasklet, "b", m.exit, "IN_B", M("B", write));
  st.add_edge(m.exit, "OUT_B", m.b, "", Memlet::simple("B", Subset::full(b_shape)));
  return m;
}

const Memlet& in_memlet(const OneMap& m) { return m.st->edge(m.st->in_edges(m.entry).front()).memlet; }
const Memlet& out_memlet(const OneMap& m) { return m.st->edge(m.st->out_edges(m.exit).front()).memlet; }

}  // namespace

TEST_CASE("propagation: an offset stencil read widens to the shifted range", "[transforms][propagation]") {
  // A[i + 1, j] over i in 0:N-1 (i = 0..N-2), j in 0:M  ->  A[1:N, 0:M] (inclusive 1..N-1).
  auto m = one_map({"i", "j"}, "0:N-1, 0:M", {"i + 1, j"}, "i, j", {E("N"), E("M")}, {E("N"), E("M")});
  propagate_memlets(*m.st);
  const Memlet& in = in_memlet(m);
  REQUIRE(in.subset.dims() == 2);
  CHECK(in.subset[0] == Range(E("1"), E("N - 1")));
  CHECK(in.subset[1] == Range(E("0"), E("M - 1")));
  CHECK(in.subset.str() == "1:N, 0:M");
  CHECK(in.volume == E("(N - 1) * M"));
  CHECK_FALSE(in.dynamic);
  const Memlet& out = out_memlet(m);
  CHECK(out.subset == S("0:N-1, 0:M"));
  CHECK(out.volume == E("(N - 1) * M"));
  require_valid(*m.sdfg);
}

TEST_CASE("propagation: several reads on one connector give their bounding box",
          "[transforms][propagation]") {
  auto m = one_map({"i"}, "1:N-1", {"i - 1", "i", "i + 1"}, "i", {E("N")}, {E("N")});
  propagate_memlets(*m.st);
  const Memlet& in = in_memlet(m);
  CHECK(in.subset[0] == Range(E("0"), E("N - 1")));
  CHECK(in.volume == E("3 * (N - 2)"));
  CHECK(out_memlet(m).subset[0] == Range(E("1"), E("N - 2")));
}

TEST_CASE("propagation: negative and strided coefficients", "[transforms][propagation]") {
  SECTION("N - 1 - i flips the bounds") {
    auto m = one_map({"i"}, "0:N", {"N - 1 - i"}, "i", {E("N")}, {E("N")});
    propagate_memlets(*m.st);
    CHECK(in_memlet(m).subset[0] == Range(E("0"), E("N - 1")));
  }
  SECTION("2*i gives a strided range") {
    auto m = one_map({"i"}, "0:N", {"2*i"}, "i", {E("2*N")}, {E("N")});
    propagate_memlets(*m.st);
    CHECK(in_memlet(m).subset[0] == Range(E("0"), E("2*N - 2"), E("2")));
    CHECK(in_memlet(m).volume == E("N"));
  }
  SECTION("an index without the parameter stays") {
    auto m = one_map({"i"}, "0:N", {"3"}, "i", {E("N")}, {E("N")});
    propagate_memlets(*m.st);
    CHECK(in_memlet(m).subset[0] == Range(E("3"), E("3")));
    CHECK(in_memlet(m).volume == E("N"));
  }
}

TEST_CASE("propagation: a non-affine index gives the whole dimension and dynamic",
          "[transforms][propagation]") {
  auto m = one_map({"i", "j"}, "0:N, 0:M", {"i * i, j"}, "i, j", {E("N"), E("M")}, {E("N"), E("M")});
  propagate_memlets(*m.st);
  const Memlet& in = in_memlet(m);
  CHECK(in.subset[0] == Range(E("0"), E("N - 1")));
  CHECK(in.subset[1] == Range(E("0"), E("M - 1")));
  CHECK(in.dynamic);
  CHECK_FALSE(out_memlet(m).dynamic);
}

TEST_CASE("propagation: nested two-level maps, innermost first", "[transforms][propagation]") {
  auto sdfg = make_map2d(true, "b = a * 2");
  SDFGState& st = only_state(*sdfg);
  // Spoil every memlet outside the tasklet so propagation has to recompute them.
  for (const DataflowEdge* e : st.edges()) {
    bool at_tasklet = st.node(e->src).as<Tasklet>() || st.node(e->dst).as<Tasklet>();
    if (!at_tasklet) st.edge(e->id).memlet.subset = e->memlet.data == "A" ? S("0, 0") : S("1, 1");
  }
  propagate_memlets(*sdfg);
  auto tree = st.scope_tree();
  for (const DataflowEdge* e : st.edges()) {
    const Node& src = st.node(e->src);
    const Node& dst = st.node(e->dst);
    if (src.as<AccessNode>() || dst.as<AccessNode>()) {
      CHECK(e->memlet.subset == S("0:N, 0:M"));
      CHECK(e->memlet.volume == E("N * M"));
    } else if (src.as<MapEntry>() && dst.as<MapEntry>()) {
      CHECK(e->memlet.subset == S("i, 0:M"));
      CHECK(e->memlet.volume == E("M"));
    } else if (src.as<MapExit>() && dst.as<MapExit>()) {
      CHECK(e->memlet.subset == S("i, 0:M"));
    }
  }
  require_valid(*sdfg);
}

TEST_CASE("propagation: a triangular inner range bounds the volume and marks it dynamic",
          "[transforms][propagation]") {
  auto sdfg = make_map2d(true, "b = a", "0:i+1");
  propagate_memlets(*sdfg);
  SDFGState& st = only_state(*sdfg);
  for (const DataflowEdge* e : st.edges())
    if (st.node(e->src).as<AccessNode>()) {
      CHECK(e->memlet.subset == S("0:N, 0:N"));  // j <= i <= N - 1
      CHECK(e->memlet.dynamic);
      CHECK(e->memlet.volume == E("N * N"));
    }
}

TEST_CASE("propagation: MapTiling gets exact memlets between tile and inner map",
          "[transforms][propagation][map-tiling]") {
  auto sdfg = make_map2d(false, "b = a + 1");
  MapTiling t;
  t.options().set("tile_sizes", std::vector<long long>{4});
  apply_and_check(*sdfg, t, {{{"N", 5}, {"M", 7}}, {{"N", 9}, {"M", 4}}});
  SDFGState& st = only_state(*sdfg);
  for (const DataflowEdge* e : st.edges()) {
    const Node& src = st.node(e->src);
    const Node& dst = st.node(e->dst);
    if (src.as<MapEntry>() && dst.as<MapEntry>()) {
      CHECK(e->memlet.subset[0] == Range(E("tile_i"), E("Min(N - 1, tile_i + 3)")));
      CHECK(e->memlet.subset[1] == Range(E("tile_j"), E("Min(M - 1, tile_j + 3)")));
    }
    if (src.as<AccessNode>()) {
      CHECK(e->memlet.subset == S("0:N, 0:M"));  // Min(N - 1, N + 2) simplified
      // The tile's size depends on tile_i (Min), which the volume rule does not sum up: the
      // volume is then the subset's size, marked dynamic.
      CHECK(e->memlet.volume == E("N * M"));
      CHECK(e->memlet.dynamic);
    }
  }
}

TEST_CASE("propagation: MapTiling that divides evenly ends its outer memlets at the last tile's end",
          "[transforms][propagation][map-tiling]") {
  // Trial friction: tiles of 4 over 0:N with divides_evenly=true start at 0, 4, ..., N - 4, and
  // the last one ends at N - 1. The tile map's range ends at N - 1, not at a tile start: the
  // outer memlet came out as A[0 .. N + 2], which the bounds checks refused on a valid SDFG.
  auto sdfg = make_map2d(false, "b = a + 1");
  MapTiling t;
  t.options().set("tile_sizes", std::vector<long long>{4, 4});
  t.options().set("divides_evenly", true);
  // Same values as the untiled SDFG (the reference interpreter), valid, and through JSON.
  apply_and_check(*sdfg, t, {{{"N", 8}, {"M", 12}}, {{"N", 4}, {"M", 4}}});
  SDFGState& st = only_state(*sdfg);
  std::size_t outer = 0;
  for (const DataflowEdge* e : st.edges()) {
    if (!st.node(e->src).as<AccessNode>() && !st.node(e->dst).as<AccessNode>()) continue;
    ++outer;
    INFO(e->memlet.subset.str());
    for (const auto& [n, m] : std::vector<std::pair<long long, long long>>{{8, 12}, {4, 4}, {40, 4}}) {
      const std::map<std::string, long long> at{{"N", n}, {"M", m}};
      CHECK(e->memlet.subset[0].start.evaluate(at) == 0);
      CHECK(e->memlet.subset[0].end.evaluate(at) == n - 1);
      CHECK(e->memlet.subset[1].end.evaluate(at) == m - 1);
    }
  }
  CHECK(outer == 2);
}

TEST_CASE("propagation: the corpus stays valid", "[transforms][propagation][corpus]") {
  std::size_t files = 0;
  for (const auto& path : dace_corpus_files()) {
    INFO(path.string());
    auto sdfg = load_sdfg(path.string());
    if (!validate(*sdfg).empty()) continue;
    propagate_memlets(*sdfg);
    require_valid(*sdfg);
    ++files;
  }
  CHECK(files > 0);
}
