// Toolchain (internal): the path from a program to something runnable on a CompiledBackend.
// For an SDFG it is code generation + compilation (the backend's `compiler` step) and loading
// (its `loader` step). A field-view program (already parsed and type-checked by the frontend)
// is first lowered to a fresh SDFG and optimized (lower()), then takes the same steps.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <memory>

#include "weir/runtime/backend.h"
#include "weir/runtime/field_view_program.h"
#include "weir/runtime/loader.h"

namespace weir::runtime::detail {

class Toolchain {
 public:
  explicit Toolchain(const CompiledBackend& backend) : backend_(backend) {}

  /// The backend's compiler step.
  CompilationArtifact compile(const CompilableProgram& program) const;
  /// compile(), then the loader step. A library the cache handed out that fails to load
  /// (unloadable, wrong ABI) is evicted and compiled once more before giving up. `*used`, when
  /// given, gets the artifact of the library loaded (after such a rebuild: cache_hit false and
  /// cache_problem saying why).
  std::shared_ptr<CompiledProgram> build(const CompilableProgram& program,
                                         CompilationArtifact* used = nullptr) const;
  /// lower(), then build().
  std::shared_ptr<CompiledProgram> build(const FieldViewProgram& program) const;

  /// The device a backend's programs are optimized for: GPU for the gpu backend (whose
  /// allocator hands out host Fields), else its allocator's device.
  static DeviceType target_device(const CompiledBackend& backend);
  /// Field-view program -> a fresh, validated SDFG after the optimization pipeline for `device`.
  /// `max_neighbors`: neighbours per row of connectivity tables (frontend::LoweringOptions).
  /// `optimized` false: the SDFG as lowered, without the pipeline (`weir tune`'s untuned program).
  static CompilableProgram lower(const FieldViewProgram& program, DeviceType device = DeviceType::CPU,
                                 const std::map<std::string, std::int64_t>& max_neighbors = {},
                                 bool optimized = true);
  /// The optimization pipeline applied to every lowered field-view program before code
  /// generation: transforms::auto_optimize for the backend's device (the single place where
  /// the pipeline is chosen); for the GPU with gpu-transform's host_arguments.
  static void optimize(SDFG& sdfg, DeviceType device);

 private:
  const CompiledBackend& backend_;
};

}  // namespace weir::runtime::detail
