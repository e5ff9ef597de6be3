#include "weir/runtime/gpu_backend.h"

#include <nlohmann/json.hpp>

#include "cached_build.h"
#include "expand_for_codegen.h"
#include "sha256.h"
#include "weir/codegen/program_abi.h"
#include "weir/codegen/source_locations.h"
#include "weir/codegen/validate_code.h"
#include "weir/runtime/cuda_device.h"
#include "weir/runtime/errors.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/pipeline.h"

namespace weir::runtime {
namespace fs = std::filesystem;

namespace {

bool gpu_storage(StorageType s) {
  return s == StorageType::GPU_Global || s == StorageType::GPU_Shared || s == StorageType::CPU_Pinned;
}

bool gpu_schedule(ScheduleType s) {
  return s == ScheduleType::GPU_Device || s == ScheduleType::GPU_Default ||
         s == ScheduleType::GPU_ThreadBlock || s == ScheduleType::GPU_ThreadBlock_Dynamic ||
         s == ScheduleType::GPU_Persistent;
}

bool has_gpu_placement(const SDFG& sdfg) {
  for (const auto& [name, d] : sdfg.arrays)
    if (gpu_storage(d.storage)) return true;
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* n : st->nodes())
      if (const auto* me = n->as<MapEntry>(); me && gpu_schedule(me->map->schedule)) return true;
  return false;
}

}  // namespace

std::shared_ptr<const SDFG> gpu_placed_sdfg(const std::shared_ptr<const SDFG>& sdfg) {
  if (has_gpu_placement(*sdfg)) return sdfg;
  std::shared_ptr<SDFG> g = sdfg->clone_sdfg();
  transforms::parse_pipeline("gpu-transform{host_arguments=true},gpu-schedules")->run(*g);
  validate_or_throw(*g);
  return g;
}

codegen::GeneratedCode generate_gpu_program(const CompilableProgram& program,
                                            std::shared_ptr<const SDFG>* placed,
                                            std::vector<std::string>* locations) {
  if (!program.sdfg) throw BackendError("compile: the program has no SDFG");
  try {
    codegen::validate_for_codegen_or_throw(*program.sdfg);
  } catch (const InvalidSDFGError& e) {
    throw BackendError(
        (program.origin.empty() ? "" : program.origin + ": ") +
        "cannot compile an invalid SDFG (`weir validate` lists the same problems): " + e.what());
  }
  std::shared_ptr<const SDFG> g = gpu_placed_sdfg(program.sdfg);
  if (placed) *placed = g;
  std::shared_ptr<const SDFG> expanded = detail::expanded_for_codegen(g);
  if (locations) return codegen::generate_cuda_with_location_table(*expanded, program.options, *locations);
  return codegen::generate_cuda(*expanded, program.options);
}

std::unique_ptr<CompiledBackend> make_gpu_backend(const GpuBackendConfig& config) {
  check_gpu_arch(config.nvcc.gpu_arch);
  CompilerStep compiler = [settings = config.nvcc, cache_dir = config.cache_dir](
                              const CompilableProgram& program) -> CompilationArtifact {
    std::shared_ptr<const SDFG> placed;
    std::vector<std::string> locations;  // the same code at any path and line (ADR 0061)
    codegen::GeneratedCode code = generate_gpu_program(program, &placed, &locations);
    std::string name = code.program_name.empty() ? program.sdfg->name : code.program_name;
    if (!code.link_libraries.empty())
      throw BackendError((program.origin.empty() ? "SDFG '" + name + "'" : program.origin) +
                         ": the gpu backend does not link host libraries (" + code.link_libraries.front() +
                         ") yet");
    detail::CachedBuild b;
    b.key = gpu_program_fingerprint(code.source, settings);
    b.source = std::move(code.source);
    b.description = nlohmann::json{{"program", name},
                                   {"origin", program.origin},
                                   {"compiler", "nvcc"},
                                   {"gpu_arch", settings.gpu_arch},
                                   {"flags", settings.all_flags()}}
                        .dump();
    b.compile = [&](const fs::path& src, const fs::path& lib) {
      compile_cuda_library(settings, src, lib, name);
    };
    b.cache_dir = cache_dir;
    CompilationArtifact a = detail::build_cached(b, Signature::from_sdfg(*placed));
    a.locations = std::move(locations);
    return a;
  };
  LoaderStep loader = [](const CompilationArtifact& a) {
    require_cuda_device();
    return CompiledBackend::default_loader()(a);
  };
  return std::make_unique<CompiledBackend>("gpu", Allocator(DeviceType::CPU, kDefaultAlignment),
                                           std::move(compiler), std::move(loader));
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
