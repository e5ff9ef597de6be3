// Prefetch of gathered rows (docs/adr/0041, "prefetch of gathered rows"; codegen/src/
// gather_prefetch.cpp): before the K loop of row i, the generated code evaluates the loop's
// invariant part for row i + weir_prefetch_distance (the table read, the index, its check
// clamped instead of recorded) and prefetches the column that row gathers. The programs are
// tests/codegen/gather_program.h's: O[i, k] = 2 F[T[i], k] + k. Values, and the errors of bad
// table entries, are those of the program without the prefetch.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "../../codegen/prelude/weir_prefetch.h"
#include "gather_program.h"

using namespace weir;
using namespace weir::codegen;
using weir::test::expected_gather;
using weir::test::gather_sdfg;
using weir::test::GatherRun;
using weir::test::run_gather;
using weir::test::Shape;

namespace {

/// The generated C++ from the prefetch comment to the first K loop (the look-ahead block).
std::string prefetch_block(const std::string& source) {
  const std::size_t from = source.find("// prefetch: the rows the iteration weir_prefetch_distance ahead");
  const std::size_t to = source.find("for (int64_t k = ", from);
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  return source.substr(from, to - from);
}

}  // namespace

TEST_CASE("gather prefetch: the loop's invariant part runs for the row ahead, then its column is prefetched",
          "[codegen][prefetch]") {
  GeneratedCode g = generate_cpu(*gather_sdfg());
  INFO(g.source);
  const std::string block = prefetch_block(g.source);
  // The row ahead, the outer parameter shadowed, the check clamped (no fault recorded).
  CHECK_THAT(block, Catch::Contains("if (i + weir_prefetch_distance <= N - 1) {"));
  CHECK_THAT(block, Catch::Contains("[[maybe_unused]] const int64_t i = __weir_ahead"));
  CHECK_THAT(block,
             Catch::Contains("[[maybe_unused]] auto weir_index = [](int64_t i, int64_t n, auto&&...)"));
  // The table read at the row ahead and the index computed from it, as before the loop.
  CHECK_THAT(block, Catch::Contains("[[maybe_unused]] int32_t t = T[i];"));
  CHECK_THAT(block, Catch::Contains("[[maybe_unused]] const int64_t __weir_h0 = weir_index(t, (M)"));
  // The endpoint checks of k are not repeated; the row of F from its first level is prefetched.
  CHECK(block.find("(void)weir_index") == std::string::npos);
  CHECK_THAT(block,
             Catch::Contains("weir_prefetch_row(&f[__weir_h0 * KF + (0)], static_cast<int64_t>((K - 1) - "
                             "(0) + 1) * static_cast<int64_t>(sizeof(double)));"));
  CHECK_THAT(g.source, Catch::Contains("static constexpr std::int64_t weir_prefetch_distance = 8;"));
  // Off by option: no look-ahead and no prefetch header.
  CodegenOptions off;
  off.gather_prefetch = false;
  GeneratedCode plain = generate_cpu(*gather_sdfg(), off);
  CHECK(plain.source.find("weir_prefetch") == std::string::npos);
}

TEST_CASE("gather prefetch: values equal with and without prefetch and streaming stores",
          "[codegen][run][prefetch]") {
  // Every combination of the two options, parallel and sequential outer maps, a case that
  // streams (over weir_stream_min_bytes) and a small one with fewer rows than the distance.
  static_assert(weir_prefetch_distance == 8, "rows 0..7 have no row ahead in the small case");
  for (ScheduleType outer : {ScheduleType::CPU_Multicore, ScheduleType::Sequential}) {
    Shape sh;
    sh.outer = outer;
    auto s = gather_sdfg(sh);
    for (int combo = 0; combo < 4; ++combo) {
      CodegenOptions o;
      o.gather_prefetch = (combo & 1) != 0;
      o.streaming_stores = (combo & 2) != 0;
      const std::string tag =
          std::string(outer == ScheduleType::Sequential ? "seq" : "par") + std::to_string(combo);
      INFO("outer " << tag << ", prefetch " << o.gather_prefetch << ", streaming " << o.streaming_stores);
      CHECK(run_gather(*s, "prefetch_big_" + tag, 2048, 517, o).O == expected_gather(2048, 517));
      CHECK(run_gather(*s, "prefetch_small_" + tag, 5, 3, o).O == expected_gather(5, 3));
    }
  }
}

TEST_CASE("gather prefetch: a bad table entry fails as without prefetch, named at its own row",
          "[codegen][run][prefetch]") {
  // Row 10 gathers row 99 of F (64 rows). Rows 2 (10 - 8) evaluates row 10's index ahead: it is
  // clamped there, and the fault is the one row 10's own check records.
  std::vector<std::int32_t> table(20);
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<std::int32_t>(i % 64);
  table[10] = 99;
  for (bool prefetch : {true, false}) {
    INFO("prefetch " << prefetch);
    CodegenOptions o;
    o.gather_prefetch = prefetch;
    Shape sh;
    sh.outer = ScheduleType::Sequential;  // one thread: the first fault is row 10's in both cases
    GatherRun r = run_gather(*gather_sdfg(sh), std::string("prefetch_bad_") + (prefetch ? "on" : "off"), 20,
                             3, o, table);
    CHECK(r.rc != 0);
    CHECK_THAT(r.error, Catch::Contains("index 99 in dimension 0 is outside [0, 64) at (i=10, k=0)"));
  }
}

TEST_CASE("gather prefetch: loops that gather more than four rows are left to the hardware",
          "[codegen][prefetch]") {
  Shape sh;
  sh.code = "o = f[t, k] + f[t + 1, k] + f[t + 2, k] + f[t + 3, k] + f[t + 4, k]";
  GeneratedCode five = generate_cpu(*gather_sdfg(sh));
  CHECK(five.source.find("weir_prefetch_row(") == std::string::npos);
  sh.code = "o = f[t, k] + f[t + 1, k] + f[t + 2, k] + f[t + 3, k]";
  GeneratedCode four = generate_cpu(*gather_sdfg(sh));
  INFO(four.source);
  CHECK(four.source.find("weir_prefetch_row(") != std::string::npos);
}
