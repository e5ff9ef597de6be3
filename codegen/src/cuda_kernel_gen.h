// The CUDA emitter's part of a state's code generation (cuda_kernels.cpp): a GPU_Device map of
// host code as a `__global__` kernel and its launch, and a copy between host and device memory.
// Made by the CUDA emitter (cuda_emitter.cpp) per map and per copy.
#pragma once

#include <cstddef>
#include <vector>

#include "state_codegen.h"

namespace weir::codegen::detail {

/// Kernels and host <-> device copies of the StateGen it works for: generates the kernel's body
/// with that StateGen's walk (its scopes, frames and bindings), with the kernel's bindings
/// undone after it.
class CudaKernelGen {
 public:
  explicit CudaKernelGen(StateGen& g) : g_(g) {}

  /// A GPU_Device map of host code as a `__global__` kernel (into the program's functions) and
  /// its launch (into `w`).
  void emit_kernel(const MapEntry& e, Writer& w);
  /// A host <-> device copy of host code (weir_cuda_copy per contiguous block) from `S` to `D`
  /// over their non-unit dimensions `sd` and `dd`.
  void emit_device_copy(const Location& S, const Location& D, const std::vector<std::size_t>& sd,
                        const std::vector<std::size_t>& dd, Writer& w) const;

 private:
  StateGen& g_;
};

}  // namespace weir::codegen::detail
