// The kernel benchmarks' cases: for each stencil, the argument layouts it is run with, the
// variants that run it (weir from field-view source, corpus SDFGs compiled by weir, the
// hand-written version) and the minimum bytes it must move.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weir/runtime/arguments.h"
#include "weir/sdfg/sdfg.h"

namespace weir::bench {

/// Problem sizes of one benchmark run.
struct Sizes {
  std::string preset;                         ///< "tiny" or "full"
  std::int64_t ni = 256, nj = 256, nk = 80;   ///< Cartesian domain computed per call
  std::int64_t n2d = 2048;                    ///< laplace2d / jacobi_2d: N x N arrays
  std::int64_t tsteps = 2;                    ///< their time steps (laplace2d: 2 sweeps each)
  std::int64_t mesh_nx = 224, mesh_ny = 224;  ///< periodic mesh: 2 nx ny cells
  std::int64_t mesh_nk = 80;
  /// Elements per array of the reference probe; 0: by STREAM's rule on this machine (probe_size.h)
  std::int64_t stream_n = 0;
  int repeats = 10, warmup = 2;
  static Sizes tiny();
  static Sizes full();
};

/// Arguments of one kernel in one data layout, with the hand-written kernel on that layout
/// (the reference every variant's outputs are compared with).
struct Layout {
  std::function<runtime::Arguments()> make;            ///< fresh, deterministic inputs
  std::function<void(runtime::Arguments&)> reference;  ///< the hand-written kernel
  std::vector<std::string> outputs;                    ///< arrays compared after a call
  /// Arguments (arrays or values) the hand-written kernel needs but a weir program may not
  /// take (connectivity tables, weights, coefficients): dropped for a program whose signature
  /// does not name them.
  std::vector<std::string> optional;
};

/// One way of running a kernel: a weir program (`make_sdfg`, compiled by the CPU backend) or
/// the hand-written code (`hand`).
struct Variant {
  std::string name;    ///< "weir", "dace-simplified", "dace-auto-opt", "weir-opt(dace-simplified)", "hand"
  std::string detail;  ///< where it comes from, e.g. "examples/cartesian/hdiff.py::hdiff_program + simplify"
  std::string layout;  ///< key into KernelCase::layouts
  /// Builds the (optimized) SDFG; may throw (a "not supported yet" lowering error skips the
  /// variant; anything else fails it).
  std::function<std::unique_ptr<SDFG>()> make_sdfg;
  std::function<void(runtime::Arguments&)> hand;
  /// Non-empty: the variant is skipped for this reason before anything runs.
  std::string skip;
  /// What `weir tune` takes for this variant's program, unoptimized: "FILE.py::PROGRAM" or an
  /// SDFG file (absolute paths); "" for variants that are not weir's pipeline on a program
  /// (the tune section, src/tune_bench.cpp, times the tuned script against this variant).
  std::string tune_source;
  /// Compiled without one of the code generator's memory optimizations, to show what it gains
  /// in the same run (the same program): plain stores where weir would stream rows
  /// (CodegenOptions::streaming_stores off), no prefetch of gathered rows (gather_prefetch off),
  /// the compiler's own SIMD width where weir asks for all lanes (full_width_simd off).
  bool plain_stores = false, no_prefetch = false, compiler_lanes = false;
};

struct KernelCase {
  std::string name, description;
  std::string size;          ///< e.g. "256 x 256 x 80"
  double min_bytes = 0;      ///< bytes one call must move at least (inputs read + outputs written once)
  bool memory_bound = true;  ///< whether the bandwidth target applies
  std::map<std::string, Layout> layouts;
  std::vector<Variant> variants;
};

/// Paths the cases read.
struct Paths {
  std::string root;    ///< repository root (examples/)
  std::string corpus;  ///< ../shared/corpus/dace
};

std::vector<KernelCase> cartesian_cases(const Sizes& s, const Paths& p);
std::vector<KernelCase> corpus_cases(const Sizes& s, const Paths& p);
std::vector<KernelCase> unstructured_cases(const Sizes& s, const Paths& p);

// --- helpers shared by the case files -------------------------------------------------------

/// Largest |a - r| over `outputs`, relative to the largest |r| (infinite for a size or NaN
/// mismatch). The hand-written kernels and weir's programs do the same arithmetic, so only
/// reassociation (laplap's fused form) shows: kOutputTolerance bounds it.
double max_rel_error(const runtime::Arguments& got, const runtime::Arguments& ref,
                     const std::vector<std::string>& outputs);
inline constexpr double kOutputTolerance = 1e-10;

/// A float64 field of `shape` filled with deterministic uniform values in [lo, hi) (seeded
/// by `seed`).
runtime::Field random_field(const std::vector<std::int64_t>& shape, std::uint64_t seed, double lo = 0.0,
                            double hi = 1.0);
/// An int32 field of `shape` holding `values` (C order).
runtime::Field int32_field(const std::vector<std::int64_t>& shape, const std::vector<std::int32_t>& values);
/// The float64 data of an array argument; throws if absent or not float64.
double* f64(runtime::Arguments& a, const std::string& name);
/// "examples/cartesian/hdiff.py::hdiff_program + <pipeline>": a variant that loads, lowers and
/// optimizes a field-view program (skipped with a reason when the file does not exist).
/// `without`: "plain stores", "no prefetch" or "compiler's lanes" for the variant "weir(plain
/// stores)", "weir(no prefetch)" or "weir(compiler's lanes)", the same program compiled with
/// CodegenOptions::streaming_stores, gather_prefetch or full_width_simd off (what each gains, in
/// the same run); "" for `weir`.
Variant field_view_variant(const Paths& p, const std::string& rel_file, const std::string& program,
                           const std::string& layout, const std::string& without = "");
/// A variant running a corpus SDFG (`stage` = "simplified", "auto_optimized_cpu"), optionally
/// after weir's optimization pipeline.
Variant corpus_variant(const Paths& p, const std::string& kernel, const std::string& stage,
                       bool weir_optimize, const std::string& layout);

}  // namespace weir::bench
