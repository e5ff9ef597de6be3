#include "weir/runtime/cpu_backend.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "sha256.h"
#include "weir/codegen/program_abi.h"
#include "weir/codegen/validate_code.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/program_cache.h"
#include "weir/sdfg/sdfg.h"

namespace weir::runtime {
namespace fs = std::filesystem;

namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

// The C++ source of the program and its name. The OpenMP pragmas follow the compiler setting.
codegen::GeneratedCode generate(const CompilableProgram& program, bool openmp) {
  codegen::CodegenOptions options = program.options;
  if (!openmp) options.openmp = false;
  return codegen::generate_cpu(*program.sdfg, options);
}

}  // namespace

CompilerSettings CompiledBackendConfig::compiler_settings() const {
  CompilerSettings s;
  s.compiler = compiler;
  s.flags = flags;
  s.openmp = openmp;
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
    codegen::GeneratedCode code = generate(program, settings.openmp);
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
    std::string key = h.hex();

    fs::path root = cache_dir ? *cache_dir : ProgramCache::default_root();
    ProgramCache cache(root);
    nlohmann::json desc = {
        {"program", name}, {"origin", program.origin}, {"compiler", settings.compiler}, {"flags", flags}};
    bool built = false;
    CacheEntry entry;
    fs::path build_dir;
    try {
      entry = cache.get_or_build(
          key,
          [&](const ProgramCache::Build& b) {
            build_dir = b.directory;
            {
              std::ofstream out(b.source, std::ios::binary);
              out << source;
              out.close();
              if (!out) throw CacheError("cannot write " + b.source.string());
            }
            try {
              compile_shared_library(link, b.source, b.library, name, invoke);
            } catch (const CompileError& e) {
              std::ofstream log(b.directory / "compiler.log", std::ios::binary);
              log << e.command() << "\n" << e.compiler_output();
              throw;
            }
          },
          desc.dump(), &built);
    } catch (const CompileError& e) {
      // The failed build was kept under failed/<key>/: point the message there.
      fs::path failed = cache.failed_directory(key);
      std::string out = replace_all(e.compiler_output(), build_dir.string(), failed.string());
      std::string cmd = replace_all(e.command(), build_dir.string(), failed.string());
      throw CompileError(e.program(), cmd, e.exit_code(), out,
                         (failed / e.source_path().substr(e.source_path().rfind('/') + 1)).string());
    }
    CompilationArtifact a;
    a.library = entry.library;
    a.fingerprint = key;
    a.source = entry.source;
    a.signature = std::move(sig);
    a.cache_hit = !built;
    a.evict = [root, key] { ProgramCache(root).evict(key); };
    return a;
  };
}

std::unique_ptr<CompiledBackend> make_cpu_backend(const CompiledBackendConfig& config) {
  return std::make_unique<CompiledBackend>("cpu" + config.name_postfix,
                                           Allocator(DeviceType::CPU, kDefaultAlignment),
                                           make_cpu_compiler(config.compiler_settings(), config.cache_dir));
}

}  // namespace weir::runtime
