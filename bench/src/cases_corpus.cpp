// 2-D Jacobi-type kernels that exist only as DaCe SDFGs in the corpus (laplace2d, jacobi_2d):
// DaCe's simplified and auto-optimized SDFGs compiled by weir, weir's pipeline on the
// simplified SDFG, and the hand-written sweeps, at N x N with a few time steps.
#include <string>

#include "../hand/hand_kernels.h"
#include "kernel_cases.h"

namespace weir::bench {

namespace {

using runtime::Arguments;
using i64 = std::int64_t;

KernelCase sweep_case(const Sizes& s, const Paths& p, const std::string& kernel, const std::string& symbol,
                      const std::string& description, i64 sweeps, void (*fn)(double*, double*, i64, i64)) {
  KernelCase kc;
  kc.name = kernel;
  const i64 N = s.n2d, T = s.tsteps;
  kc.description = description;
  kc.size = std::to_string(N) + " x " + std::to_string(N) + ", " + std::to_string(sweeps) + " sweeps";
  kc.min_bytes = 8.0 * double(sweeps) * (double(N) * N + double(N - 2) * (N - 2));
  Layout l;
  l.make = [=] {
    Arguments a;
    a.arrays.emplace("A", random_field({N, N}, 41));
    a.arrays.emplace("B", random_field({N, N}, 42));
    a.values["TSTEPS"] = T;
    a.values[symbol] = N;
    return a;
  };
  l.reference = [=](Arguments& a) { fn(f64(a, "A"), f64(a, "B"), N, T); };
  l.outputs = {"A", "B"};
  kc.layouts["dace"] = l;
  kc.variants.push_back(corpus_variant(p, kernel, "simplified", false, "dace"));
  kc.variants.push_back(corpus_variant(p, kernel, "auto_optimized_cpu", false, "dace"));
  kc.variants.push_back(corpus_variant(p, kernel, "simplified", true, "dace"));
  // The same program with the compiler's own SIMD width: what the lanes chosen for its rows
  // (full width, or half over long rows read at shifted offsets) gain in the same run.
  Variant lanes = kc.variants.back();
  lanes.name = "weir-opt(compiler's lanes)";
  lanes.detail += ", the compiler's own SIMD width";
  lanes.tune_source.clear();
  lanes.compiler_lanes = true;
  kc.variants.push_back(lanes);
  kc.variants.push_back(Variant{"hand", "bench/hand/sweeps2d.cpp", "dace", {}, l.reference, {}, {}});
  return kc;
}

}  // namespace

std::vector<KernelCase> corpus_cases(const Sizes& s, const Paths& p) {
  return {sweep_case(s, p, "laplace2d", "NL", "2-D 4-point Jacobi, A -> B -> A per step (corpus)",
                     2 * s.tsteps, hand::laplace2d),
          sweep_case(s, p, "jacobi_2d", "N", "2-D 5-point Jacobi (npbench), steps 1..TSTEPS-1 (corpus)",
                     2 * (s.tsteps - 1), hand::jacobi2d)};
}

}  // namespace weir::bench
