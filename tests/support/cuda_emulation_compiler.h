// The compiler step of the CUDA generator's host emulation (ADR 0020), shared by the test
// suites (cuda_emulation.h) and the fuzz targets (tests/fuzz/gpu_path.h): it generates the gpu
// backend's CUDA source for a program (runtime::generate_gpu_program, the very source nvcc
// gets) and compiles it with a host C++ compiler against codegen/emulation/weir_cuda_emulation.h,
// so that every kernel runs on the CPU, block by block and thread by thread, with the generated
// index arithmetic. Header-only; needs WEIR_SOURCE_DIR (the checkout) and weir_runtime.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "weir/runtime/backend.h"
#include "weir/runtime/compiler.h"
#include "weir/runtime/gpu_backend.h"
#include "weir/runtime/signature.h"
#include "weir/sdfg/sdfg.h"

namespace weir::test {

/// A CompilerStep that builds each program's CUDA source with `settings` (their flags followed
/// by the emulation's: -DWEIR_CUDA_EMULATION, its include directory, `-x c++`) into `dir`, one
/// library per distinct source (a source built before is a cache hit). A source the host
/// compiler refuses is a runtime::CompileError, as nvcc's would be.
inline runtime::CompilerStep cuda_emulation_compiler(std::filesystem::path dir,
                                                     runtime::CompilerSettings settings) {
  settings.flags.insert(
      settings.flags.end(),
      {"-DWEIR_CUDA_EMULATION",
       "-I" + (std::filesystem::path(WEIR_SOURCE_DIR) / "codegen" / "emulation").string(), "-x", "c++"});
  return [dir = std::move(dir), settings = std::move(settings)](const runtime::CompilableProgram& program) {
    std::shared_ptr<const SDFG> placed;
    std::vector<std::string> locations;  // as the gpu backend: locations by token (ADR 0061)
    codegen::GeneratedCode code = runtime::generate_gpu_program(program, &placed, &locations);
    std::filesystem::create_directories(dir);
    std::string id = code.program_name + "-" + std::to_string(std::hash<std::string>{}(code.source));
    std::filesystem::path src = dir / (id + ".cu"), lib = dir / (id + ".so");
    runtime::CompilationArtifact a;
    a.cache_hit = std::filesystem::exists(lib);
    if (!a.cache_hit) {
      // Parallel test processes may build the same program: each in its own files, renamed last.
      std::string tmp = id + ".tmp" + std::to_string(::getpid());
      std::filesystem::path tmp_src = dir / (tmp + ".cu"), tmp_lib = dir / (tmp + ".so");
      std::ofstream(tmp_src, std::ios::binary) << code.source;
      runtime::compile_shared_library(settings, tmp_src, tmp_lib, code.program_name);
      std::filesystem::rename(tmp_src, src);
      std::filesystem::rename(tmp_lib, lib);
    }
    a.library = lib.string();
    a.source = src.string();
    a.fingerprint = id;
    a.signature = runtime::Signature::from_sdfg(*placed);
    a.locations = std::move(locations);
    return a;
  };
}

}  // namespace weir::test
