// The lanes of a contiguous SIMD loop that reads a row at shifted offsets (docs/adr/0055,
// "session 35"; codegen/src/simd_width.h): after cpu-schedules, a 2-D stencil's inner loop over
// B[i, j] = A[i, j - 1] + 2 A[i, j] + 3 A[i, j + 1] runs in two versions chosen by its trip count
// (`weir_simd_long_row`): 256-bit vectors over long rows, all the lanes over short ones. A loop
// whose accesses are all at one offset keeps the one full-width version. Values: both versions on
// the cpu backend against the formula worked out from the inputs, and the reference interpreter
// before the schedules.
#include <catch2/catch.hpp>

#include "support/builders.h"
#include "support/cpu_run.h"
#include "support/interpreter.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/transforms/cpu_schedules.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;
using Catch::Matchers::Contains;

namespace {

/// B[i, j] = A[i, j - 1] + 2 A[i, j] + 3 A[i, j + 1] over i in 0:N, j in 1:M-1, one 2-D map
/// (as DaCe's simplified SDFGs of laplace2d and jacobi_2d have it). With `shifted` false the
/// reads are A[i, j] three times (one offset).
std::unique_ptr<SDFG> make_row_stencil(bool shifted) {
  auto sdfg = std::make_unique<SDFG>("row_stencil");
  sdfg->add_symbol("N");
  sdfg->add_symbol("M");
  sdfg->add_array("A", ScalarType::Float64, {E("N"), E("M")});
  sdfg->add_array("B", ScalarType::Float64, {E("N"), E("M")});
  SDFGState& st = sdfg->add_state("main", true);
  NodeId a = st.add_access("A").id(), b = st.add_access("B").id();
  auto& m = st.add_map("row", {"i", "j"}, S("0:N, 1:M - 1"));
  auto& t = st.add_tasklet("stencil", {"b = l + 2 * c + 3 * r", Language::Python}, {"l", "c", "r"}, {"b"});
  const char* at[] = {shifted ? "i, j - 1" : "i, j", "i, j", shifted ? "i, j + 1" : "i, j"};
  const char* conn[] = {"l", "c", "r"};
  for (int k = 0; k < 3; ++k) path_in(st, a, {m.id()}, t.id(), conn[k], {M("A", "0:N, 0:M"), M("A", at[k])});
  path_out(st, t.id(), "b", {m.exit}, b, {M("B", "i, j"), M("B", "0:N, 0:M")});
  return sdfg;
}

/// `sdfg` after cpu-schedules (the inner j loop split off, sequential, with the SIMD hint).
std::unique_ptr<SDFG> scheduled(const SDFG& sdfg) {
  auto s = sdfg.clone_sdfg();
  AnalysisCache cache;
  CHECK(CpuSchedules().run(*s, cache) > 0);
  require_valid(*s);
  return s;
}

}  // namespace

TEST_CASE("shifted rows: the inner loop runs in a long-row and a short-row version",
          "[transforms][codegen][simd-width]") {
  auto s = scheduled(*make_row_stencil(true));
  const std::string code = codegen::generate_cpu(*s).source;
  INFO(code);
  // The prelude: half the AVX-512 lanes, and the run-time test, false without AVX-512.
  CHECK_THAT(code, Contains("#define WEIR_SIMD_HALF(bytes) simdlen(32 / (bytes))"));
  CHECK_THAT(code, Contains("return points * bytes >= 1280;"));
  // The loop (in blocks of streamed rows: the block's trip count) of 8-byte elements; the
  // long-row version first.
  const std::size_t test = code.find("if (weir_simd_long_row(");
  REQUIRE(test != std::string::npos);
  CHECK(code.substr(test, code.find('\n', test) - test).find(", 8)) {") != std::string::npos);
  const std::size_t half = code.find("#pragma omp simd WEIR_SIMD_HALF(8)\n");
  const std::size_t full = code.find("#pragma omp simd WEIR_SIMD_FULL(8)\n");
  REQUIRE(half != std::string::npos);
  REQUIRE(full != std::string::npos);
  CHECK(test < half);
  CHECK(half < full);
}

TEST_CASE("shifted rows: one offset keeps the full-width loop only", "[transforms][codegen][simd-width]") {
  auto s = scheduled(*make_row_stencil(false));
  const std::string code = codegen::generate_cpu(*s).source;
  INFO(code);
  CHECK_THAT(code, Contains("#pragma omp simd WEIR_SIMD_FULL(8)\n"));
  CHECK(code.find("if (weir_simd_long_row(") == std::string::npos);
  CHECK(code.find("#pragma omp simd WEIR_SIMD_HALF(") == std::string::npos);
}

TEST_CASE("shifted rows: both versions compute the stencil", "[transforms][codegen][simd-width]") {
  auto before = make_row_stencil(true);
  auto after = scheduled(*before);
  // Rows of 4 doubles (short: the full-width version), 298 and 301 (2384 and 2408 bytes: the
  // long-row version where the target has AVX-512; its remainder too at 301).
  for (long long cols : {6LL, 300LL, 303LL}) {
    INFO("M = " << cols);
    const std::map<std::string, long long> sizes{{"N", 3}, {"M", cols}};
    CpuOutputs out = run_on_cpu(*after, sizes, 5);
    const std::vector<double>& A = out.at("A");
    const std::vector<double>& B = out.at("B");
    REQUIRE(A.size() == static_cast<std::size_t>(3 * cols));
    for (long long i = 0; i < 3; ++i)
      for (long long j = 1; j + 1 < cols; ++j) {
        const auto at = static_cast<std::size_t>(i * cols + j);
        CHECK(B[at] == A[at - 1] + 2 * A[at] + 3 * A[at + 1]);
      }
    // The reference interpreter on the SDFG before the schedules agrees on the interior.
    Arrays ref = run_program(*before, {{"N", 3}, {"M", cols}}, 5);
    const std::vector<double>& rA = ref.at("A");
    const std::vector<double>& rB = ref.at("B");
    for (long long i = 0; i < 3; ++i)
      for (long long j = 1; j + 1 < cols; ++j) {
        const auto at = static_cast<std::size_t>(i * cols + j);
        CHECK(rB[at] == rA[at - 1] + 2 * rA[at] + 3 * rA[at + 1]);
      }
  }
}
