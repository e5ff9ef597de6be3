#include "weir/runtime/gpu_backend.h"

#include "sha256.h"
#include "weir/codegen/program_abi.h"
#include "weir/runtime/errors.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/validate.h"

namespace weir::runtime {

std::unique_ptr<CompiledBackend> make_gpu_backend(const GpuBackendConfig& config) {
  check_gpu_arch(config.nvcc.gpu_arch);
  CompilerStep compiler = [](const CompilableProgram& program) -> CompilationArtifact {
    std::string what = program.origin.empty()
                           ? "SDFG '" + (program.sdfg ? program.sdfg->name : std::string("?")) + "'"
                           : program.origin;
    if (!program.sdfg) throw BackendError("compile: the program has no SDFG");
    try {
      validate_or_throw(*program.sdfg);
    } catch (const InvalidSDFGError& e) {
      throw BackendError(
          what + ": cannot compile an invalid SDFG (`weir validate` lists the same problems): " + e.what());
    }
    throw BackendError(what + ": " + kNoCudaCodegen);
  };
  return std::make_unique<CompiledBackend>("gpu", Allocator(DeviceType::CPU, kDefaultAlignment),
                                           std::move(compiler));
}

std::string gpu_program_fingerprint(const std::string& cuda_source, const NvccSettings& settings) {
  detail::Sha256 h;
  h.field("weir gpu program cache key v1");
  h.field(WEIR_VERSION);
  h.field(codegen::kAbiVersion);
  h.field(nvcc_identity(settings));
  h.field(cuda_source);
  return h.hex();
}

}  // namespace weir::runtime
