// What the generated C++ of npbench's SDFGs does per point and per call, where it decides the
// speed (issue 18, docs/benchmarks.md "npbench kernels"): checks compiled away or done once,
// no fork/join or allocation per tiny loop.
#include <catch2/catch.hpp>

#include <string>

#include "corpus.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/sdfg/serialize.h"
#include "weir/transforms/auto_optimize.h"

using namespace weir;

namespace {

std::string source_of(const std::string& kernel, const std::string& stage, bool weir_optimized) {
  auto sdfg = load_sdfg((test::npbench_corpus_dir() / kernel / (kernel + "." + stage + ".sdfg")).string());
  if (weir_optimized) transforms::auto_optimize(*sdfg, DeviceType::CPU);
  return codegen::generate_cpu(*sdfg).source;
}

/// The body of the generated function `name` (from its definition to the next one; a nested
/// SDFG's small state is `static inline __attribute__((always_inline)) void`).
std::string function_text(const std::string& src, const std::string& name) {
  auto at = src.find("void " + name + "(");
  REQUIRE(at != std::string::npos);
  at = src.rfind("\nstatic ", at);
  REQUIRE(at != std::string::npos);
  auto end = src.find("\nstatic ", at + 1);
  return src.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

TEST_CASE("npbench codegen: mandelbrot1's per-point nested SDFG checks its bounds with two compares",
          "[npbench][codegen]") {
  // The state runs maxiter times at every point; its checks were a quarter of the run time when
  // they built their reports first, and a thread-local cache of the sizes cost more than the two
  // compares it saved (a __tls_get_addr per execution: 2.1 -> 1.9 ms without it).
  std::string src = source_of("mandelbrot1", "auto_optimized_cpu", false);
  std::string body = function_text(src, "weir_nested_nested_call_36_state_0_block");
  // One-element transients indexed by constants: nothing to check.
  CHECK(body.find("weir_dim(0, 0, 0, 1,") == std::string::npos);
  // What is left: the compares first, the report only when one fails; no cache.
  CHECK(body.find("if (!(weir_in(0, 0, 0, YN) && weir_in(0, 0, 0, XN)) && !weir_bounds_ok(") !=
        std::string::npos);
  CHECK(body.find("thread_local") == std::string::npos);
}

TEST_CASE("npbench codegen: spmv's per-row slices after weir's pipeline are not allocated per row",
          "[npbench][codegen]") {
  // state-fusion puts the row's gathered x values (sized by the row's start and stop) into one
  // state; a heap allocation per row made weir's optimized spmv 2x slower than the file as is.
  std::string src = source_of("spmv", "frontend", true);
  CHECK(src.find("weir_local_buffer<double> __tmp0__buf(") != std::string::npos);
  CHECK(src.find("weir_buffer<double> __tmp0__buf(") == std::string::npos);
}

TEST_CASE("npbench codegen: a pure MatMul runs two rows at a time with a unit-stride inner loop",
          "[npbench][codegen]") {
  // gemm as DaCe's frontend writes it (MatMul without an implementation: weir's loops, as DaCe's
  // pure expansion): the dot product per element read B by columns and summed serially, 7x
  // slower than NumPy. The k loop outside the j loop adds the same products in the same order;
  // two rows per iteration and four k per pass load each row of B once for eight products
  // (0.11 -> 0.07 ms at 100x110x120 on one thread; OpenBLAS 0.05).
  std::string src = source_of("gemm", "simplified", false);
  auto at = src.find("as loops");
  REQUIRE(at != std::string::npos);
  std::string nest = src.substr(at, 6000);
  CHECK(nest.find("for (int64_t __pair = 0; __pair < ((NI) + 1) / 2; ++__pair) {") != std::string::npos);
  CHECK(nest.find("weir_local_buffer<double> __acc_buf(2 * (NJ),") != std::string::npos);
  auto k = nest.find("for (; __bk0 + 4 <= NK; __bk0 += 4) {");
  auto j = nest.find("for (int64_t __bj0 = 0; __bj0 < NJ; ++__bj0) {", k);
  REQUIRE(k != std::string::npos);
  REQUIRE(j != std::string::npos);
  // Sums in k order, left to right: bit-identical to the row-by-row loop.
  auto sum =
      nest.find("__acc[__bj0] = ((((__acc[__bj0] + static_cast<double>(alpha_times_A[__bi0*NK + __bk0])", j);
  CHECK(sum != std::string::npos);
  CHECK(nest.find(
            "__acc_1[__bj0] = ((((__acc_1[__bj0] + static_cast<double>(alpha_times_A[__bi0_1*NK + __bk0])",
            j) != std::string::npos);
  // The k remainder and an odd last row.
  CHECK(nest.find("for (; __bk0 < NK; ++__bk0) {", j) != std::string::npos);
  CHECK(nest.find("} else {", j) != std::string::npos);
}

TEST_CASE(
    "npbench codegen: a pure matrix @ vector runs eight rows at a time along k, vector @ matrix in blocks",
    "[npbench][codegen]") {
  // atax as DaCe's simplify leaves it: `A @ x` reads A's rows along k (unit stride), so eight
  // rows' sums advance together over k, each in k order (bit-identical to the dot product);
  // the blocked form read A with a stride of a row (1.75x slower, one thread). `(A @ x) @ A`
  // reads A along its output and keeps the blocks.
  std::string src = source_of("atax", "simplified", false);
  auto at = src.find("as loops");
  REQUIRE(at != std::string::npos);
  std::string first = src.substr(at, 4000);
  CHECK(first.find("for (int64_t __grp = 0; __grp < ((M) + 7) / 8; ++__grp) {") != std::string::npos);
  CHECK(first.find("__acc_7 += static_cast<double>(A[__bi0_7*N + __bk0]) * static_cast<double>(x[__bk0]);") !=
        std::string::npos);
  CHECK(first.find("A_matmul_x[__bi0_7] = __acc_7;") != std::string::npos);
  auto second = src.find("as loops", at + 10);
  REQUIRE(second != std::string::npos);
  CHECK(src.find("for (int64_t __blk = 0; __blk < N; __blk += 256) {", second) != std::string::npos);
}

TEST_CASE("npbench codegen: deriche's recurrence state is inlined into its loop and checks by compares",
          "[npbench][codegen]") {
  // DaCe's auto_optimize runs each column's recurrence over j in a nested SDFG per column: a call
  // per j that spilled its one-element transients and built its checks' descriptors in memory
  // made it 5x slower than DaCe's simplified stage (ADR 0030).
  std::string src = source_of("deriche", "auto_optimized_cpu", false);
  std::string body = function_text(src, "weir_nested_nested_BinOp_29_state_0_block");
  CHECK(body.rfind(
            "\nstatic inline __attribute__((always_inline)) void weir_nested_nested_BinOp_29_state_0_block(",
            0) == 0);
  auto test = body.find("if (!(weir_in(0, 0, 0, W) && weir_in(j, j, 0, H)) && !weir_bounds_ok(");
  CHECK(test != std::string::npos);
  // Top-level states stay functions.
  CHECK(src.find("\nstatic void weir_state_1_BinOp_29(") != std::string::npos);
}

TEST_CASE("npbench codegen: inlined nested states split into units are ordinary hidden functions",
          "[npbench][codegen][units]") {
  // A unit of its own cannot be inlined into its caller in another unit: generation stopped
  // with "does not start with 'static void ...'" (fvdiff's programs 0..28 of seed 1 together).
  auto sdfg =
      load_sdfg((test::npbench_corpus_dir() / "deriche" / "deriche.auto_optimized_cpu.sdfg").string());
  codegen::CodegenOptions o;
  o.unit_bytes = 1;
  auto split = codegen::generate_cpu(*sdfg, o);
  REQUIRE(split.units.size() > 2);
  std::string all;
  for (const auto& u : split.units) all += u;
  CHECK(all.find("[[gnu::visibility(\"hidden\")]] void weir_nested_nested_BinOp_29_state_0_block(") !=
        std::string::npos);
  CHECK(all.find("always_inline)) void weir_nested") == std::string::npos);
}
