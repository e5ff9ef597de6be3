// Timers of maps nested in maps (docs/adr/0048-profiling.md, "one clock read per chunk"): a timed
// map that is the whole body of the map around it is timed once per thread around that map's
// loops, one that shares the body with other code around each of its executions. Either way the
// report's numbers mean the same: executions counted exactly (worked out by hand below), each
// nested map's time within the time of the map around it, results unchanged.
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/sdfg/instrumented.h"

using namespace weir;
using namespace weir::codegen;

namespace {

/// B[i, j, k] = A[i, j, k] * 3 in three nested maps, outer (CPU_Multicore, i in 0:N), middle
/// (j in 0:M) and inner (k in 0:L), each timed (slots 0, 1, 2: by node id). With `beside`, the
/// middle map's body also holds a tasklet C[i, j] = A[i, j, 0] + 1 next to the inner map.
std::unique_ptr<SDFG> three_level_nest(bool beside) {
  using E = sym::Expr;
  auto s = std::make_unique<SDFG>("nest");
  s->add_array("A", ScalarType::Float64, {E::symbol("N"), E::symbol("M"), E::symbol("L")});
  s->add_array("B", ScalarType::Float64, {E::symbol("N"), E::symbol("M"), E::symbol("L")});
  if (beside) s->add_array("C", ScalarType::Float64, {E::symbol("N"), E::symbol("M")});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& outer = st.add_map("outer", {"i"}, Subset::parse("0:N"), ScheduleType::CPU_Multicore);
  auto& middle = st.add_map("middle", {"j"}, Subset::parse("0:M"));
  auto& inner = st.add_map("inner", {"k"}, Subset::parse("0:L"));
  auto& t = st.add_tasklet("t", {"b = a * 3", Language::Python}, {"a"}, {"b"});
  st.add_memlet_path({a.id(), outer.id(), middle.id(), inner.id(), t.id()},
                     Memlet::simple("A", Subset::parse("i, j, k")), "", "a");
  st.add_memlet_path({t.id(), inner.exit, middle.exit, outer.exit, b.id()},
                     Memlet::simple("B", Subset::parse("i, j, k")), "b", "");
  if (beside) {
    auto& c = st.add_access("C");
    auto& first = st.add_tasklet("first", {"c = a + 1", Language::Python}, {"a"}, {"c"});
    st.add_memlet_path({a.id(), outer.id(), middle.id(), first.id()},
                       Memlet::simple("A", Subset::parse("i, j, 0")), "", "a");
    st.add_memlet_path({first.id(), middle.exit, outer.exit, c.id()},
                       Memlet::simple("C", Subset::parse("i, j")), "c", "");
  }
  for (MapEntry* m : {&outer, &middle, &inner}) set_instrument(m->extra, kTimerInstrument);
  return s;
}

std::string chunk_record(int slot) {
  return "weir_profile_record_chunk(weir_profile_thread_slot(weir_profile_rows, weir_profile_row_stride, " +
         std::to_string(slot) + ")";
}
std::string execution_record(int slot) {
  return "weir_profile_record(weir_profile_thread_slot(weir_profile_rows, weir_profile_row_stride, " +
         std::to_string(slot) + ")";
}

/// Runs the nest twice at N x M x L and checks each call's profile: executions 1, N and N M;
/// the inner map's time within the middle one's, the middle one's within the outer one's; the
/// results exact.
void run_and_check(const std::filesystem::path& library, bool beside, std::int64_t n, std::int64_t m,
                   std::int64_t l) {
  test::LoadedProgram p(library);
  auto read = reinterpret_cast<ProfileReadFn>(p.symbol(kSymProfileRead));
  REQUIRE(read);
  const auto points = static_cast<std::size_t>(n * m * l);
  std::vector<double> A(points), B(points, 0.0), C(static_cast<std::size_t>(n * m), 0.0);
  for (std::size_t k = 0; k < points; ++k) A[k] = static_cast<double>(k % 89) * 0.25;
  std::int64_t sn = n, sm = m, sl = l;
  // Arguments: the containers by name, then the symbols by name.
  std::vector<void*> args{A.data(), B.data()};
  if (beside) args.push_back(C.data());
  for (std::int64_t* v : {&sl, &sm, &sn}) args.push_back(v);
  void* h = p.init(args.data());
  REQUIRE(h);
  for (int call = 0; call < 2; ++call) {
    INFO("N = " << n << ", call " << call);
    REQUIRE(p.run(h, args.data()) == 0);
    std::vector<std::int64_t> out(9, -1);
    REQUIRE(read(out.data(), 3) == 0);
    CHECK(out[0] == 1);      // outer: once per call
    CHECK(out[3] == n);      // middle: once per outer point
    CHECK(out[6] == n * m);  // inner: once per middle point
    CHECK(out[7] > 0);
    // Each map's time (the busiest thread's total for the nested ones) within the one around it.
    CHECK(out[7] <= out[4]);
    CHECK(out[4] <= out[1]);
    CHECK(out[5] >= out[2]);
    CHECK(out[8] >= out[5]);
  }
  for (std::size_t k = 0; k < points; ++k) REQUIRE(B[k] == A[k] * 3);
  if (beside)
    for (std::size_t ij = 0; ij < static_cast<std::size_t>(n * m); ++ij)
      REQUIRE(C[ij] == A[ij * static_cast<std::size_t>(l)] + 1);
  REQUIRE(p.finalize(h) == 0);
}

}  // namespace

TEST_CASE("profile chunk timers: maps that are the whole body of a map are timed once per thread",
          "[codegen][profile]") {
  auto s = three_level_nest(false);
  GeneratedCode g = generate_cpu(*s);
  // The outer map around its parallel region; the middle and the inner map once per thread
  // around the loops they are the body of: the parallel loop's share of each thread ends
  // without a barrier so that its record follows its own last iteration.
  CHECK(g.source.find("weir_profile_record(weir_profile_slots[0]") != std::string::npos);
  const auto pragma = g.source.find("#pragma omp for nowait");
  REQUIRE(pragma != std::string::npos);
  CHECK(g.source.find(chunk_record(1), pragma) != std::string::npos);
  CHECK(g.source.find(chunk_record(2), pragma) != std::string::npos);
  CHECK(g.source.find(execution_record(1)) == std::string::npos);
  CHECK(g.source.find(execution_record(2)) == std::string::npos);
  CHECK(g.source.find("omp atomic", pragma) == std::string::npos);
  CHECK(g.source.find("omp critical", pragma) == std::string::npos);

  auto dir = test::scratch_dir("profile_chunk_timers_whole_body");
  const auto library = test::compile_shared(g.source, dir);
  // 37 outer points on two threads or more: shares of unequal size; one outer point: threads
  // that run none record nothing.
  run_and_check(library, false, 37, 5, 64);
  run_and_check(library, false, 1, 3, 16);
}

TEST_CASE("profile chunk timers: a map beside other code is timed around each execution",
          "[codegen][profile]") {
  auto s = three_level_nest(true);
  GeneratedCode g = generate_cpu(*s);
  // The middle map is still the outer one's whole body; the inner map shares the middle one's
  // body with a tasklet, so its own executions are timed.
  CHECK(g.source.find(chunk_record(1)) != std::string::npos);
  CHECK(g.source.find(execution_record(2)) != std::string::npos);
  CHECK(g.source.find(chunk_record(2)) == std::string::npos);

  auto dir = test::scratch_dir("profile_chunk_timers_beside");
  const auto library = test::compile_shared(g.source, dir);
  run_and_check(library, true, 37, 5, 64);
  run_and_check(library, true, 1, 3, 16);
}

TEST_CASE("profile chunk timers: a sum over a nested map keeps its parallel region's barrier",
          "[codegen][profile]") {
  // S[0] += A[i, j] over an outer CPU_Multicore map (i in 0:N) whose whole body is the inner map
  // (j in 0:M): the sum's per-thread copies (parallel_privatization.cpp), and the inner map's timer once
  // per thread around the outer loops.
  using E = sym::Expr;
  auto s = std::make_unique<SDFG>("sum");
  s->add_array("A", ScalarType::Float64, {E::symbol("N"), E::symbol("M")});
  s->add_array("S", ScalarType::Float64, {E(1)});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& out = st.add_access("S");
  auto& outer = st.add_map("outer", {"i"}, Subset::parse("0:N"), ScheduleType::CPU_Multicore);
  auto& inner = st.add_map("inner", {"j"}, Subset::parse("0:M"));
  auto& t = st.add_tasklet("t", {"o = x", Language::Python}, {"x"}, {"o"});
  st.add_memlet_path({a.id(), outer.id(), inner.id(), t.id()}, Memlet::simple("A", Subset::parse("i, j")), "",
                     "x");
  st.add_memlet_path({t.id(), inner.exit, outer.exit, out.id()},
                     Memlet::simple("S", Subset::parse("0"), "lambda a, b: a + b"), "o", "");
  set_instrument(outer.extra, kTimerInstrument);
  set_instrument(inner.extra, kTimerInstrument);
  GeneratedCode g = generate_cpu(*s);
  const auto pragma = g.source.find("#pragma omp for nowait");
  REQUIRE(pragma != std::string::npos);
  CHECK(g.source.find(chunk_record(1), pragma) != std::string::npos);
  // The sum's per-thread copies open the parallel region; inside it the loops' share ends
  // without a barrier, the record follows, then the barrier the plain `omp for` had, before the
  // copies are combined.
  const auto record = g.source.find(chunk_record(1), pragma);
  const auto barrier = g.source.find("#pragma omp barrier", pragma);
  REQUIRE(record != std::string::npos);
  REQUIRE(barrier != std::string::npos);
  CHECK(record < barrier);
  CHECK(g.source.find("#pragma omp parallel for", pragma) == std::string::npos);

  auto dir = test::scratch_dir("profile_chunk_timers_sum");
  test::LoadedProgram p(test::compile_shared(g.source, dir));
  auto read = reinterpret_cast<ProfileReadFn>(p.symbol(kSymProfileRead));
  REQUIRE(read);
  const std::int64_t n = 41, m = 7;
  std::vector<double> A(static_cast<std::size_t>(n * m)), S(1, 0.0);
  // Integers: every order of the additions gives the same sum, 0 + 1 + ... + (N M - 1).
  for (std::size_t k = 0; k < A.size(); ++k) A[k] = static_cast<double>(k);
  std::int64_t sm = m, sn = n;
  std::vector<void*> args{A.data(), S.data(), &sm, &sn};
  void* h = p.init(args.data());
  REQUIRE(h);
  for (int call = 0; call < 2; ++call) {
    INFO("call " << call);
    S[0] = 0.0;
    REQUIRE(p.run(h, args.data()) == 0);
    CHECK(S[0] == static_cast<double>(n * m * (n * m - 1) / 2));
    std::vector<std::int64_t> out(6, -1);
    REQUIRE(read(out.data(), 2) == 0);
    CHECK(out[0] == 1);
    CHECK(out[3] == n);
    CHECK(out[4] <= out[1]);
  }
  REQUIRE(p.finalize(h) == 0);
}

TEST_CASE("profile chunk timers: streamed rows are fenced before the record in one parallel region",
          "[codegen][profile][streaming]") {
  // The inner map writes B's rows once (streaming stores, docs/adr/0041): each thread fences
  // them after its share of the outer loop, which also records the middle map's chunk timer.
  // Both share one `#pragma omp parallel` region around `#pragma omp for nowait`: the fence
  // before the record, and no barrier of their own (the region's end is the barrier).
  auto s = three_level_nest(false);
  GeneratedCode g = generate_cpu(*s);
  INFO(g.source);
  const auto region = g.source.find("#pragma omp parallel\n");
  REQUIRE(region != std::string::npos);
  const auto timed = g.source.find("{  // timed (instrument: Timer) slot 1", region);
  const auto pragma = g.source.find("#pragma omp for nowait", region);
  const auto store = g.source.find("weir_stream_store(&B[", pragma);
  const auto fence = g.source.find("weir_stream_fence();", pragma);
  const auto record = g.source.find(chunk_record(1), pragma);
  REQUIRE(timed != std::string::npos);
  REQUIRE(pragma != std::string::npos);
  REQUIRE(store != std::string::npos);
  REQUIRE(fence != std::string::npos);
  REQUIRE(record != std::string::npos);
  CHECK(timed < pragma);
  CHECK(store < fence);
  CHECK(fence < record);
  // The map's code is there twice, for the streamed and the plain store kind (docs/adr/0041,
  // session 35): one region in each copy.
  const auto plain_copy = g.source.find("else {  // the same code: its streamed path drops out", region);
  REQUIRE(plain_copy != std::string::npos);
  const auto second = g.source.find("#pragma omp parallel", region + 1);
  CHECK(second > plain_copy);
  CHECK(g.source.find("#pragma omp parallel", second + 1) == std::string::npos);
  CHECK(g.source.find("#pragma omp barrier") == std::string::npos);

  // B of 64 x 64 x 320 doubles (10.5 MB, rows of 2,560 bytes) streams at run time; 37 x 5 x 64
  // does not. Executions and values are the same either way (run_and_check).
  auto dir = test::scratch_dir("profile_chunk_timers_streamed");
  const auto library = test::compile_shared(g.source, dir);
  run_and_check(library, false, 64, 64, 320);
  run_and_check(library, false, 37, 5, 64);
}
