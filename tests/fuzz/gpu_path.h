// The GPU path of the fuzz targets (issue 33, docs/adr/0033): every program a target accepts is
// also placed on the GPU and generated as CUDA (runtime::generate_gpu_program, what nvcc would be
// given), and, while the process's compile budget lasts, that source is compiled as host C++
// with the CUDA emulation (tests/support/cuda_emulation_compiler.h), run, and compared with the
// cpu backend's run of the same program on the same inputs. A CUDA source the host compiler
// refuses where the cpu backend's C++ of the same program compiled (nvcc's "qualifiers dropped
// in binding reference of type double& to initializer of type const double" is such an error
// for g++ and clang++ as well), a CUDA run that fails where the cpu run succeeded, and outputs
// that differ are findings; an error both runs give, or one the cpu run gives, is an answer.
//
// Compiling is the cost (about a second per program and backend at -O0), so the compiles are
// capped by WEIR_FUZZ_CUDA_COMPILES (programs per process, cuda_budget(); unset: no cap;
// scripts/fuzz.sh sets it for FUZZ_RUNS=ci). Beyond it the CUDA source is still generated for
// every program. Under ASan the generated code of both backends is compiled with clang++-14
// -fsanitize=address (generated_code.h), so its out-of-bounds accesses are reported too.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuda_emulation_compiler.h"
#include "fuzz_support.h"
#include "generated_code.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/arguments.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/gpu_backend.h"
#include "weir/runtime/signature.h"

namespace weir::fuzz {

/// The CUDA emulation backend of the fuzz targets (generated_code_settings, the process's cache).
inline runtime::Backend& fuzz_cuda_backend() {
  static std::unique_ptr<runtime::Backend> b = std::make_unique<runtime::CompiledBackend>(
      "cuda-emulation", runtime::Allocator::cpu(),
      test::cuda_emulation_compiler(process_cache_dir() / "cuda-emulation", generated_code_settings()));
  return *b;
}

/// The process's budget of programs compiled for both backends (WEIR_FUZZ_CUDA_COMPILES).
inline CompileBudget& cuda_budget() {
  static CompileBudget b("WEIR_FUZZ_CUDA_COMPILES");
  return b;
}

/// Arguments for `sig` on which any program of the fuzz targets runs in well under a second:
/// every symbol `extent`, every array of its shape with its symbols `extent` (at most 4,096
/// elements), filled with a fixed pattern (floats in [-0.5, 1]; integers 0 .. extent - 1, so
/// that connectivity tables name neighbours that exist; bools alternating), scalars 0.75, 2 or
/// true. nullopt when a parameter has no shape, a shape that does not evaluate or is too large,
/// or a dtype the pattern does not cover.
inline std::optional<runtime::Arguments> fuzz_arguments(const runtime::Signature& sig, long long extent) {
  runtime::Arguments args;
  for (const runtime::Parameter& p : sig.params) {
    const bool is_float = p.dtype == ScalarType::Float64 || p.dtype == ScalarType::Float32;
    const bool is_int = p.dtype == ScalarType::Int32 || p.dtype == ScalarType::Int64;
    if (p.kind == runtime::Parameter::Kind::Symbol) {
      args.values[p.name] = static_cast<std::int64_t>(extent);
      continue;
    }
    if (!is_float && !is_int && p.dtype != ScalarType::Bool) return std::nullopt;
    if (p.kind == runtime::Parameter::Kind::Scalar) {
      args.values[p.name] = is_float ? runtime::Number(0.75)
                            : is_int ? runtime::Number(std::int64_t{2})
                                     : true;
      continue;
    }
    if (!p.has_shape) return std::nullopt;
    std::vector<std::int64_t> shape;
    long long elements = 1;
    for (const sym::Expr& e : p.shape) {
      std::map<std::string, long long> values;
      for (const std::string& s : e.free_symbols()) values[s] = extent;
      std::optional<long long> n = e.try_evaluate(values);
      if (!n || *n < 0 || *n > 4096) return std::nullopt;
      elements *= *n;
      if (elements > 4096) return std::nullopt;
      shape.push_back(*n);
    }
    runtime::Field f = runtime::Allocator::cpu().allocate(p.dtype, shape);
    for (std::int64_t k = 0; k < f.size(); ++k) {
      switch (p.dtype) {
        case ScalarType::Float64:
          static_cast<double*>(f.data())[k] = 0.25 * static_cast<double>(k % 7) - 0.5;
          break;
        case ScalarType::Float32:
          static_cast<float*>(f.data())[k] = 0.25F * static_cast<float>(k % 7) - 0.5F;
          break;
        case ScalarType::Int32:
          static_cast<std::int32_t*>(f.data())[k] = static_cast<std::int32_t>(k % extent);
          break;
        case ScalarType::Int64: static_cast<std::int64_t*>(f.data())[k] = k % extent; break;
        default: static_cast<bool*>(f.data())[k] = k % 2 == 0; break;
      }
    }
    args.arrays.emplace(p.name, std::move(f));
  }
  return args;
}

/// Whether `a` and `b` (elements of one output of the two runs) agree: equal, both NaN, or
/// within 1e-9 relative (the two programs may sum in other orders).
inline bool same_value(double a, double b) {
  if (a == b || (std::isnan(a) && std::isnan(b))) return true;
  return std::fabs(a - b) <= 1e-9 * std::fmax(std::fabs(a), std::fabs(b));
}

/// With WEIR_FUZZ_VERBOSE=1, prints what the GPU path did with a program (to see what a seed
/// corpus exercises).
inline void note(const std::string& line) {
  if (const char* v = std::getenv("WEIR_FUZZ_VERBOSE"); v && *v == '1')
    std::fprintf(stderr, "fuzz: gpu path: %s\n", line.c_str());
}

/// Runs a program on the cpu backend and on the CUDA emulation (`run(backend, args)` runs it),
/// each on fuzz_arguments(sig, extent), and requires what the header comment says. `what` names
/// the program in findings.
template <class Run>
void run_cpu_and_cuda(const Run& run, const runtime::Signature& sig, long long extent,
                      const std::string& what) {
  std::optional<runtime::Arguments> cpu = fuzz_arguments(sig, extent), gpu = fuzz_arguments(sig, extent);
  if (!cpu || !gpu) return;
  try {
    run(fuzz_cpu_backend(), *cpu);
  } catch (const runtime::CompileError& e) {
    // A program the environment cannot build (a library missing): nothing to compare.
    note(what + ": the cpu backend cannot build it: " + std::string(e.what()).substr(0, 200));
    return;
  } catch (const Error& e) {
    note(what + ": the cpu backend refused it: " + std::string(e.what()).substr(0, 200));
    // An answer of the cpu backend; the CUDA source must still compile.
    try {
      run(fuzz_cuda_backend(), *gpu);
    } catch (const runtime::CompileError& c) {
      require(false, "the CUDA source of " + what + " does not compile as host C++: " + c.what());
    } catch (const Error&) {
    }
    return;
  }
  try {
    run(fuzz_cuda_backend(), *gpu);
  } catch (const runtime::CompileError& e) {
    require(false, "the CUDA source of " + what + " does not compile as host C++: " + e.what());
  } catch (const Error& e) {
    require(false, what + " runs on the cpu backend but fails in the CUDA emulation: " + e.what());
  }
  std::size_t compared = 0;
  for (const runtime::Parameter& p : sig.params) {
    if (!p.written || !cpu->arrays.count(p.name)) continue;
    ++compared;
    const runtime::Field &c = cpu->arrays.at(p.name), &g = gpu->arrays.at(p.name);
    for (std::int64_t k = 0; k < c.size(); ++k)
      require(same_value(c.value_as_double(k), g.value_as_double(k)),
              what + ": element " + std::to_string(k) + " of '" + p.name + "' is " +
                  std::to_string(c.value_as_double(k)) + " on the cpu backend but " +
                  std::to_string(g.value_as_double(k)) + " in the CUDA emulation");
  }
  note(what + ": " + std::to_string(compared) + " outputs equal on the cpu backend and the CUDA emulation");
}

}  // namespace weir::fuzz
