#include "weir/runtime/cpu_backend.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "cached_build.h"
#include "expand_for_codegen.h"
#include "prelude_pch.h"
#include "sha256.h"
#include "weir/codegen/generated_headers.h"
#include "weir/codegen/program_abi.h"
#include "weir/codegen/source_locations.h"
#include "weir/codegen/validate_code.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/program_cache.h"
#include "weir/sdfg/sdfg.h"

namespace weir::runtime {
namespace fs = std::filesystem;

namespace {

// The C++ source of the program and its name. The OpenMP pragmas follow the compiler setting.
// The source locations go to `locations`, so that the same program at another path or line has
// the same source, hence the same cache key (ADR 0061).
codegen::GeneratedCode generate(const CompilableProgram& program, bool openmp,
                                std::vector<std::string>& locations) {
  codegen::CodegenOptions options = program.options;
  if (!openmp) options.openmp = false;
  return codegen::generate_cpu_with_location_table(*detail::expanded_for_codegen(program.sdfg), options,
                                                   locations);
}

}  // namespace

CompilerSettings CompiledBackendConfig::compiler_settings() const {
  CompilerSettings s;
  s.compiler = compiler;
  s.flags = flags;
  s.openmp = openmp;
  s.jobs = jobs;
  return s;
}

CompilerStep make_cpu_compiler(CompilerSettings settings, std::optional<fs::path> cache_dir,
                               CompilerInvocation invoke) {
  return [settings = std::move(settings), cache_dir = std::move(cache_dir),
          invoke = std::move(invoke)](const CompilableProgram& program) -> CompilationArtifact {
    if (!program.sdfg) throw BackendError("compile: the program has no SDFG");
    // Code is generated only from valid SDFGs: generate_cpu assumes what validate() checks
    // (names are identifiers, memlets name existing containers with the right dimensions).
    try {
      codegen::validate_for_codegen_or_throw(*program.sdfg);
    } catch (const InvalidSDFGError& e) {
      throw BackendError(
          (program.origin.empty() ? "" : program.origin + ": ") +
          "cannot compile an invalid SDFG (`weir validate` lists the same problems): " + e.what());
    }
    Signature sig = Signature::from_sdfg(*program.sdfg);
    std::vector<std::string> locations;
    codegen::GeneratedCode code = generate(program, settings.openmp, locations);
    std::string source = std::move(code.source), name = std::move(code.program_name);
    if (name.empty()) name = program.sdfg->name;
    // The libraries are named in the source (so in the key below); the link line adds them.
    CompilerSettings link = settings;
    link.libraries.insert(link.libraries.end(), code.link_libraries.begin(), code.link_libraries.end());
    auto flags = settings.all_flags();

    // The key: everything that determines the library. The source already reflects the
    // optimized SDFG and the code generation options.
    detail::Sha256 h;
    h.field("weir program cache key v1");
    h.field(WEIR_VERSION);
    h.field(codegen::kAbiVersion);
    h.field(compiler_identity(settings.compiler, flags));
    for (const auto& f : flags) h.field(f);
    h.field(source);
    // The units (how many and what each holds) are what is compiled when there are several.
    if (!code.units.empty()) h.field("units " + std::to_string(code.units.size()));
    for (const auto& u : code.units) h.field(u);

    detail::CachedBuild b;
    b.key = h.hex();
    b.source = std::move(source);
    b.description = nlohmann::json{
        {"program", name},
        {"origin", program.origin},
        {"compiler", settings.compiler},
        {"flags",
         flags}}.dump();
    // On a miss only: the standard headers precompiled (built once per compiler and flags).
    auto with_pch = [&] {
      CompilerSettings s = link;
      if (!s.precompiled_header) return s;
      fs::path root = detail::prelude_pch_root(cache_dir ? *cache_dir : ProgramCache::default_root());
      fs::path pch = detail::prelude_pch(s, root, codegen::generated_headers());
      if (!pch.empty()) s.flags.insert(s.flags.end(), {"-include", pch.string()});
      return s;
    };
    b.compile = [&](const fs::path& src, const fs::path& lib) {
      compile_shared_library(with_pch(), src, lib, name, invoke);
    };
    b.units = std::move(code.units);
    b.compile_units = [&](const std::vector<fs::path>& units, const fs::path& lib) {
      compile_units(with_pch(), units, lib, name, invoke);
    };
    b.cache_dir = cache_dir;
    CompilationArtifact a = detail::build_cached(b, std::move(sig));
    a.notes = std::move(code.notes);
    a.locations = std::move(locations);
    return a;
  };
}

std::unique_ptr<CompiledBackend> make_cpu_backend(const CompiledBackendConfig& config) {
  return std::make_unique<CompiledBackend>("cpu" + config.name_postfix,
                                           Allocator(DeviceType::CPU, kDefaultAlignment),
                                           make_cpu_compiler(config.compiler_settings(), config.cache_dir));
}

}  // namespace weir::runtime
