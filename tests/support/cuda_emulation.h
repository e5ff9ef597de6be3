// The host-emulation harness of the CUDA generator (ADR 0020): a CompiledBackend whose compiler
// step generates the gpu backend's CUDA source (runtime::generate_gpu_program, the very source
// nvcc gets) and compiles it with the host C++ compiler against
// codegen/emulation/weir_cuda_emulation.h, so that every kernel runs on the CPU, block by block
// and thread by thread, with the generated index arithmetic. Loaded like the cpu backend's
// programs. Header-only: suites that link weir_runtime include it.
#pragma once

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>

#include "corpus.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/gpu_backend.h"
#include "weir/sdfg/sdfg.h"

namespace weir::test {

/// The emulation backend ("cuda-emulation"); builds go to shared_cache_dir("cuda-emulation"),
/// one per distinct source.
inline std::unique_ptr<runtime::CompiledBackend> make_cuda_emulation_backend() {
  runtime::CompilerStep compiler = [](const runtime::CompilableProgram& program) {
    std::shared_ptr<const SDFG> placed;
    codegen::GeneratedCode code = runtime::generate_gpu_program(program, &placed);
    std::filesystem::path dir = shared_cache_dir("cuda-emulation");
    std::string id = code.program_name + "-" + std::to_string(std::hash<std::string>{}(code.source));
    std::filesystem::path src = dir / (id + ".cu"), lib = dir / (id + ".so");
    runtime::CompilationArtifact a;
    a.cache_hit = std::filesystem::exists(lib);
    if (!a.cache_hit) {
      // Parallel test processes may build the same program: each in its own files, renamed last.
      std::string tmp = id + ".tmp" + std::to_string(::getpid());
      std::filesystem::path tmp_src = dir / (tmp + ".cu"), tmp_lib = dir / (tmp + ".so");
      std::ofstream(tmp_src, std::ios::binary) << code.source;
      runtime::CompilerSettings s;
      s.flags = {"-std=c++17", "-O1", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror",
                 "-Wno-unused-parameter", "-Wno-unused-variable", "-Wno-unused-but-set-variable",
                 // What the program's own expressions say as written, which NumPy and gt4py
                 // accept (fvdiff programs compare a field with itself, `nz < nz`, and convert a
                 // product to bool, `astype(n * m, bool)`): not faults of the generated code.
                 "-Wno-tautological-compare", "-Wno-int-in-bool-context", "-DWEIR_CUDA_EMULATION",
                 "-I" + (std::filesystem::path(WEIR_SOURCE_DIR) / "codegen" / "emulation").string(), "-x",
                 "c++"};
      s.openmp = false;
      runtime::compile_shared_library(s, tmp_src, tmp_lib, code.program_name);
      std::filesystem::rename(tmp_src, src);
      std::filesystem::rename(tmp_lib, lib);
    }
    a.library = lib.string();
    a.source = src.string();
    a.fingerprint = id;
    a.signature = runtime::Signature::from_sdfg(*placed);
    return a;
  };
  return std::make_unique<runtime::CompiledBackend>("cuda-emulation", runtime::Allocator::cpu(),
                                                    std::move(compiler));
}

}  // namespace weir::test
