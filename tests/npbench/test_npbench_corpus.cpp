// Every file of ../shared/corpus/npbench (15 kernels x 3 stages as DaCe 2.0 writes them) runs
// on the cpu backend without being handed its return values and matches NumPy's expected/ at
// the tolerance of the kernel's meta.json. NPBENCH_GAP marks a case weir does not run yet
// (Catch's [!mayfail]: reported, not counted); `weir_npbench_tests "[npbench-table]"` prints
// the pass table of every case, `"[npbench-table-optimized]"` the same after weir's own
// auto-optimize pipeline.
#include <catch2/catch.hpp>
#include <iomanip>
#include <iostream>
#include <set>

#include "npbench_case.h"

using weir::test::run_npbench_case;

namespace {
void expect_match(const char* kernel, const char* stage, bool weir_optimized, weir::DeviceType device) {
  auto r = run_npbench_case(kernel, stage, weir_optimized, device);
  INFO(r.detail);
  CHECK(r.ok);
}
}  // namespace

// Each case three ways: as DaCe wrote it, after `weir optimize --auto cpu`, and after
// `--auto gpu` with the kernels run as host loops by the cpu backend. Every pass must keep the
// SDFG valid and runnable, so the optimized results must match NumPy too.
#define NPBENCH_VARIANTS(kernel, stage, tags)                                                             \
  TEST_CASE("npbench: " kernel " " stage " runs on cpu and matches NumPy", "[npbench][cpu]" tags) {       \
    expect_match(kernel, stage, false, weir::DeviceType::CPU);                                            \
  }                                                                                                       \
  TEST_CASE("npbench: " kernel " " stage " after weir's auto-optimize for cpu matches NumPy",             \
            "[npbench][cpu][optimized]" tags) {                                                           \
    expect_match(kernel, stage, true, weir::DeviceType::CPU);                                             \
  }                                                                                                       \
  TEST_CASE("npbench: " kernel " " stage " after weir's auto-optimize for gpu matches NumPy on the host", \
            "[npbench][gpu-as-cpu][optimized]" tags) {                                                    \
    expect_match(kernel, stage, true, weir::DeviceType::GPU);                                             \
  }
#define NPBENCH_CASE(kernel, stage) NPBENCH_VARIANTS(kernel, stage, "")
#define NPBENCH_GAP(kernel, stage) NPBENCH_VARIANTS(kernel, stage, "[!mayfail]")

#include "npbench_cases.inc"

// Kernels whose SDFG has library nodes (MatMul, Reduce) at the top level: after `--auto gpu`
// they run in one-point kernels (gpu-transform), never as host code on device data; the gpu
// backend's CUDA, compiled as host C++ by the emulation harness (arguments in GPU_Global
// memory, copied in and out by weir_run_host), matches NumPy.
#define NPBENCH_EMULATED(kernel) NPBENCH_EMULATED_TAGGED(kernel, "")
#define NPBENCH_EMULATED_TAGGED(kernel, tags)                                                                \
  TEST_CASE("npbench: " kernel " simplified after --auto gpu, its CUDA emulated on the host, matches NumPy", \
            "[npbench][gpu][emulation]" tags) {                                                              \
    auto r = run_npbench_case(kernel, "simplified", true, weir::DeviceType::GPU, true);                      \
    INFO(r.detail);                                                                                          \
    CHECK(r.ok);                                                                                             \
  }
NPBENCH_EMULATED("atax")
NPBENCH_EMULATED("gemm")
NPBENCH_EMULATED("correlation")
// azimint_hist's histograms: int64 sums with write-conflict resolution in a nested SDFG in a
// kernel, through the compare-and-swap update (issue 12; test_cuda_wcr.cpp has every WCR kind).
NPBENCH_EMULATED("azimint_hist")
NPBENCH_EMULATED("conv2d")

namespace {
void pass_table(bool weir_optimized, weir::DeviceType device = weir::DeviceType::CPU) {
  const auto& stages = weir::test::npbench_stages();
  std::ostringstream table, details;
  table << std::left << std::setw(16) << "kernel";
  for (const auto& s : stages) table << " " << std::setw(20) << s;
  table << "\n";
  int pass = 0, total = 0;
  for (const auto& k : weir::test::npbench_kernels()) {
    table << std::setw(16) << k;
    for (const auto& s : stages) {
      auto r = run_npbench_case(k, s, weir_optimized, device);
      ++total;
      pass += r.ok;
      table << " " << std::setw(20) << (r.ok ? "pass" : "FAIL");
      if (!r.ok) details << k << " " << s << ": " << r.detail.substr(0, 400) << "\n";
    }
    table << "\n";
  }
  std::cout << (!weir_optimized ? "as DaCe wrote them:\n"
                : device == weir::DeviceType::CPU
                    ? "after weir's auto-optimize (cpu):\n"
                    : "after weir's auto-optimize (gpu), kernels run on the host:\n")
            << table.str() << pass << " of " << total << " pass\n\n"
            << details.str() << std::flush;
  CHECK(pass == total);
}
}  // namespace

TEST_CASE("npbench: pass table of every kernel and stage", "[.][npbench-table]") { pass_table(false); }

TEST_CASE("npbench: pass table after weir's auto-optimize", "[.][npbench-table-optimized]") {
  pass_table(true);
}

TEST_CASE("npbench: pass table after weir's auto-optimize for the GPU", "[.][npbench-table-gpu]") {
  pass_table(true, weir::DeviceType::GPU);
}
