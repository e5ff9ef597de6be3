// Running small SDFGs on the cpu backend (code generation, compiler, dlopen) from the
// transformation tests, for SDFGs the reference interpreter does not cover (loops, nested
// SDFGs). The program cache lives in a directory under the build tree.
#pragma once

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "corpus.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/sdfg/sdfg.h"

namespace weir::test {

/// Final contents of the non-transient arrays, as doubles.
using CpuOutputs = std::map<std::string, std::vector<double>>;

/// Points WEIR_CACHE_DIR at a cache directory under the build tree (once per process). It is
/// shared by test processes running in parallel and never wiped here: the program cache locks
/// its entries, and its keys are hashes of the generated code.
inline void use_scratch_cache() {
  static bool done = false;
  if (done) return;
  auto dir = std::filesystem::path(WEIR_BINARY_DIR) / "test-scratch" / "transforms-cpu-cache";
  std::filesystem::create_directories(dir);
  ::setenv("WEIR_CACHE_DIR", dir.c_str(), 1);
  done = true;
}

/// The cpu backend's configuration with its optimization flag (-O3) replaced by `opt`, e.g.
/// "-O1" for wide fuzz runs, where compiling dominates; the default one when `opt` is empty.
inline runtime::CompiledBackendConfig cpu_config(const std::string& opt) {
  runtime::CompiledBackendConfig config;
  if (!opt.empty())
    for (std::string& f : config.flags)
      if (f.rfind("-O", 0) == 0) f = opt;
  return config;
}

/// Compiles `sdfg` (with `config`, by default the cpu backend's) and runs it once with `args`;
/// returns the arrays of `args` afterwards.
inline CpuOutputs run_arguments_on_cpu(const SDFG& sdfg, runtime::Arguments& args,
                                       const runtime::CompiledBackendConfig& config = {}) {
  use_scratch_cache();
  auto backend = runtime::make_cpu_backend(config);
  runtime::CompilableProgram program{std::shared_ptr<const SDFG>(sdfg.clone_sdfg()), {}, sdfg.name};
  runtime::run(*backend, program, args);
  CpuOutputs out;
  for (const auto& [name, f] : args.arrays) {
    auto& v = out[name];
    for (std::int64_t i = 0; i < f.size(); ++i) v.push_back(f.value_as_double(i));
  }
  return out;
}

/// Compiles `sdfg` and runs it once with every symbol in `symbols` and every non-transient
/// array filled with seeded random values (integers -9..9, so results are exact); scalar
/// arguments take their value from `symbols` when named there, else a random one. Returns the
/// arrays afterwards.
inline CpuOutputs run_on_cpu(const SDFG& sdfg, const std::map<std::string, long long>& symbols,
                             unsigned seed) {
  use_scratch_cache();
  runtime::Arguments args;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-9, 9);
  for (const auto& [name, d] : sdfg.arrays) {
    if (d.transient) continue;
    if (d.kind == DataKind::Scalar) {
      auto given = symbols.find(name);  // e.g. a TSTEPS scalar
      if (given != symbols.end())
        args.values[name] = static_cast<std::int64_t>(given->second);
      else
        args.values[name] = static_cast<double>(dist(rng));
      continue;
    }
    std::vector<std::int64_t> shape;
    for (const auto& e : d.shape) shape.push_back(e.evaluate(symbols));
    runtime::Field f = runtime::Allocator::cpu().allocate(d.dtype.base, shape);
    for (std::int64_t i = 0; i < f.size(); ++i) {
      double v = dist(rng);
      switch (d.dtype.base) {
        case ScalarType::Float64: static_cast<double*>(f.data())[i] = v; break;
        case ScalarType::Float32: static_cast<float*>(f.data())[i] = static_cast<float>(v); break;
        case ScalarType::Int64: static_cast<std::int64_t*>(f.data())[i] = static_cast<std::int64_t>(v); break;
        case ScalarType::Int32: static_cast<std::int32_t*>(f.data())[i] = static_cast<std::int32_t>(v); break;
        default: FAIL("run_on_cpu: unsupported dtype of '" << name << "'");
      }
    }
    args.arrays.emplace(name, std::move(f));
  }
  for (const auto& [k, v] : symbols)
    if (!sdfg.arrays.count(k)) args.values[k] = static_cast<std::int64_t>(v);
  return run_arguments_on_cpu(sdfg, args);
}

}  // namespace weir::test
