// The CPU backend: C++/OpenMP code generation (codegen::generate_cpu), the system C++ compiler,
// the persistent program cache and dlopen.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "weir/runtime/backend.h"
#include "weir/runtime/compiler.h"

namespace weir::runtime {

/// Configuration of the CPU backend.
struct CompiledBackendConfig {
  /// C++ compiler: a name looked up in PATH or a path.
  std::string compiler = "c++";
  /// Compiler flags (-shared -fPIC are always added, -fopenmp with `openmp`).
  // -ffp-contract=off: GCC fuses a * b + c into one fma even in ISO C++ mode, which rounds
  // differently from the embedded backend and NumPy (gt4py's meaning: one rounding per operation).
  // -fno-math-errno: math functions need not set errno (nothing reads it), so loops of them
  // vectorize with glibc's libmvec (ADR 0031).
  std::vector<std::string> flags = {"-std=c++17", "-O3", "-march=native", "-ffp-contract=off",
                                    "-fno-math-errno"};
  /// Compile with OpenMP (-fopenmp).
  bool openmp = true;
  /// Compiler processes at once for a big program's translation units (CompilerSettings::jobs;
  /// 0: the number of cores).
  unsigned jobs = 0;
  /// Appended to the backend's name ("cpu" + "_debug" = "cpu_debug").
  std::string name_postfix;
  /// Program cache directory; default: ProgramCache::default_root(), read at each compile.
  std::optional<std::filesystem::path> cache_dir;

  CompilerSettings compiler_settings() const;
};

/// The CPU compile step: validates the program's SDFG (an invalid one throws BackendError
/// "ORIGIN: cannot compile an invalid SDFG ...: invalid SDFG (N problems) ..." listing
/// validate()'s diagnostics), generates C++ for it, fingerprints the source, the
/// compiler's identity, the flags and weir's version, and returns the cached library for that
/// fingerprint, running `invoke` (the compiler) only on a cache miss. A failed build keeps its
/// source and log in the cache's failed/ directory and throws CompileError naming that source.
/// `cache_dir` empty: ProgramCache::default_root() at each call.
CompilerStep make_cpu_compiler(CompilerSettings settings, std::optional<std::filesystem::path> cache_dir = {},
                               CompilerInvocation invoke = run_process);

/// A CompiledBackend named "cpu" + config.name_postfix with a 64-byte-aligned CPU allocator,
/// make_cpu_compiler(config...) as `compiler` and CompiledBackend::default_loader().
/// Nothing is checked here; an unusable compiler is reported by the first compile.
std::unique_ptr<CompiledBackend> make_cpu_backend(const CompiledBackendConfig& config = {});

}  // namespace weir::runtime
