// DaCe's implementation names per library node class (dace/libraries/*/nodes/*.py, DaCe 2.0:
// each node class's `implementations` dictionary), and weir's spelling of its own choices.
#include "weir/sdfg/library_implementations.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace weir {

const std::set<std::string>* dace_implementations(const std::string& class_name) {
  static const std::map<std::string, std::set<std::string>> kNames = {
      // dace/libraries/blas
      {"Axpy", {"pure"}},
      {"BatchedMatMul", {"pure", "MKL", "OpenBLAS", "cuBLAS"}},
      {"Dot", {"pure", "OpenBLAS", "MKL", "cuBLAS"}},
      {"Einsum", {"specialize"}},
      {"Gemm", {"pure", "MKL", "OpenBLAS", "cuBLAS", "rocBLAS", "PBLAS"}},
      {"Gemv", {"pure", "OpenBLAS", "MKL", "cuBLAS", "PBLAS"}},
      {"Ger", {"pure"}},
      {"MatMul", {"specialize"}},
      {"Transpose", {"pure", "MKL", "OpenBLAS", "cuBLAS"}},
      // dace/libraries/lapack and linalg
      {"Getrf", {"OpenBLAS", "MKL", "cuSolverDn"}},
      {"Getri", {"OpenBLAS", "MKL"}},
      {"Getrs", {"OpenBLAS", "MKL", "cuSolverDn"}},
      {"Potrf", {"OpenBLAS", "MKL", "cuSolverDn"}},
      {"Cholesky", {"OpenBLAS", "MKL", "cuSolverDn"}},
      {"Inv", {"OpenBLAS", "MKL", "cuSolverDn"}},
      {"Solve", {"OpenBLAS", "MKL", "cuSolverDn"}},
      {"TensorDot", {"pure", "TTGT", "cuTENSOR"}},
      {"TensorTranspose", {"pure", "HPTT", "cuTENSOR"}},
      // dace/libraries/standard
      {"Reduce",
       {"pure", "pure-seq", "OpenMP", "CUDA (device)", "CUDA (block)", "CUDA (block allreduce)", "GPUAuto",
        "CUDA (warp)", "CUDA (warp allreduce)"}},
  };
  auto it = kNames.find(class_name);
  return it == kNames.end() ? nullptr : &it->second;
}

std::optional<std::string> dace_implementation_name(const std::string& class_name,
                                                    const std::string& implementation) {
  const std::set<std::string>* names = dace_implementations(class_name);
  if (!names) return implementation.empty() ? std::nullopt : std::optional<std::string>(implementation);
  if (names->count(implementation)) return implementation;
  std::string lower = implementation;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // weir's names for one CBLAS / LAPACKE call (the code generator takes them all).
  const bool cblas =
      lower == "openblas" || lower == "mkl" || lower == "cblas" || lower == "lapacke" || lower == "lapack";
  if (cblas && names->count("OpenBLAS")) return std::string("OpenBLAS");
  if (names->count("specialize")) return std::string("specialize");
  return std::nullopt;
}

}  // namespace weir
