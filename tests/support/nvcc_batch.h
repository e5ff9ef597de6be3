// Compiling many generated CUDA programs with one nvcc run (CI cost: nvcc's start-up and the
// host headers are paid once). Each program's source goes into a namespace of its own in one
// translation unit, its C entry points renamed; system headers are included first at file scope,
// so that their copies inside the namespaces are emptied by their include guards. What nvcc
// checks (the device code, the host code, the launches) is each program's unchanged text.
// Header-only: suites that link weir_runtime include it.
#pragma once

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "weir/codegen/program_abi.h"
#include "weir/runtime/nvcc.h"

namespace weir::test {

/// Compiles `programs` (name, CUDA source) with nvcc into one shared library under `dir`;
/// throws CompileError (nvcc's first errors, the combined source's path) when one fails.
inline void nvcc_compile_together(const std::vector<std::pair<std::string, std::string>>& programs,
                                  const std::filesystem::path& dir) {
  std::set<std::string> system;
  for (const auto& [name, src] : programs) {
    std::istringstream in(src);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("#include <", 0) == 0) system.insert(line);
  }
  const char* abi[] = {codegen::kSymAbiVersion, codegen::kSymProgramName, codegen::kSymArglist,
                       codegen::kSymInit,       codegen::kSymRun,         codegen::kSymFinalize,
                       codegen::kSymLastError,  codegen::kSymRunHost,     codegen::kSymSetInterruptPoll};
  std::ofstream all(dir / "all.cu", std::ios::binary);
  for (const auto& line : system) all << line << "\n";
  for (std::size_t i = 0; i < programs.size(); ++i) {
    std::string file = "p" + std::to_string(i) + ".cu";
    std::ofstream(dir / file, std::ios::binary) << programs[i].second;
    all << "// " << programs[i].first << "\n";
    for (const char* s : abi) all << "#define " << s << " " << s << "_" << i << "\n";
    all << "namespace weir_program_" << i << " {\n#include \"" << file << "\"\n}\n";
    for (const char* s : abi) all << "#undef " << s << "\n";
  }
  all.close();
  runtime::NvccSettings s;
  runtime::compile_cuda_library(s, dir / "all.cu", dir / "all.so", "all");
}

}  // namespace weir::test
