// One library node of DaCe's BLAS or linalg library in one state, built the way DaCe writes it
// (classpath, connectors, attributes), run on the cpu backend in each implementation and
// compared with NumPy (Debian's /usr/bin/python3) on the same generated inputs. Shared by
// test_blas_implementations.cpp and test_lapack_implementations.cpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"

namespace weir::test {

/// One edge of the node: its connector (empty: the edge has none), container and subset.
struct LibraryOperand {
  std::string conn, data, subset;
};

struct LibraryCase {
  std::string name;
  std::string cls;  // the classpath after "dace.libraries.<library>.nodes."
  std::map<std::string, std::vector<std::string>> arrays;  // name -> symbolic shape (M, K, N)
  std::vector<LibraryOperand> ins, outs;
  /// JSON text (transA, alpha, lower, ...); a Reduce's `wcr` (the lambda), `identity` (JSON text,
  /// "0" as DaCe writes it) and `axes` ("[0, 2]") go to the node's fields.
  std::map<std::string, std::string> attributes;
  std::string numpy;  // Python computing `expected` (dict) from `inputs`, after `prepare`
  ScalarType dtype = ScalarType::Float64;
  std::string library = "blas";  // blas or linalg
  std::string prepare = "";      // Python adjusting `inputs` (an SPD matrix, say); may be empty
};

/// The SDFG: inputs from access nodes into the library node, outputs to fresh access nodes.
std::unique_ptr<SDFG> build_library_case(const LibraryCase& c, const std::string& implementation);

/// Writes NumPy's inputs (in_NAME.npy) and expected outputs (out_NAME.npy) for sizes (m, k, n)
/// into `dir`.
void library_numpy_reference(const LibraryCase& c, const std::filesystem::path& dir, int m, int k, int n);

/// Float64 arrays by name: shape and values (row-major).
using Float64Arrays = std::map<std::string, std::pair<std::vector<std::int64_t>, std::vector<double>>>;

/// Runs `sdfg` on the cpu backend without trusting code (its builds cached in
/// shared_cache_dir(`cache`)) with `arrays` and those of `symbols` it uses; returns the arrays'
/// values after the run.
std::map<std::string, std::vector<double>> run_float64(const SDFG& sdfg, const Float64Arrays& arrays,
                                                       const std::map<std::string, std::int64_t>& symbols,
                                                       const std::string& cache);

/// Runs `c` at sizes (7, 5, 3), (1, 1, 1), (2, 9, 4) and (300, 130, 260) in `pure` and
/// `OpenBLAS` (and, for MatMul, Gemm and Gemv, the default implementation) and compares
/// every output with NumPy (rtol 1e-12, 1e-4 for float32); the generated source calls
/// `fast_call` exactly for OpenBLAS (unchecked when empty: nodes with one implementation).
void check_library_case(const LibraryCase& c, const std::string& fast_call);

}  // namespace weir::test
