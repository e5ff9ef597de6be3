// Helpers of the codegen tests: compile a generated translation unit into a shared library with
// the system compiler, load it with dlopen and call its entry points (program_abi.h).
#pragma once

#include <dlfcn.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "corpus.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/codegen/program_abi.h"

namespace weir::test {

/// The compiler flags the tests build generated code with.
inline const char* kGeneratedCodeFlags = "-O2 -fopenmp -shared -fPIC -std=c++17 -Wall -Wextra";

/// Writes `source` to dir/name.cpp and compiles it to dir/name.so. REQUIREs success and that
/// the compiler printed no warning. Returns the library path.
inline std::filesystem::path compile_shared(const std::string& source, const std::filesystem::path& dir,
                                            const std::string& name = "program") {
  auto cpp = dir / (name + ".cpp");
  auto so = dir / (name + ".so");
  auto log = dir / (name + ".log");
  {
    std::ofstream out(cpp, std::ios::binary);
    out << source;
  }
  // WEIR_CODEGEN_TEST_FLAGS adds flags, e.g. "-fsanitize=address,undefined" (run the tests with
  // LD_PRELOAD=$(g++ -print-file-name=libasan.so) then).
  const char* extra = std::getenv("WEIR_CODEGEN_TEST_FLAGS");
  std::string cmd = std::string("g++ ") + kGeneratedCodeFlags + (extra ? std::string(" ") + extra : std::string()) +
                    " -o '" + so.string() + "' '" + cpp.string() + "' > '" + log.string() + "' 2>&1";
  int rc = std::system(cmd.c_str());
  std::string text = read_text(log);
  INFO("compiler output:\n" << text.substr(0, 4000));
  REQUIRE(rc == 0);
  CHECK(text.find("warning") == std::string::npos);
  return so;
}

/// A loaded generated program.
class LoadedProgram {
 public:
  explicit LoadedProgram(const std::filesystem::path& so) {
    lib_ = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    INFO("dlopen: " << (lib_ ? "" : dlerror()));
    REQUIRE(lib_ != nullptr);
    // As runtime/src/loader.cpp: OpenMP worker threads outlive the program, so the OpenMP
    // runtime it pulled in must never be unmapped (LeakSanitizer crashed at exit otherwise).
    for (const char* omp : {"libgomp.so.1", "libomp.so.5", "libomp.so", "libiomp5.so"})
      dlopen(omp, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    init = reinterpret_cast<codegen::InitFn>(sym(codegen::kSymInit));
    run = reinterpret_cast<codegen::RunFn>(sym(codegen::kSymRun));
    finalize = reinterpret_cast<codegen::FinalizeFn>(sym(codegen::kSymFinalize));
    last_error = reinterpret_cast<codegen::LastErrorFn>(sym(codegen::kSymLastError));
    arglist = reinterpret_cast<codegen::ArglistFn>(sym(codegen::kSymArglist));
    program_name = reinterpret_cast<codegen::ProgramNameFn>(sym(codegen::kSymProgramName));
    abi_version = reinterpret_cast<codegen::AbiVersionFn>(sym(codegen::kSymAbiVersion));
  }
  ~LoadedProgram() {
    if (lib_) dlclose(lib_);
  }
  LoadedProgram(const LoadedProgram&) = delete;
  LoadedProgram& operator=(const LoadedProgram&) = delete;

  /// weir_init + weir_run + weir_finalize; REQUIREs success of each.
  void call(const std::vector<void*>& args) {
    void* h = init(args.data());
    INFO("weir_init: " << last_error());
    REQUIRE(h != nullptr);
    int rc = run(h, args.data());
    INFO("weir_run: " << last_error());
    CHECK(rc == 0);
    REQUIRE(finalize(h) == 0);
  }

  codegen::InitFn init = nullptr;
  codegen::RunFn run = nullptr;
  codegen::FinalizeFn finalize = nullptr;
  codegen::LastErrorFn last_error = nullptr;
  codegen::ArglistFn arglist = nullptr;
  codegen::ProgramNameFn program_name = nullptr;
  codegen::AbiVersionFn abi_version = nullptr;

 private:
  void* sym(const char* name) {
    void* p = dlsym(lib_, name);
    INFO("missing entry point " << name);
    REQUIRE(p != nullptr);
    return p;
  }
  void* lib_ = nullptr;
};

}  // namespace weir::test
