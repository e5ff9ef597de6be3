// The instrument-timers pass (docs/adr/0048-profiling.md): which elements get DaCe's
// `instrument` = "Timer", what it leaves alone, the attribute through a JSON round trip, and the
// static costs a profile reports (bytes moved and FLOPs, against hand counts).
#include <catch2/catch.hpp>

#include "support/builders.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/instrumented.h"
#include "weir/sdfg/serialize.h"
#include "weir/transforms/instrument_timers.h"
#include "weir/transforms/registry.h"
#include "weir/transforms/static_costs.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;

namespace {

std::size_t instrument(SDFG& sdfg, long long depth = 0, bool bounded = false) {
  AnalysisCache cache;
  InstrumentTimers pass;
  pass.options().set("depth", depth);
  pass.options().set("bounded", bounded);
  return pass.run(sdfg, cache);
}

/// prog(A[N], B[N], C[N]): state "compute" runs the nested maps of make_map2d's shape over
/// A -> B (outer "rows" over i, inner "cols" over j in 0:1), state "copy" copies B to C.
std::unique_ptr<SDFG> make_two_states() {
  auto sdfg = std::make_unique<SDFG>("prog");
  sdfg->add_symbol("N");
  for (const char* n : {"A", "B", "C"}) sdfg->add_array(n, ScalarType::Float64, {E("N")});
  SDFGState& s0 = sdfg->add_state("compute", true);
  auto& a = s0.add_access("A");
  auto& b = s0.add_access("B");
  auto& o = s0.add_map("rows", {"i"}, S("0:N"));
  auto& in = s0.add_map("cols", {"j"}, S("0:1"));
  auto& t = s0.add_tasklet("t", {"b = a * 2 + sqrt(a)", Language::Python}, {"a"}, {"b"});
  path_in(s0, a.id(), {o.id(), in.id()}, t.id(), "a", {M("A", "0:N"), M("A", "i"), M("A", "i")});
  path_out(s0, t.id(), "b", {in.exit, o.exit}, b.id(), {M("B", "i"), M("B", "i"), M("B", "0:N")});
  SDFGState& s1 = sdfg->add_state("copy");
  auto& b1 = s1.add_access("B");
  auto& c1 = s1.add_access("C");
  s1.add_edge(b1.id(), "", c1.id(), "", M("B", "0:N"));
  sdfg->add_edge(s0.id(), s1.id());
  return sdfg;
}

/// How many elements carry a Timer, counted without timed_elements (which refuses bad values).
/// SDFG "outer": map "points" (i = 0:N) calls `body` per point, X[i] into its scalar `in` and its
/// scalar `out` into Y[i].
std::unique_ptr<SDFG> call_per_point(std::unique_ptr<SDFG> body, const std::string& in,
                                     const std::string& out) {
  auto sdfg = std::make_unique<SDFG>("outer");
  sdfg->add_symbol("N");
  sdfg->add_array("X", ScalarType::Float64, {E("N")});
  sdfg->add_array("Y", ScalarType::Float64, {E("N")});
  SDFGState& st = sdfg->add_state("main", true);
  auto& x = st.add_access("X");
  auto& y = st.add_access("Y");
  auto& m = st.add_map("points", {"i"}, S("0:N"));
  auto& call = st.add_nested_sdfg("call", std::move(body), {in}, {out});
  path_in(st, x.id(), {m.id()}, call.id(), in, {M("X", "0:N"), M("X", "i")});
  path_out(st, call.id(), out, {m.exit}, y.id(), {M("Y", "i"), M("Y", "0:N")});
  return sdfg;
}

/// call_per_point of a body whose state "s" copies its scalar a into b.
std::unique_ptr<SDFG> make_call_per_point() {
  auto body = std::make_unique<SDFG>("body");
  body->add_scalar("a", ScalarType::Float64);
  body->add_scalar("b", ScalarType::Float64);
  SDFGState& bs = body->add_state("s", true);
  bs.add_edge(bs.add_access("a").id(), "", bs.add_access("b").id(), "", M("a", "0"));
  return call_per_point(std::move(body), "a", "b");
}

std::size_t timed_elements_or_empty(const SDFG& sdfg) {
  std::size_t n = 0;
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* node : st->nodes())
      if (const std::string* v = node->extra.find("instrument")) n += *v == "\"Timer\"";
  return n;
}

std::vector<std::string> kinds_and_labels(const SDFG& sdfg) {
  std::vector<std::string> out;
  for (const TimedElement& e : timed_elements(sdfg))
    out.push_back(std::string(to_string(e.kind)) + " " + e.label);
  return out;
}

}  // namespace

TEST_CASE("instrument-timers times states, maps at every level and copies", "[transforms][profile]") {
  auto sdfg = make_two_states();
  CHECK(timed_elements(*sdfg).empty());  // off by default
  CHECK(instrument(*sdfg) == 5);
  require_valid(*sdfg);
  CHECK(kinds_and_labels(*sdfg) ==
        std::vector<std::string>{"state compute", "map rows", "map cols", "state copy", "copy B -> C"});
  // The inner map too (it runs once per point of the outer one: timed per thread by codegen).
  for (MapEntry* m : maps_of(only_state(*sdfg))) CHECK(instrument_of(m->extra) == "Timer");
  // A second run changes nothing.
  CHECK(instrument(*sdfg) == 0);

  SECTION("depth 1 times top-level maps only, depth 2 the inner one too") {
    auto fresh = make_two_states();
    CHECK(instrument(*fresh, 1) == 4);
    CHECK(kinds_and_labels(*fresh) ==
          std::vector<std::string>{"state compute", "map rows", "state copy", "copy B -> C"});
    auto two = make_two_states();
    CHECK(instrument(*two, 2) == 5);
    CHECK_THROWS_WITH(instrument(*two, -1), Catch::Contains("'depth'") && Catch::Contains("at least 0"));
  }

  SECTION("the attribute survives a JSON round trip, as DaCe writes it") {
    const std::string text = sdfg_to_json_text(*sdfg);
    CHECK(text.find("\"instrument\":\"Timer\"") != std::string::npos);
    auto back = sdfg_from_json_text(text);
    CHECK(kinds_and_labels(*back) == kinds_and_labels(*sdfg));
    CHECK(sdfg_difference(*sdfg, *back) == "");
  }
  SECTION("the registry knows the pass by name") {
    auto p = make_pass("instrument-timers");
    REQUIRE(p);
    auto fresh = make_two_states();
    AnalysisCache cache;
    CHECK(p->run(*fresh, cache) == 5);
  }
}

TEST_CASE("instrument-timers keeps another instrumentation type and refuses a malformed one",
          "[transforms][profile]") {
  auto sdfg = make_two_states();
  SDFGState& s0 = only_state(*sdfg);
  MapEntry* rows = nullptr;
  for (MapEntry* m : maps_of(s0))
    if (m->map->label == "rows") rows = m;
  REQUIRE(rows);
  set_instrument(rows->extra, "GPU_Events");
  CHECK(instrument(*sdfg) == 4);
  CHECK(instrument_of(rows->extra) == "GPU_Events");
  CHECK(kinds_and_labels(*sdfg) ==
        std::vector<std::string>{"state compute", "map cols", "state copy", "copy B -> C"});

  auto bad = make_two_states();
  only_state(*bad).extra.set("instrument", "3");
  try {
    instrument(*bad);
    FAIL("a numeric instrument value was accepted");
  } catch (const IRError& e) {
    CHECK_THAT(e.what(), Catch::Contains("state 'compute'"));
    CHECK_THAT(e.what(), Catch::Contains("not an instrumentation type name"));
  }
  REQUIRE(only_state(*bad).extra.find("instrument"));
  CHECK(*only_state(*bad).extra.find("instrument") == "3");  // rolled back, nothing else set
  CHECK(timed_elements_or_empty(*bad) == 0);
}

TEST_CASE("instrument-timers enters SDFGs nested outside maps, and those called per point",
          "[transforms][profile]") {
  auto inner = make_map2d(false, "b = a + 1");
  inner->arg_names = {"A", "B"};
  auto g = std::make_unique<SDFG>("outer");
  g->add_symbol("N");
  g->add_symbol("M");
  g->add_array("X", ScalarType::Float64, {E("N"), E("M")});
  g->add_array("Y", ScalarType::Float64, {E("N"), E("M")});
  SDFGState& st = g->add_state("main", true);
  auto& x = st.add_access("X");
  auto& y = st.add_access("Y");
  auto& ns = st.add_nested_sdfg("call", std::move(inner), {"A"}, {"B"}, {{"N", E("N")}, {"M", E("M")}});
  st.add_edge(x.id(), "", ns.id(), "A", M("X", "0:N, 0:M"));
  st.add_edge(ns.id(), "B", y.id(), "", M("Y", "0:N, 0:M"));
  CHECK(instrument(*g) == 3);  // main, the nested state and its map
  require_valid(*g);
  CHECK(kinds_and_labels(*g) == std::vector<std::string>{"state main", "state main", "map map"});
  const auto timed = timed_elements(*g);
  CHECK(timed[1].cfg_id == 1);  // the nested SDFG is region 1 of cfg_list
  // The number the file gives that SDFG (DaCe's cfg_list_id), which SDFV matches a report with.
  const std::string text = sdfg_to_json_text(*g);
  CHECK(text.find("\"cfg_list_id\":1") != std::string::npos);
  CHECK(text.find("\"cfg_list_id\":2") == std::string::npos);
  CHECK(instrument_of(ns.extra).empty());

  // A nested SDFG called inside a map: the call, its state and its copy are timed (level 2, per
  // thread), as a map there would be.
  auto per_point = make_call_per_point();
  auto per_point_shallow = per_point->clone_sdfg();
  CHECK(instrument(*per_point) == 5);
  CHECK(kinds_and_labels(*per_point) ==
        std::vector<std::string>{"state main", "map points", "nested_sdfg call", "state s", "copy a -> b"});
  // Depth 1: what lies outside map scopes only.
  CHECK(instrument(*per_point_shallow, 1) == 2);
  CHECK(kinds_and_labels(*per_point_shallow) == std::vector<std::string>{"state main", "map points"});

  // make_map2d's map (level 2) inside a nested SDFG called per point of map "points" (level 1).
  auto with_map = std::make_unique<SDFG>("outer");
  with_map->add_symbol("N");
  with_map->add_symbol("M");
  with_map->add_array("X", ScalarType::Float64, {E("N"), E("M")});
  with_map->add_array("Y", ScalarType::Float64, {E("N"), E("M")});
  SDFGState& ws = with_map->add_state("main", true);
  auto called = make_map2d(false, "b = a + 1");
  called->arg_names = {"A", "B"};
  auto& wx = ws.add_access("X");
  auto& wy = ws.add_access("Y");
  auto& wm = ws.add_map("points", {"k"}, S("0:2"));
  auto& wcall = ws.add_nested_sdfg("call", std::move(called), {"A"}, {"B"}, {{"N", E("N")}, {"M", E("M")}});
  path_in(ws, wx.id(), {wm.id()}, wcall.id(), "A", {M("X", "0:N, 0:M"), M("X", "0:N, 0:M")});
  path_out(ws, wcall.id(), "B", {wm.exit}, wy.id(), {M("Y", "0:N, 0:M"), M("Y", "0:N, 0:M")});
  auto shallow = with_map->clone_sdfg();
  auto two = with_map->clone_sdfg();
  CHECK(instrument(*with_map) == 5);
  CHECK(kinds_and_labels(*with_map) ==
        std::vector<std::string>{"state main", "map points", "nested_sdfg call", "state main", "map map"});
  CHECK(instrument(*shallow, 1) == 2);
  CHECK(kinds_and_labels(*shallow) == std::vector<std::string>{"state main", "map points"});
  // Depth 2: the call, the called SDFG's state and its top-level map are all at level 2 (inside
  // one map), as a map directly inside "points" would be.
  CHECK(instrument(*two, 2) == 5);
  CHECK(kinds_and_labels(*two) == kinds_and_labels(*with_map));
}

TEST_CASE("instrument-timers 'bounded' times nothing that runs per point of a map", "[transforms][profile]") {
  // The whole body of a top-level map (timed once per thread) stays; the states of an SDFG called
  // per point (a scan's per-level states: millions of timers per call, user33's J2) do not.
  auto sdfg = make_call_per_point();
  auto every = sdfg->clone_sdfg();
  CHECK(instrument(*every) == 5);  // unbounded: the called state and its copy too
  CHECK(instrument(*sdfg, 0, true) == 3);
  CHECK(kinds_and_labels(*sdfg) == std::vector<std::string>{"state main", "map points", "nested_sdfg call"});
  // A vectorized map (the SIMD hint: an `omp simd` loop holds no timer) times its body per point
  // in the generated code, so the bounded mode leaves it untimed, as codegen's rule says.
  for (const char* hint : {"true", "8"}) {
    auto simd = make_call_per_point();
    for (SDFGState* st : simd->all_states())
      for (Node* n : st->nodes())
        if (auto* me = n->as<MapEntry>()) me->map->extra.set("weir_vectorize", hint);
    CHECK(instrument(*simd, 0, true) == 2);
    CHECK(kinds_and_labels(*simd) == std::vector<std::string>{"state main", "map points"});
  }

  // make_two_states: "cols" is the whole body of "rows" (kept); a map inside "cols" would not be.
  auto two = make_two_states();
  CHECK(instrument(*two, 0, true) == 5);
  // Depth bounds the bounded mode too.
  auto shallow = make_two_states();
  CHECK(instrument(*shallow, 1, true) == 4);
}

TEST_CASE("static costs: bytes from memlet footprints, FLOPs from tasklet code", "[transforms][profile]") {
  auto sdfg = make_two_states();
  instrument(*sdfg);
  const auto timed = timed_elements(*sdfg);
  REQUIRE(timed.size() == 5);
  const std::map<std::string, long long> n1000{{"N", 1000}};
  // The map reads A[0:N] and writes B[0:N]: 8 + 8 bytes per point; 3 operations per point
  // (*, +, sqrt) as the counting rule says.
  const EvaluatedCost map = evaluate(static_cost(timed[1]), n1000);
  CHECK(map.bytes == Approx(16.0 * 1000));
  CHECK(map.flops == Approx(3.0 * 1000));
  // A copy of N doubles reads and writes them: 16 N bytes, no operations.
  const EvaluatedCost copy = evaluate(static_cost(timed[4]), n1000);
  CHECK(copy.bytes == Approx(16.0 * 1000));
  CHECK(copy.flops == Approx(0));
  // A state's costs are its top-level elements'.
  CHECK(evaluate(static_cost(timed[0]), n1000).bytes == Approx(16.0 * 1000));
  CHECK(evaluate(static_cost(timed[3]), n1000).bytes == Approx(16.0 * 1000));
  // Without N's value the numbers are unknown, never made up.
  CHECK_FALSE(evaluate(static_cost(timed[1]), {}).bytes.has_value());
  // The inner map "cols" (0:1, once per point of "rows"): A[i] in, B[i] out, the tasklet once
  // per execution. Its bytes are the union over the N executions (A[0:N] and B[0:N]) shared
  // among them: 16 per execution, known only with N's value; its FLOPs need no symbol.
  REQUIRE(timed[2].label == "cols");
  const StaticCost cols_cost = static_cost(timed[2]);
  CHECK(cols_cost.bytes_shared_by.str() == "N");
  const EvaluatedCost cols = evaluate(cols_cost, n1000);
  CHECK(cols.bytes == Approx(16.0));
  CHECK(cols.flops == Approx(3.0));
  CHECK_FALSE(evaluate(cols_cost, {}).bytes.has_value());
  CHECK(evaluate(cols_cost, {}).flops == Approx(3.0));

  Tasklet t("t", {"c = a ** 2 - max(a, b) / 3.0\nd = -c if c < 0 else c * 0.5", Language::Python});
  CHECK(tasklet_flops(t) == 5);  // **, -, max, /, * (unary minus and the comparison count 0)
  Tasklet cpp("t", {"c = a + b;", Language::CPP});
  CHECK(tasklet_flops(cpp) == 0);
}

TEST_CASE("static costs: a nested SDFG call inside a map counts its states' FLOPs", "[transforms][profile]") {
  // Y[i] = f(X[i]) for i in 0:N through a nested SDFG per point: state "s" computes
  // y = x * 2 + sqrt(x) (3 operations); with `looped` 1, "s" runs in a for loop of 4 trips (the
  // level loop of a scan's column, user31's G11), with 2 in a loop whose update is no step
  // (k = k * 2), whose trips the count cannot see.
  auto make = [](int looped) {
    auto body = std::make_unique<SDFG>("body");
    body->add_scalar("x", ScalarType::Float64);
    body->add_scalar("y", ScalarType::Float64);
    ControlFlowRegion* region = body.get();
    if (looped)
      region = &body->add_loop("again", "k", "k = 1", "k < 5", looped == 1 ? "k = k + 1" : "k = k * 2");
    SDFGState& bs = region->add_state("s", true);
    auto& t = bs.add_tasklet("f", {"o = v * 2 + sqrt(v)", Language::Python}, {"v"}, {"o"});
    bs.add_edge(bs.add_access("x").id(), "", t.id(), "v", M("x", "0"));
    bs.add_edge(t.id(), "o", bs.add_access("y").id(), "", M("y", "0"));
    return call_per_point(std::move(body), "x", "y");
  };
  const std::map<std::string, long long> n100{{"N", 100}};
  auto plain = make(0);
  CHECK(instrument(*plain) == 4);
  const auto timed = timed_elements(*plain);
  REQUIRE(kinds_and_labels(*plain) ==
          std::vector<std::string>{"state main", "map points", "nested_sdfg call", "state s"});
  // The call, per execution: X[i] in, Y[i] out, the tasklet once; its bytes are the union over
  // the N calls (X[0:N], Y[0:N]) shared among them: 8 + 8 per call with N known.
  const StaticCost call = static_cost(timed[2]);
  CHECK_FALSE(call.flops_partial);
  CHECK(evaluate(call, n100).bytes == Approx(16.0));
  CHECK(evaluate(call, {}).flops == Approx(3.0));
  // The map: N calls, nothing left uncounted; the state "s" of the called SDFG: one execution.
  const StaticCost map = static_cost(timed[1]);
  CHECK_FALSE(map.flops_partial);
  CHECK(evaluate(map, n100).flops == Approx(300.0));
  CHECK(evaluate(map, n100).bytes == Approx(1600.0));
  CHECK(evaluate(static_cost(timed[3]), {}).flops == Approx(3.0));

  // The for loop: 4 trips of 3 operations per call, 4 x 3 x 100 for the map.
  auto looped = make(1);
  instrument(*looped);
  const auto ltimed = timed_elements(*looped);
  REQUIRE(ltimed[2].kind == TimedKind::NestedSDFG);
  const StaticCost lcall = static_cost(ltimed[2]);
  CHECK_FALSE(lcall.flops_partial);
  CHECK(evaluate(lcall, {}).flops == Approx(12.0));
  CHECK_FALSE(static_cost(ltimed[1]).flops_partial);
  CHECK(evaluate(static_cost(ltimed[1]), n100).flops == Approx(1200.0));
  // The loop that is no for loop: nothing of it counted, and the count says it is a lower bound.
  auto doubling = make(2);
  instrument(*doubling);
  const auto dtimed = timed_elements(*doubling);
  const StaticCost dcall = static_cost(dtimed[2]);
  CHECK(dcall.flops_partial);
  CHECK(evaluate(dcall, {}).flops == Approx(0.0));
  CHECK(static_cost(dtimed[1]).flops_partial);
}

TEST_CASE("static costs: a write-conflict resolution counts one FLOP per update", "[transforms][profile]") {
  // H[0] += X[i] * 2 for i in 0:N (user31's G4, DaCe's histogram): the tasklet's multiply and the
  // WCR's add per point, 2 x 100 for N = 100, and nothing uncounted.
  auto g = std::make_unique<SDFG>("hist");
  g->add_symbol("N");
  g->add_array("X", ScalarType::Float64, {E("N")});
  g->add_array("H", ScalarType::Float64, {E("1")});
  SDFGState& st = g->add_state("main", true);
  auto& x = st.add_access("X");
  auto& h = st.add_access("H");
  auto& m = st.add_map("points", {"i"}, S("0:N"));
  auto& t = st.add_tasklet("add", {"o = v * 2.0", Language::Python}, {"v"}, {"o"});
  path_in(st, x.id(), {m.id()}, t.id(), "v", {M("X", "0:N"), M("X", "i")});
  Memlet inner = M("H", "0"), outer = M("H", "0");
  inner.wcr = outer.wcr = "(lambda a, b: (a + b))";
  path_out(st, t.id(), "o", {m.exit}, h.id(), {inner, outer});
  instrument(*g);
  const auto timed = timed_elements(*g);
  REQUIRE(timed[1].kind == TimedKind::Map);
  const StaticCost map = static_cost(timed[1]);
  CHECK_FALSE(map.flops_partial);
  CHECK(evaluate(map, {{"N", 100}}).flops == Approx(200.0));
  CHECK(evaluate(static_cost(timed[0]), {{"N", 100}}).flops == Approx(200.0));  // the state
}

TEST_CASE("static costs: writes with write-conflict resolution count their combining operation",
          "[transforms][profile]") {
  // user31 G4: a histogram (DaCe's WCR `lambda a, b: a + b` into H[bin]) counted 0 FLOPs and
  // said the count was complete. Per point: `v * 2.0` (1) and the WCR add of what it writes (1);
  // over N = 1000 points, 2000 FLOPs. A write without WCR adds nothing.
  auto g = std::make_unique<SDFG>("hist");
  g->add_symbol("N");
  g->add_array("X", ScalarType::Float64, {E("N")});
  g->add_array("H", ScalarType::Float64, {E("10")});
  SDFGState& st = g->add_state("main", true);
  auto& x = st.add_access("X");
  auto& h = st.add_access("H");
  auto& m = st.add_map("points", {"i"}, S("0:N"));
  auto& t = st.add_tasklet("bin", {"o = v * 2.0", Language::Python}, {"v"}, {"o"});
  path_in(st, x.id(), {m.id()}, t.id(), "v", {M("X", "0:N"), M("X", "i")});
  Memlet inner = Memlet::simple("H", S("3"), "lambda a, b: a + b");
  Memlet outer = Memlet::simple("H", S("0:10"), "lambda a, b: a + b");
  path_out(st, t.id(), "o", {m.exit}, h.id(), {inner, outer});
  instrument(*g);
  const auto timed = timed_elements(*g);
  REQUIRE(timed[1].kind == TimedKind::Map);
  const StaticCost map = static_cost(timed[1]);
  CHECK_FALSE(map.flops_partial);
  CHECK(evaluate(map, {{"N", 1000}}).flops == Approx(2000.0));
}
