// Tests of HaloExchangeOverlap (docs/adr/0057, section 2026-12-06 "overlap"): the interior and
// boundary ranges worked out by hand on a 5-point stencil, the states and phases after the split,
// validity, and the split map computing what the whole map computes (reference interpreter,
// the exchanges taken out: they need MPI), an empty interior included; refusals.
#include <catch2/catch.hpp>

#include "support/builders.h"
#include "weir/sdfg/serialize.h"
#include "weir/transforms/halo_exchange_overlap.h"
#include "weir/transforms/registry.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;

namespace {

// out[i, j] = u[i-1, j] + 2 u[i+1, j] + 3 u[i, j-1] + 5 u[i, j+1] + 7 u[i, j] over the output
// domain i in 1..N-2, j in 1..M-2 (frame 1 on each side), after a state "halo" exchanging u
// along axes 0 and 1 (2x2 ranks, widths 1). `second_map` adds a map writing v to the consumer.
std::unique_ptr<SDFG> stencil(bool second_map = false, bool writes_u = false, bool nested = false) {
  auto sdfg = std::make_unique<SDFG>("stencil");
  sdfg->add_symbol("N");
  sdfg->add_symbol("M");
  sdfg->add_array("u", ScalarType::Float64, {E("N"), E("M")});
  sdfg->add_array("out", ScalarType::Float64, {E("N"), E("M")});
  sdfg->add_array("v", ScalarType::Float64, {E("N"), E("M")});
  SDFGState& x = sdfg->add_state("halo", true);
  auto node = std::make_unique<LibraryNode>("halo_u", "HaloExchange");
  node->classpath = "weir.distributed.HaloExchange";
  for (const char* k : {"frame_lo", "frame_hi", "width_lo", "width_hi"}) node->extra.set(k, "[1, 1]");
  node->extra.set("axes", "[0, 1]");
  node->extra.set("grid", "[2, 2]");
  node->in_connectors["_in"] = std::nullopt;
  node->out_connectors["_out"] = std::nullopt;
  Node& lib = x.add_node(std::move(node));
  x.add_edge(x.add_access("u").id(), "", lib.id(), "_in", M("u", "0:N, 0:M"));
  x.add_edge(lib.id(), "_out", x.add_access("u").id(), "", M("u", "0:N, 0:M"));

  SDFGState& c = sdfg->add_state("consumer");
  sdfg->add_edge(x.id(), c.id());
  auto& u = c.add_access("u");
  auto& out = c.add_access(writes_u ? "u" : "out");
  auto& t = c.add_tasklet("five", {"o = a + 2 * b + 3 * c + 5 * d + 7 * e", Language::Python},
                          {"a", "b", "c", "d", "e"}, {"o"});
  const std::vector<std::pair<std::string, std::string>> reads{
      {"a", "i-1, j"}, {"b", "i+1, j"}, {"c", "i, j-1"}, {"d", "i, j+1"}, {"e", "i, j"}};
  const std::string w = writes_u ? "u" : "out";
  if (nested) {  // i outer, j inner: the nest the orchestration's calls leave
    auto& mi = c.add_map("lap", {"i"}, S("1:N-1"));
    auto& mj = c.add_map("lap_inner", {"j"}, S("1:M-1"));
    for (const auto& [conn, at] : reads)
      path_in(c, u.id(), {mi.id(), mj.id()}, t.id(), conn,
              {M("u", "0:N, 0:M"), M("u", "i-1:i+2, 0:M"), M("u", at)});
    path_out(c, t.id(), "o", {mj.exit, mi.exit}, out.id(),
             {M(w, "i, j"), M(w, "i, 1:M-1"), M(w, "1:N-1, 1:M-1")});
  } else {
    auto& m = c.add_map("lap", {"i", "j"}, S("1:N-1, 1:M-1"));
    for (const auto& [conn, at] : reads)
      path_in(c, u.id(), {m.id()}, t.id(), conn, {M("u", "0:N, 0:M"), M("u", at)});
    path_out(c, t.id(), "o", {m.exit}, out.id(), {M(w, "i, j"), M(w, "1:N-1, 1:M-1")});
  }
  if (second_map) {
    auto& v = c.add_access("v");
    auto& t2 = c.add_tasklet("copy", {"o = a", Language::Python}, {"a"}, {"o"});
    auto& m2 = c.add_map("other", {"i", "j"}, S("0:N, 0:M"));
    auto& u2 = c.add_access("u");
    path_in(c, u2.id(), {m2.id()}, t2.id(), "a", {M("u", "0:N, 0:M"), M("u", "i, j")});
    path_out(c, t2.id(), "o", {m2.exit}, v.id(), {M("v", "i, j"), M("v", "0:N, 0:M")});
  }
  return sdfg;
}

SDFGState& state_named(SDFG& sdfg, const std::string& label) {
  for (SDFGState* st : sdfg.all_states())
    if (st->label == label) return *st;
  FAIL("no state " << label);
  throw;
}

// The SDFG without its HaloExchange nodes (and their access nodes): what runs without MPI.
std::unique_ptr<SDFG> without_exchanges(const SDFG& sdfg) {
  auto copy = sdfg.clone_sdfg();
  for (SDFGState* st : copy->all_states()) {
    std::vector<NodeId> drop;
    for (Node* n : st->nodes())
      if (auto* lib = n->as<LibraryNode>(); lib && lib->class_name() == "HaloExchange") {
        drop.push_back(lib->id());
        for (EdgeId e : st->in_edges(lib->id())) drop.push_back(st->edge(e).src);
        for (EdgeId e : st->out_edges(lib->id())) drop.push_back(st->edge(e).dst);
      }
    for (NodeId n : drop) st->remove_node(n);
  }
  return copy;
}

long long at(const sym::Expr& e, long long n, long long m) { return e.evaluate({{"N", n}, {"M", m}}); }

// Every point of the output domain 1..N-2 x 1..M-2 lies in exactly one of the maps.
void check_cover(const std::vector<MapEntry*>& maps, long long n, long long m) {
  std::map<std::pair<long long, long long>, int> hits;
  for (const MapEntry* me : maps) {
    const auto& r = me->map->range;
    for (long long i = at(r[0].start, n, m); i <= at(r[0].end, n, m); ++i)
      for (long long j = at(r[1].start, n, m); j <= at(r[1].end, n, m); ++j) ++hits[{i, j}];
  }
  INFO("N=" << n << " M=" << m);
  CHECK(hits.size() == static_cast<std::size_t>((n - 2) * (m - 2)));
  for (const auto& [p, k] : hits) {
    INFO("point " << p.first << "," << p.second);
    CHECK(k == 1);
    CHECK(p.first >= 1);
    CHECK(p.first <= n - 2);
    CHECK(p.second >= 1);
    CHECK(p.second <= m - 2);
  }
}

}  // namespace

TEST_CASE("HaloExchangeOverlap: the interior of a 5-point stencil by hand, and the boundary strips",
          "[transforms][halo-overlap]") {
  auto sdfg = stencil();
  OverlapSplit s;
  REQUIRE(overlap_split(*sdfg, state_named(*sdfg, "halo"), state_named(*sdfg, "consumer"), s));
  REQUIRE(s.dims == std::vector<std::size_t>{0, 1});
  // The part is 1..N-2; a point reads one cell around, so the interior is 2..N-3 (and 2..M-3):
  // N=10 -> 2..7; N=5 -> 2..2; N=4 (a part of 2 points) -> empty, clamped to lo=2, hi=1.
  for (auto [n, m] : std::vector<std::pair<long long, long long>>{{10, 9}, {5, 6}, {4, 7}, {3, 3}}) {
    INFO("N=" << n << " M=" << m);
    CHECK(at(s.lo[0], n, m) == std::min(2LL, n - 1));
    CHECK(at(s.hi[0], n, m) == std::max(n - 3, std::min(2LL, n - 1) - 1));
    CHECK(at(s.lo[1], n, m) == std::min(2LL, m - 1));
    CHECK(at(s.hi[1], n, m) == std::max(m - 3, std::min(2LL, m - 1) - 1));
  }
  CHECK(at(s.lo[0], 10, 9) == 2);
  CHECK(at(s.hi[0], 10, 9) == 7);
  CHECK(at(s.hi[1], 10, 9) == 6);
  CHECK(at(s.lo[0], 4, 7) == 2);
  CHECK(at(s.hi[0], 4, 7) == 1);
}

TEST_CASE("HaloExchangeOverlap: start interior wait boundary states, valid, ranges cover the domain once",
          "[transforms][halo-overlap]") {
  auto sdfg = stencil();
  require_valid(*sdfg);
  OverlapReport r = overlap_halo_exchanges(*sdfg);
  CHECK(r.split == 1);
  CHECK(r.refused.empty());
  require_valid(*sdfg);
  auto reloaded = sdfg_from_json_text(sdfg_to_json_text(*sdfg));
  REQUIRE(sdfg_difference(*reloaded, *sdfg).empty());

  // halo (start) -> consumer (interior) -> halo_wait -> consumer_boundary.
  SDFGState& x = state_named(*sdfg, "halo");
  SDFGState& c = state_named(*sdfg, "consumer");
  SDFGState& w = state_named(*sdfg, "halo_wait");
  SDFGState& b = state_named(*sdfg, "consumer_boundary");
  auto succ = [&](const SDFGState& st) {
    auto outs = sdfg->out_edges(st.id());
    REQUIRE(outs.size() == 1);
    return outs.front()->dst;
  };
  CHECK(succ(x) == c.id());
  CHECK(succ(c) == w.id());
  CHECK(succ(w) == b.id());
  CHECK(sdfg->out_edges(b.id()).empty());
  auto phase = [](const SDFGState& st) {
    for (Node* n : st.nodes())
      if (auto* lib = n->as<LibraryNode>())
        return *lib->extra.find("phase") + " " + *lib->extra.find("overlap");
    return std::string("none");
  };
  CHECK(phase(x) == "\"start\" 0");
  CHECK(phase(w) == "\"wait\" 0");

  auto interior = maps_of(c);
  REQUIRE(interior.size() == 1);
  const Subset& ir = interior[0]->map->range;
  CHECK(at(ir[0].start, 10, 9) == 2);
  CHECK(at(ir[0].end, 10, 9) == 7);
  CHECK(at(ir[1].start, 10, 9) == 2);
  CHECK(at(ir[1].end, 10, 9) == 6);
  auto strips = maps_of(b);
  REQUIRE(strips.size() == 4);
  // By label: boundary0/1 below/above along i (all j), boundary2/3 along j (interior i).
  std::map<std::string, const Subset*> by;
  for (const MapEntry* me : strips) by[me->map->label] = &me->map->range;
  REQUIRE(by.count("lap_boundary0"));
  REQUIRE(by.count("lap_boundary3"));
  auto range = [&](const std::string& l, std::size_t d) {
    const Range& rr = (*by.at(l))[d];
    return std::make_pair(at(rr.start, 10, 9), at(rr.end, 10, 9));
  };
  CHECK(range("lap_boundary0", 0) == std::make_pair(1LL, 1LL));
  CHECK(range("lap_boundary0", 1) == std::make_pair(1LL, 7LL));
  CHECK(range("lap_boundary1", 0) == std::make_pair(8LL, 8LL));
  CHECK(range("lap_boundary1", 1) == std::make_pair(1LL, 7LL));
  CHECK(range("lap_boundary2", 0) == std::make_pair(2LL, 7LL));
  CHECK(range("lap_boundary2", 1) == std::make_pair(1LL, 1LL));
  CHECK(range("lap_boundary3", 0) == std::make_pair(2LL, 7LL));
  CHECK(range("lap_boundary3", 1) == std::make_pair(7LL, 7LL));

  std::vector<MapEntry*> all = strips;
  all.push_back(interior[0]);
  for (auto [n, m] : std::vector<std::pair<long long, long long>>{{10, 9}, {5, 6}, {4, 7}, {3, 3}, {4, 4}})
    check_cover(all, n, m);
}

TEST_CASE("HaloExchangeOverlap: the split maps compute what the whole map computes, empty interior too",
          "[transforms][halo-overlap]") {
  auto sdfg = stencil();
  auto before = without_exchanges(*sdfg);
  REQUIRE(overlap_halo_exchanges(*sdfg).split == 1);
  auto after = without_exchanges(*sdfg);
  require_valid(*after);
  for (const Symbols& syms :
       std::vector<Symbols>{{{"N", 10}, {"M", 9}}, {{"N", 4}, {"M", 7}}, {{"N", 3}, {"M", 5}}})
    for (unsigned seed : {1u, 7u}) {
      INFO("N=" << syms.at("N") << " M=" << syms.at("M") << " seed " << seed);
      CHECK(run_program(*before, syms, seed) == run_program(*after, syms, seed));
    }
}

TEST_CASE("HaloExchangeOverlap: a nest of two maps splits as one 2-D map and computes the same",
          "[transforms][halo-overlap]") {
  auto sdfg = stencil(false, false, true);
  require_valid(*sdfg);
  REQUIRE(maps_of(state_named(*sdfg, "consumer")).size() == 2);
  auto before = without_exchanges(*sdfg);
  OverlapSplit s;
  REQUIRE(overlap_split(*sdfg, state_named(*sdfg, "halo"), state_named(*sdfg, "consumer"), s));
  REQUIRE(s.dims == std::vector<std::size_t>{0, 1});  // i of the outer map, j of the inner one
  REQUIRE(maps_of(state_named(*sdfg, "consumer")).size() == 2);
  CHECK(at(s.lo[1], 10, 9) == 2);
  CHECK(at(s.hi[1], 10, 9) == 6);
  REQUIRE(overlap_halo_exchanges(*sdfg).split == 1);
  require_valid(*sdfg);
  CHECK(maps_of(state_named(*sdfg, "consumer")).size() == 2);           // interior: outer and inner
  CHECK(maps_of(state_named(*sdfg, "consumer_boundary")).size() == 8);  // four strips, two maps each
  for (const MapEntry* me : maps_of(state_named(*sdfg, "consumer")))
    if (me->map->label == "lap_inner_interior") {
      CHECK(at(me->map->range[0].start, 10, 9) == 2);
      CHECK(at(me->map->range[0].end, 10, 9) == 6);
    }
  auto after = without_exchanges(*sdfg);
  for (const Symbols& syms :
       std::vector<Symbols>{{{"N", 10}, {"M", 9}}, {{"N", 4}, {"M", 7}}, {{"N", 7}, {"M", 3}}})
    for (unsigned seed : {1u, 7u}) {
      INFO("N=" << syms.at("N") << " M=" << syms.at("M") << " seed " << seed);
      CHECK(run_program(*before, syms, seed) == run_program(*after, syms, seed));
    }
}

TEST_CASE("HaloExchangeOverlap: refusals name what is in the way", "[transforms][halo-overlap]") {
  HaloExchangeOverlap t;
  SECTION("two maps in the consumer") {
    auto sdfg = stencil(true);
    CHECK(refusal(*sdfg, t) == "state 'consumer' has 2 top-level maps (the split needs one)");
  }
  SECTION("the map writes the exchanged array") {
    auto sdfg = stencil(false, true);
    CHECK(refusal(*sdfg, t) == "map 'lap' reads and writes 'u'");
  }
  SECTION("a second application finds the start split already") {
    auto sdfg = stencil();
    REQUIRE(overlap_halo_exchanges(*sdfg).split == 1);
    AnalysisCache cache;
    auto cands = find_matches(*sdfg, t, cache);
    REQUIRE(cands.size() == 2);  // the start and the wait
    for (const auto& c : cands)
      CHECK(c.result.reason() == "HaloExchange 'halo_u' is split already (it has a phase)");
    CHECK(overlap_halo_exchanges(*sdfg).split == 0);
  }
  SECTION("an index that is not a parameter plus a constant") {
    auto sdfg = stencil();
    SDFGState& c = state_named(*sdfg, "consumer");
    for (const DataflowEdge* e : c.edges())
      if (e->memlet.data == "u" && e->memlet.subset == S("i+1, j")) c.edge(e->id).memlet.subset = S("2*i, j");
    CHECK(refusal(*sdfg, t) ==
          "'u' is read along axis 0 at 2*i..2*i, not at one map parameter plus a constant");
  }
  SECTION("the registry knows it by its pass name") {
    REQUIRE(make_transformation("halo-exchange-overlap"));
    CHECK(make_transformation("halo-exchange-overlap")->name() == "HaloExchangeOverlap");
  }
}
