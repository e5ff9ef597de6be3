// Generated code in the fuzz targets that compile it (layout.cpp, and fieldview.cpp and sdfg.cpp
// through gpu_path.h): where the libraries go, how they are compiled, the cpu backend, and a
// cap on the compiles of one process.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "weir/runtime/backend.h"
#include "weir/runtime/compiler.h"
#include "weir/runtime/cpu_backend.h"

namespace weir::fuzz {

/// The process's program cache (generated libraries of every backend), removed when it exits.
inline const std::filesystem::path& process_cache_dir() {
  struct Dir {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("weir-fuzz-" + std::to_string(::getpid()));
    Dir() = default;
    Dir(const Dir&) = delete;
    Dir& operator=(const Dir&) = delete;
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static Dir dir;
  return dir.path;
}

/// How the fuzz targets compile generated code: -O0 (compiling is their cost); under ASan with
/// clang++-14 -fsanitize=address (the process's ASan runtime serves the library as well).
inline runtime::CompilerSettings generated_code_settings() {
  runtime::CompilerSettings s;
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WEIR_FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(WEIR_FUZZ_ASAN)
  s.compiler = "clang++-14";
  s.flags = {"-std=c++17", "-O0", "-ffp-contract=off", "-fsanitize=address", "-fno-omit-frame-pointer"};
#else
  s.flags = {"-std=c++17", "-O0", "-ffp-contract=off"};
#endif
  s.openmp = false;
  s.jobs = 1;
  s.precompiled_header = false;
  return s;
}

/// The cpu backend of the fuzz targets (generated_code_settings, the process's cache).
inline runtime::Backend& fuzz_cpu_backend() {
  static std::unique_ptr<runtime::Backend> b = [] {
    const runtime::CompilerSettings s = generated_code_settings();
    runtime::CompiledBackendConfig c;
    c.compiler = s.compiler;
    c.flags = s.flags;
    c.openmp = s.openmp;
    c.jobs = s.jobs;
    c.cache_dir = process_cache_dir() / "cpu";
    return runtime::make_cpu_backend(c);
  }();
  return *b;
}

/// A cap on the programs one process compiles, from the environment variable named at
/// construction (a count; 0: none; unset or empty: no cap).
class CompileBudget {
 public:
  explicit CompileBudget(const char* variable) {
    const char* v = std::getenv(variable);
    left_ = v && *v ? std::atol(v) : -1L;
  }
  /// Whether one more program may be compiled (and counts it).
  bool take() {
    if (left_ == 0) return false;
    if (left_ > 0) --left_;
    return true;
  }

 private:
  long left_;
};

}  // namespace weir::fuzz
