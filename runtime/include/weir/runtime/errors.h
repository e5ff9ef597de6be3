// Errors of the runtime layer. All derive from weir::Error, so the CLI reports them as invalid
// input (exit code 1) with their what() text, which always names the file, argument, backend or
// program it is about.
#pragma once

#include <string>

#include "weir/sdfg/errors.h"

namespace weir::runtime {

/// Base of the runtime layer's errors.
class RuntimeError : public weir::Error {
 public:
  using weir::Error::Error;
};

/// Arguments that do not fit the program's signature: a missing or unknown name, a wrong dtype
/// or shape ("argument 'A': expected float64 array of shape (64, 64), got int64 (64, 64)"),
/// conflicting or unknown symbol values.
class ArgumentError : public RuntimeError {
 public:
  using RuntimeError::RuntimeError;
};

/// A .npy file that cannot be read or written: missing, truncated, corrupt header, unsupported
/// dtype or Fortran order. what() starts with the file path.
class NpyError : public RuntimeError {
 public:
  using RuntimeError::RuntimeError;
};

/// The C++ compiler failed on a generated program. what() reads
///   "compiling program 'P' failed: <compiler> exited with code 1
///    generated source: <path> (its comments name the SDFG state, node and memlet each part
///    was generated from)
///    <the compiler's first error lines>"
class CompileError : public RuntimeError {
 public:
  CompileError(std::string program, std::string command, int exit_code, std::string compiler_output,
               std::string source_path);
  /// The same error for a source that was moved to `path` (kept after a failed build).
  CompileError with_source_path(std::string path) const;
  const std::string& program() const { return program_; }
  /// The command line that failed.
  const std::string& command() const { return command_; }
  int exit_code() const { return exit_code_; }
  /// The generated source file the compiler was run on.
  const std::string& source_path() const { return source_path_; }
  /// Everything the compiler printed (stdout and stderr).
  const std::string& compiler_output() const { return output_; }

 private:
  std::string program_, command_;
  int exit_code_;
  std::string output_, source_path_;
};

/// A compiled program that cannot be loaded: dlopen failed, an entry point of program_abi.h is
/// missing, or its weir_abi_version() is not the one this weir speaks.
class LoadError : public RuntimeError {
 public:
  using RuntimeError::RuntimeError;
};

/// A generated program's weir_init/weir_run/weir_finalize returned an error; what() has
/// weir_last_error()'s text.
class ProgramError : public RuntimeError {
 public:
  using RuntimeError::RuntimeError;
};

/// A program or backend combination weir cannot run: an SDFG on the embedded backend, a backend
/// of an unknown kind, a field-view program before the frontend lowers them, a GPU allocator.
class BackendError : public RuntimeError {
 public:
  using RuntimeError::RuntimeError;
};

/// The program cache directory cannot be used (not writable, lock failure, I/O error).
class CacheError : public RuntimeError {
 public:
  using RuntimeError::RuntimeError;
};

}  // namespace weir::runtime
