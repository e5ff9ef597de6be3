// Helpers of the codegen tests: compile a generated translation unit into a shared library with
// the system compiler, load it with dlopen and call its entry points (program_abi.h).
#pragma once

#include <dlfcn.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "corpus.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/codegen/program_abi.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

namespace weir::test {

/// prog(A[N], B[N]): state "main" with map "m" over i in `range` running tasklet "t" (`code` in
/// `lang`, input connector a = A[i], output b -> B[i]). Node ids: A 0, B 1, entry 2, exit 3, t 4.
inline std::unique_ptr<SDFG> map_program(const std::string& code, Language lang = Language::Python,
                                         ScheduleType sched = ScheduleType::Default,
                                         const std::string& range = "0:N") {
  using E = sym::Expr;
  auto s = std::make_unique<SDFG>("prog");
  s->add_array("A", ScalarType::Float64, {E::symbol("N")});
  s->add_array("B", ScalarType::Float64, {E::symbol("N")});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& m = st.add_map("m", {"i"}, Subset::parse(range), sched);
  auto& t = st.add_tasklet("t", {code, lang}, {"a"}, {"b"});
  st.add_memlet_path({a.id(), m.id(), t.id()}, Memlet::simple("A", Subset::parse("i")), "", "a");
  st.add_memlet_path({t.id(), m.exit, b.id()}, Memlet::simple("B", Subset::parse("i")), "b", "");
  return s;
}

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
  std::string cmd = std::string("g++ ") + kGeneratedCodeFlags +
                    (extra ? std::string(" ") + extra : std::string()) + " -o '" + so.string() + "' '" +
                    cpp.string() + "' > '" + log.string() + "' 2>&1";
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

  /// Any exported symbol of the program (nullptr if there is none).
  void* symbol(const char* name) const { return dlsym(lib_, name); }

 private:
  void* sym(const char* name) {
    void* p = dlsym(lib_, name);
    INFO("missing entry point " << name);
    REQUIRE(p != nullptr);
    return p;
  }
  void* lib_ = nullptr;
};

/// The message of the CodegenError generating `s` throws, "no error" when none.
inline std::string codegen_error(const SDFG& s) {
  try {
    codegen::generate_cpu(s);
  } catch (const codegen::CodegenError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace weir::test
