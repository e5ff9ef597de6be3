#include "weir/runtime/nvcc.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>

#include "weir/runtime/errors.h"

namespace weir::runtime {
namespace fs = std::filesystem;

std::vector<std::string> NvccSettings::all_flags() const {
  std::vector<std::string> f = flags;
  f.push_back("-arch=" + gpu_arch);
  // nvcc compiles host code with the system compiler; a shared library needs PIC there.
  f.push_back("-Xcompiler");
  f.push_back("-fPIC");
  f.push_back("-shared");
  return f;
}

std::vector<std::string> NvccSettings::command(const fs::path& source, const fs::path& output) const {
  std::vector<std::string> argv{nvcc.empty() ? find_nvcc().string() : nvcc};
  for (auto& f : all_flags()) argv.push_back(f);
  argv.push_back("-o");
  argv.push_back(output.string());
  // The program cache names sources .cpp: -x cu compiles them as CUDA whatever their suffix.
  argv.push_back("-x");
  argv.push_back("cu");
  argv.push_back(source.string());
  return argv;
}

fs::path find_nvcc() {
  if (const char* env = std::getenv("CUDACXX"); env && *env) {
    fs::path p = find_program(env);
    if (p.empty()) throw RuntimeError(std::string("CUDACXX is '") + env + "', which is not an executable");
    return p;
  }
  if (fs::path p = find_program("nvcc"); !p.empty()) return p;
  fs::path fallback = "/usr/local/cuda/bin/nvcc";
  if (access(fallback.c_str(), X_OK) == 0) return fallback;
  throw RuntimeError(
      "nvcc not found (CUDACXX is not set, no nvcc in PATH, none at /usr/local/cuda/bin/nvcc): "
      "install the CUDA toolkit or set CUDACXX");
}

void check_gpu_arch(const std::string& arch) {
  auto digits_from = [&](std::size_t i, bool suffix) {
    std::size_t j = i;
    while (j < arch.size() && std::isdigit(static_cast<unsigned char>(arch[j]))) ++j;
    if (j == i) return false;
    if (suffix && j + 1 == arch.size() && arch[j] == 'a') return true;
    return j == arch.size();
  };
  bool ok = (arch.rfind("sm_", 0) == 0 && digits_from(3, true)) ||
            (arch.rfind("compute_", 0) == 0 && digits_from(8, false));
  if (!ok)
    throw BackendError("--gpu-arch '" + arch +
                       "': expected a CUDA architecture such as sm_90 (H100/H200/GH200), "
                       "sm_80 (A100) or compute_90");
}

std::string nvcc_identity(const NvccSettings& settings) {
  std::string nvcc = settings.nvcc.empty() ? find_nvcc().string() : settings.nvcc;
  std::string id = compiler_identity(nvcc, {}) + "\narch " + settings.gpu_arch;
  for (const auto& f : settings.all_flags()) id += "\n" + f;
  return id;
}

void compile_cuda_library(const NvccSettings& settings, const fs::path& source, const fs::path& output,
                          const std::string& program, const CompilerInvocation& invoke) {
  run_compiler(settings.command(source, output), source, output, program, invoke);
}

}  // namespace weir::runtime
