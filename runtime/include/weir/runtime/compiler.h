// Running the system C++ compiler on a generated source file: one process per program, no
// build system in between (`c++ -std=c++17 -O3 -march=native -fopenmp -shared -fPIC -o
// lib.so src.cpp`).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace weir::runtime {

/// Which compiler and flags build a generated program into a shared library.
struct CompilerSettings {
  /// A program name looked up in PATH ("c++", "g++-12", "clang++") or a path.
  std::string compiler = "c++";
  /// Language and optimization flags. `-shared -fPIC` are always added by command().
  // -ffp-contract=off: GCC fuses a * b + c into one fma even in ISO C++ mode, which rounds
  // differently from the embedded backend and NumPy (gt4py's meaning: one rounding per operation).
  // -fno-math-errno: math functions need not set errno (nothing reads it), so loops of them
  // vectorize with glibc's libmvec (ADR 0031).
  std::vector<std::string> flags = {"-std=c++17", "-O3", "-march=native", "-ffp-contract=off",
                                    "-fno-math-errno"};
  /// Adds -fopenmp (generated code uses OpenMP for CPU_Multicore maps).
  bool openmp = true;
  /// System libraries linked after the source (`-lblas`), as the generated code asks for.
  std::vector<std::string> libraries;
  /// Compiler processes at once for a program of several translation units (compile_units);
  /// 0: the number of cores. It does not change the library (not part of the cache key).
  unsigned jobs = 0;

  /// Links with GNU gold (`-fuse-ld=gold`) when ld.gold is installed (binutils): half the link
  /// time of GNU ld for a small program (docs/benchmarks.md, ADR 0024).
  bool fast_linker = true;
  /// The cpu backend compiles generated programs with a precompiled header of their standard
  /// headers (GCC; built once per compiler and flags into the program cache; ADR 0024). Not
  /// part of the cache key: the library is the same with or without it.
  bool precompiled_header = true;

  /// Every flag in the order passed: flags, then -fopenmp, -shared, -fPIC, -fuse-ld=gold (see
  /// fast_linker).
  std::vector<std::string> all_flags() const;
  /// The full command line: compiler, all_flags(), -o output, source, -l<library>...
  std::vector<std::string> command(const std::filesystem::path& source,
                                   const std::filesystem::path& output) const;
};

/// What a finished process printed (stdout and stderr interleaved) and its exit code
/// (128 + signal number if it was killed by a signal).
struct ProcessOutput {
  int exit_code = 0;
  std::string output;
};

/// Runs argv[0] (searched in PATH) with argv, without a shell, and waits. Throws RuntimeError if
/// the process cannot be started (the compiler is not installed: "cannot run 'c++': ...").
ProcessOutput run_process(const std::vector<std::string>& argv);

/// The compiler-running step; replaceable (tests count invocations or simulate failures).
using CompilerInvocation = std::function<ProcessOutput(const std::vector<std::string>& argv)>;

/// Compiles `source` into the shared library `output` with `settings`, running the command
/// through `invoke`. Throws CompileError when the compiler fails or writes no library: its
/// what() has the compiler's first error lines, the source path and a note that the source's
/// comments name the SDFG elements (state, node, memlet) each part was generated from.
/// `program` names the program in the error.
void compile_shared_library(const CompilerSettings& settings, const std::filesystem::path& source,
                            const std::filesystem::path& output, const std::string& program,
                            const CompilerInvocation& invoke = run_process);

/// Compiles the translation units `sources` of one program (GeneratedCode::units) into the
/// shared library `output`: each into an object file beside it (`<source>.o`, `-c -fPIC`), up
/// to settings.jobs (0: the number of cores) at once, then one link with all_flags() and the
/// libraries; the object files are removed afterwards. Throws CompileError as
/// compile_shared_library does, for the first unit (in order) that failed, naming its path (the
/// compiler's messages name its lines), or for the link. `invoke` is called from several
/// threads at once.
void compile_units(const CompilerSettings& settings, const std::vector<std::filesystem::path>& sources,
                   const std::filesystem::path& output, const std::string& program,
                   const CompilerInvocation& invoke = run_process);

/// Runs `argv` (a compiler command that writes `output`) through `invoke`; throws CompileError
/// as compile_shared_library does when it fails or writes nothing. For compiler drivers with
/// their own command lines (nvcc).
void run_compiler(const std::vector<std::string>& argv, const std::filesystem::path& source,
                  const std::filesystem::path& output, const std::string& program,
                  const CompilerInvocation& invoke = run_process);

/// The executable a program name resolves to: a path with '/' as it is if executable, a bare
/// name searched in PATH; empty when there is none.
std::filesystem::path find_program(const std::string& name);

/// What identifies a compiler for the program cache: its resolved path and `--version`
/// output, plus the CPU's model and feature flags when `flags` tune for the host
/// (-march=native, -mcpu=native, -mtune=native). Cached per process. Throws RuntimeError if the
/// compiler cannot be found or run.
std::string compiler_identity(const std::string& compiler, const std::vector<std::string>& flags);

}  // namespace weir::runtime
