// The SDFG-level differential driver: runs a random batch (random_sdfg.h) on the cpu backend
// (code generation, compiler, dlopen) and on the reference interpreter
// (tests/transforms/support/interpreter.h) with the same random inputs and compares every
// non-transient container exactly (inputs are small integers, so every result is exact); then
// applies a seeded chain of random registered transformations (biased towards MapFusion, so that
// chains of fusions on fan-out graphs happen) and compares both executors again against the
// original reference. A disagreement is shrunk to the part it belongs to (the container prefix
// says which), whose SDFG is written as JSON for replay.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "random_sdfg.h"
#include "weir/sdfg/sdfg.h"

namespace weir::test::sdfgdiff {

using Values = std::map<std::string, std::vector<double>>;

/// Seeded small integers (-9..9) for every non-transient container (views excepted).
Values random_inputs(const SDFG& sdfg, const std::map<std::string, long long>& symbols, unsigned seed);
/// The final non-transient containers after the reference interpreter ran on `inputs`.
Values run_reference(const SDFG& sdfg, const std::map<std::string, long long>& symbols, const Values& inputs);
/// The same on the cpu backend (float64 containers only). Containers missing from `inputs` start as zeros
/// (both). `opt` replaces the backend's optimization flag (-O3), e.g. "-O1"; empty: the default.
Values run_cpu(const SDFG& sdfg, const std::map<std::string, long long>& symbols, const Values& inputs,
               const std::string& opt = "");
/// The same on the CUDA code generator's program placed on the GPU, compiled as host C++ by the
/// emulation harness (tests/support/cuda_emulation.h).
Values run_cuda_emulation(const SDFG& sdfg, const std::map<std::string, long long>& symbols,
                          const Values& inputs);
/// Elements that differ (exactly; NaN never equals), one line each, at most `limit` lines.
std::vector<std::string> differences(const Values& want, const Values& got, std::size_t limit = 6);

/// Applies `steps` random applicable transformations (seeded), validating after each; the log
/// lists each applied match as replayable JSON. Throws std::runtime_error (with the log so far)
/// when a transformation throws or leaves an invalid SDFG.
std::string random_chain(SDFG& sdfg, unsigned seed, int steps);

struct Finding {
  unsigned seed = 0;
  std::string stage;   // generate, reference, cpu, cuda-emulation, transform, cpu-after, reference-after
  std::string part;    // the shrunk part ("g3: self-copy (...)"), or "whole batch"
  std::string detail;  // differences or the error, and the transformation log
  std::string file;    // the SDFG JSON written for replay
};

struct RunOptions {
  int parts = 8;   // parts per batch
  int steps = 10;  // transformations per chain
  GenOptions gen;
  std::string out_dir;  // where failing SDFGs are written
  /// Optimization flag of the generated C++ ("" = the cpu backend's -O3); wide runs may take
  /// "-O1" (WEIR_SDFGFUZZ_OPT).
  std::string opt;
};

/// Checks batch `seed`; returns what disagreed (empty when all agree).
std::vector<Finding> check_batch(unsigned seed, const RunOptions& opts);

}  // namespace weir::test::sdfgdiff
