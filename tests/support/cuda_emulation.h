// The host-emulation harness of the CUDA generator (ADR 0020): a CompiledBackend whose compiler
// step is cuda_emulation_compiler (the gpu backend's CUDA source compiled as host C++ against
// codegen/emulation/weir_cuda_emulation.h, warnings as errors). Loaded like the cpu backend's
// programs. Header-only: suites that link weir_runtime include it.
#pragma once

#include <memory>

#include "corpus.h"
#include "cuda_emulation_compiler.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/backend.h"
#include "weir/runtime/cpu_backend.h"

namespace weir::test {

/// The emulation backend ("cuda-emulation"); builds go to shared_cache_dir("cuda-emulation"),
/// one per distinct source.
inline std::unique_ptr<runtime::CompiledBackend> make_cuda_emulation_backend() {
  runtime::CompilerSettings s;
  s.flags = {"-std=c++17", "-O1", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter",
             "-Wno-unused-variable", "-Wno-unused-but-set-variable",
             // What the program's own expressions say as written, which NumPy and gt4py accept
             // (fvdiff programs compare a field with itself, `nz < nz`, and convert a product to
             // bool, `astype(n * m, bool)`): not faults of the generated code.
             "-Wno-tautological-compare", "-Wno-int-in-bool-context"};
  s.openmp = false;
  return std::make_unique<runtime::CompiledBackend>(
      "cuda-emulation", runtime::Allocator::cpu(),
      cuda_emulation_compiler(shared_cache_dir("cuda-emulation"), s));
}

}  // namespace weir::test
