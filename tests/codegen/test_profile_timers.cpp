// Timers of elements whose `instrument` is Timer (docs/adr/0048-profiling.md): no timer code at
// all without the attribute, a timer around a state and a top-level map's whole loop nest with
// it, read back through weir_profile_elements / weir_profile_read after a call, and a map inside a
// parallel map timed on per-thread accumulators merged when read.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/sdfg/instrumented.h"

using namespace weir;
using namespace weir::codegen;

namespace {

MapEntry& map_of(SDFGState& st) {
  for (Node* n : st.nodes())
    if (auto* m = n->as<MapEntry>()) return *m;
  FAIL("no map");
  throw;
}

}  // namespace

TEST_CASE("profile timers: no timer code without instrument", "[codegen][profile]") {
  auto s = test::map_program("b = a * 2");
  GeneratedCode g = generate_cpu(*s);
  CHECK(g.source.find("weir_profile") == std::string::npos);
  CHECK(g.source.find("clock_gettime") == std::string::npos);
  // No for another type either: only Timer generates code on the CPU.
  set_instrument(s->all_states()[0]->extra, "No_Instrumentation");
  CHECK(generate_cpu(*s).source.find("weir_profile") == std::string::npos);
}

TEST_CASE("profile timers: a timed state and map are measured per call", "[codegen][profile]") {
  auto s = test::map_program("b = a * 2", Language::Python, ScheduleType::CPU_Multicore);
  SDFGState& st = *s->all_states()[0];
  set_instrument(st.extra, kTimerInstrument);
  set_instrument(map_of(st).extra, kTimerInstrument);
  GeneratedCode g = generate_cpu(*s);
  CHECK(g.source.find("weir_profile_record(weir_profile_slots[0]") != std::string::npos);
  CHECK(g.source.find("weir_profile_record(weir_profile_slots[1]") != std::string::npos);
  CHECK(g.source.find("weir_profile_record(weir_profile_slots[2]") == std::string::npos);
  CHECK(g.source.find("weir_profile_slot weir_profile_slots[2];") != std::string::npos);
  // The map's timer encloses its parallel region: it opens before the pragma.
  const auto timer = g.source.find("const int64_t weir_timer_start = weir_profile_now();\n");
  // (After the prelude, whose entry check of tables has a parallel loop of its own.)
  const auto pragma = g.source.find("#pragma omp parallel", g.source.find("// --- SDFG"));
  REQUIRE(timer != std::string::npos);
  REQUIRE(pragma != std::string::npos);
  CHECK(timer < pragma);

  auto dir = test::scratch_dir("profile_timers_state_map");
  test::LoadedProgram p(test::compile_shared(g.source, dir));
  auto elements = reinterpret_cast<ProfileElementsFn>(p.symbol(kSymProfileElements));
  auto read = reinterpret_cast<ProfileReadFn>(p.symbol(kSymProfileRead));
  REQUIRE(elements);
  REQUIRE(read);
  const std::string list = elements();
  CHECK(list ==
        "[{\"kind\":\"state\",\"label\":\"main\",\"cfg_id\":0,\"state_id\":0,\"id\":-1,\"edge\":-1},"
        "{\"kind\":\"map\",\"label\":\"m\",\"cfg_id\":0,\"state_id\":0,\"id\":2,\"edge\":-1}]");

  const std::int64_t n = 1 << 20;
  std::vector<double> a(n, 1.5), b(n, 0.0);
  std::int64_t size = n;
  std::vector<void*> args{a.data(), b.data(), &size};
  void* h = p.init(args.data());
  REQUIRE(h);
  for (int call = 0; call < 2; ++call) {
    INFO("call " << call);
    REQUIRE(p.run(h, args.data()) == 0);
    std::vector<std::int64_t> out(6, -1);
    REQUIRE(read(out.data(), 2) == 0);
    // Each ran once in this call (the slots start from zero at every weir_run).
    CHECK(out[0] == 1);
    CHECK(out[3] == 1);
    CHECK(out[1] > 0);
    CHECK(out[4] > 0);
    CHECK(out[4] <= out[1]);  // the map is inside the state
    CHECK(out[5] >= out[2]);  // and starts after it
  }
  CHECK(b[n - 1] == 3.0);
  std::vector<std::int64_t> wrong(3);
  CHECK(read(wrong.data(), 1) != 0);
  CHECK(std::string(p.last_error()).find("has 2 timed elements") != std::string::npos);
  REQUIRE(p.finalize(h) == 0);
}

TEST_CASE("profile timers: a map inside a parallel map is timed per thread and merged",
          "[codegen][profile]") {
  using E = sym::Expr;
  auto s = std::make_unique<SDFG>("prog");
  s->add_array("A", ScalarType::Float64, {E::symbol("N"), E::symbol("N")});
  s->add_array("B", ScalarType::Float64, {E::symbol("N"), E::symbol("N")});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& outer = st.add_map("outer", {"i"}, Subset::parse("0:N"), ScheduleType::CPU_Multicore);
  auto& inner = st.add_map("inner", {"j"}, Subset::parse("0:N"));
  auto& t = st.add_tasklet("t", {"b = a * 3", Language::Python}, {"a"}, {"b"});
  st.add_memlet_path({a.id(), outer.id(), inner.id(), t.id()}, Memlet::simple("A", Subset::parse("i, j")), "",
                     "a");
  st.add_memlet_path({t.id(), inner.exit, outer.exit, b.id()}, Memlet::simple("B", Subset::parse("i, j")),
                     "b", "");
  set_instrument(outer.extra, kTimerInstrument);
  set_instrument(inner.extra, kTimerInstrument);
  GeneratedCode g = generate_cpu(*s);
  // The outer map's timer writes its shared slot outside the parallel region; the inner map's
  // (the outer one's whole body: once per thread around its share of the loops) the running
  // thread's row of slots, inside it (no atomic, no lock).
  CHECK(g.source.find("weir_profile_record(weir_profile_slots[0]") != std::string::npos);
  // (After the prelude, whose entry check of tables has a parallel loop of its own.)
  const auto pragma = g.source.find("#pragma omp parallel", g.source.find("// --- SDFG"));
  REQUIRE(pragma != std::string::npos);
  const std::string record =
      "weir_profile_record_chunk(weir_profile_thread_slot(weir_profile_rows, weir_profile_row_stride, 1)";
  CHECK(g.source.find(record, pragma) != std::string::npos);
  // No atomic update or lock in the program's code (the prelude before it has helpers with them).
  CHECK(g.source.find("omp atomic", pragma) == std::string::npos);
  CHECK(g.source.find("omp critical", pragma) == std::string::npos);

  auto dir = test::scratch_dir("profile_timers_inner_map_per_thread");
  test::LoadedProgram p(test::compile_shared(g.source, dir));
  auto read = reinterpret_cast<ProfileReadFn>(p.symbol(kSymProfileRead));
  REQUIRE(read);
  const std::int64_t n = 300;
  std::vector<double> A(n * n), B(n * n, 0.0);
  for (std::int64_t k = 0; k < n * n; ++k) A[static_cast<std::size_t>(k)] = static_cast<double>(k % 97) * 0.5;
  std::int64_t size = n;
  std::vector<void*> args{A.data(), B.data(), &size};
  void* h = p.init(args.data());
  REQUIRE(h);
  for (int call = 0; call < 2; ++call) {
    INFO("call " << call);
    REQUIRE(p.run(h, args.data()) == 0);
    std::vector<std::int64_t> out(6, -1);
    REQUIRE(read(out.data(), 2) == 0);
    CHECK(out[0] == 1);  // the outer map: once per call
    // The inner map: once per point of the outer one, whichever threads ran them, counted anew
    // in every call.
    CHECK(out[3] == n);
    CHECK(out[4] > 0);
    // Its time is the busiest thread's total: inside the outer map's wall time.
    CHECK(out[4] <= out[1]);
    CHECK(out[5] >= out[2]);
  }
  for (std::int64_t k = 0; k < n * n; ++k) {
    const auto u = static_cast<std::size_t>(k);
    REQUIRE(B[u] == A[u] * 3);
  }
  REQUIRE(p.finalize(h) == 0);
}
