// Toolchain (internal): the path from a program to something runnable on a CompiledBackend.
// Today the program is an SDFG, so it is code generation + compilation (the backend's
// `compiler` step) and loading (its `loader` step). Field-view programs will add the
// frontend's parsing, checking and lowering to SDFG in front of the same steps.
#pragma once

#include <memory>

#include "weir/runtime/backend.h"
#include "weir/runtime/loader.h"

namespace weir::runtime::detail {

class Toolchain {
 public:
  explicit Toolchain(const CompiledBackend& backend) : backend_(backend) {}

  /// The backend's compiler step.
  CompilationArtifact compile(const CompilableProgram& program) const;
  /// compile(), then the loader step. A library the cache handed out that fails to load
  /// (unloadable, wrong ABI) is evicted and compiled once more before giving up.
  std::shared_ptr<CompiledProgram> build(const CompilableProgram& program) const;

 private:
  const CompiledBackend& backend_;
};

}  // namespace weir::runtime::detail
