// The differential driver: runs batches of generated programs on weir's embedded backend, on
// the cpu backend after lowering (no optimization), after auto_optimize and after auto_optimize
// for the GPU,
// and compares every output with the NumPy meaning the generator wrote (run by Debian's
// /usr/bin/python3). Programs gt4py leaves undefined run alone and must be refused by all three.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "fv_program.h"
#include "program_generator.h"
#include "weir/runtime/arguments.h"
#include "weir/runtime/field_view_program.h"

namespace weir::fvdiff {

/// One disagreement, minimal: the program alone (after re-running it by itself).
struct Finding {
  std::uint64_t seed = 0, number = 0;
  std::string variant;  ///< "embedded", "cpu-lowered", "cpu" (auto-optimized), or "frontend"/"numpy"
  std::string what;     ///< the first wrong value, or the error, or the missing refusal
  std::string source;   ///< the program alone as gt4py source
  std::string numpy;    ///< its NumPy meaning
  std::string str() const;
};

/// The implementations compared: "embedded", "cpu-lowered" (the lowered SDFG compiled as it
/// is), "cpu" (lowered and auto-optimized, as runtime::run does), "cpu-gpu" (lowered,
/// auto-optimized for the GPU and validated, its kernels run as host loops by the cpu backend),
/// "cuda-emulation" (placed on the GPU, CUDA code generated and compiled as host C++ with the
/// emulation runtime, tests/support/cuda_emulation.h).
const std::vector<std::string>& variants();

/// Runs `fv` on `variant` with `args` (updated in place); the error message, or "" when it ran.
/// `opt` replaces the cpu backend's optimization flag (-O3) for the cpu variants, e.g. "-O1";
/// empty: the backend's default.
std::string run_variant(const std::string& variant, const runtime::FieldViewProgram& fv,
                        runtime::Arguments& args, const std::string& opt = "");

/// Whether program `number` of a run is unstructured (every fourth) or Cartesian.
bool is_unstructured(std::uint64_t number);

struct DriverOptions {
  GeneratorOptions generator;
  std::uint64_t seed = 1;
  std::uint64_t first = 0;    ///< number of the first program
  std::uint64_t count = 200;  ///< programs to run
  std::size_t batch = 40;     ///< programs per module (one compile per backend)
  std::filesystem::path dir;  ///< scratch directory (inputs, sources, references, cpu cache)
  /// Optimization flag of the cpu variants' generated C++ ("" = the backend's -O3); wide runs
  /// may take "-O1" (WEIR_FVFUZZ_OPT), which compiles in about half the time.
  std::string opt;
};

struct RunSummary {
  std::uint64_t programs = 0, refused = 0, batches = 0, compiled_modules = 0;
  double seconds = 0;
  std::vector<Finding> findings;
};

/// Generates programs first .. first+count-1 of `seed` and runs them; never throws for what a
/// backend does (that is a finding).
RunSummary run_fuzz(const DriverOptions& options);

/// Runs the given programs as one module on every variant and compares; with `isolate`, a
/// batch that fails is re-run program by program so that each finding names one program.
std::vector<Finding> run_programs(const std::vector<const SubProgram*>& programs,
                                  const std::filesystem::path& dir, bool isolate,
                                  RunSummary* summary = nullptr, const std::string& opt = "");

}  // namespace weir::fvdiff
