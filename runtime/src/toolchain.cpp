#include "toolchain.h"

#include "weir/runtime/errors.h"

namespace weir::runtime::detail {

CompilationArtifact Toolchain::compile(const CompilableProgram& program) const {
  if (!backend_.compiler) throw BackendError("backend '" + backend_.name() + "' has no compiler step");
  return backend_.compiler(program);
}

std::shared_ptr<CompiledProgram> Toolchain::build(const CompilableProgram& program) const {
  if (!backend_.loader) throw BackendError("backend '" + backend_.name() + "' has no loader step");
  CompilationArtifact a = compile(program);
  try {
    return backend_.loader(a);
  } catch (const LoadError&) {
    if (!a.cache_hit || !a.evict) throw;
    a.evict();  // a corrupt cache entry that passed the manifest check
  }
  CompilationArtifact again = compile(program);
  return backend_.loader(again);
}

}  // namespace weir::runtime::detail
