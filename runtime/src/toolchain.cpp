#include "toolchain.h"

#include "canonical_sources.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/orchestration.h"
#include "weir/runtime/errors.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/auto_optimize.h"

namespace weir::runtime::detail {

CompilationArtifact Toolchain::compile(const CompilableProgram& program) const {
  if (!backend_.compiler) throw BackendError("backend '" + backend_.name() + "' has no compiler step");
  return backend_.compiler(program);
}

std::shared_ptr<CompiledProgram> Toolchain::build(const CompilableProgram& program,
                                                  CompilationArtifact* used) const {
  if (!backend_.loader) throw BackendError("backend '" + backend_.name() + "' has no loader step");
  CompilationArtifact a = compile(program);
  std::string why;
  try {
    auto p = backend_.loader(a);
    if (used) *used = std::move(a);
    return p;
  } catch (const LoadError& e) {
    if (!a.cache_hit || !a.evict) throw;
    why = e.what();
    a.evict();  // a corrupt cache entry that passed the manifest check
  }
  CompilationArtifact again = compile(program);
  auto p = backend_.loader(again);
  if (again.cache_problem.empty())
    again.cache_problem =
        "the cached library " + a.library.string() + " was not used: it failed to load (" + why + ")";
  if (used) *used = std::move(again);
  return p;
}

std::shared_ptr<CompiledProgram> Toolchain::build(const FieldViewProgram& program) const {
  return build(lower(program, target_device(backend_)));
}

DeviceType Toolchain::target_device(const CompiledBackend& backend) {
  return backend.name() == "gpu" ? DeviceType::GPU : backend.allocator().device();
}

void Toolchain::optimize(SDFG& sdfg, DeviceType device) {
  // auto_optimize: nested SDFGs inlined (an orchestration function's calls, ADR 0019), simplify,
  // fusion across calls, schedules and SIMD hints for the device.
  if (device != DeviceType::GPU) return transforms::auto_optimize(sdfg, device);
  // The gpu backend's arguments are host Fields: the program copies them to the device and back.
  auto pipe = transforms::make_auto_optimize_pipeline(device);
  for (auto& pass : pipe->passes())
    if (pass->name() == "gpu-transform") pass->options().set("host_arguments", true);
  pipe->run(sdfg);
}

CompilableProgram Toolchain::lower(const FieldViewProgram& program, DeviceType device,
                                   const std::map<std::string, std::int64_t>& max_neighbors, bool optimized) {
  if (!program.definition && !program.orchestration)
    throw BackendError("an empty FieldViewProgram cannot be lowered");
  frontend::LoweringOptions lowering;
  lowering.max_neighbors = max_neighbors;
  std::shared_ptr<SDFG> sdfg = program.orchestration
                                   ? frontend::lower_orchestration(*program.orchestration, lowering)
                                   : frontend::lower_to_sdfg(*program.definition, lowering);
  canonicalize_source_files(*sdfg);  // one cache entry however the program's path was spelt
  validate_or_throw(*sdfg);
  if (optimized) {
    optimize(*sdfg, device);
    validate_or_throw(*sdfg);
  }
  CompilableProgram p;
  p.sdfg = std::move(sdfg);
  p.options = program.options;
  p.origin = program.origin;
  return p;
}

}  // namespace weir::runtime::detail
