// BLAS library nodes (MatMul, Dot, Gemm, Gemv) in both implementations the CPU code generator
// has: DaCe's "pure" one (loop nests) and "OpenBLAS" (CBLAS calls), each against NumPy on the
// same generated inputs, at odd sizes, 1x1 and non-square shapes given at run time, with
// transposes, alpha/beta, a sub-block with a leading dimension wider than its columns, a
// strided vector and float32.
#include <catch2/catch.hpp>

#include "library_case.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/cpu_schedules.h"

using namespace weir;

using test::check_library_case;
using BlasCase = test::LibraryCase;

TEST_CASE("blas: MatMul of two matrices, pure and OpenBLAS, match NumPy", "[blas][npbench]") {
  check_library_case({"matmul",
                      "matmul.MatMul",
                      {{"A", {"M", "K"}}, {"B", {"K", "N"}}, {"C", {"M", "N"}}},
                      {{"_a", "A", "0:M, 0:K"}, {"_b", "B", "0:K, 0:N"}},
                      {{"_c", "C", "0:M, 0:N"}},
                      {},
                      "expected['C'] = inputs['A'] @ inputs['B']"},
                     "cblas_dgemm");
}

TEST_CASE("blas: MatMul of a sub-block (leading dimension wider than its columns) matches NumPy",
          "[blas][npbench]") {
  check_library_case({"matmul_block",
                      "matmul.MatMul",
                      {{"A", {"M + 2", "K + 3"}}, {"B", {"K", "N"}}, {"C", {"M", "N"}}},
                      {{"_a", "A", "1:M + 1, 2:K + 2"}, {"_b", "B", "0:K, 0:N"}},
                      {{"_c", "C", "0:M, 0:N"}},
                      {},
                      "expected['C'] = inputs['A'][1:M + 1, 2:K + 2] @ inputs['B']"},
                     "cblas_dgemm");
}

TEST_CASE("blas: MatMul of matrix and vector (both orders) matches NumPy", "[blas][npbench]") {
  check_library_case({"matvec",
                      "matmul.MatMul",
                      {{"A", {"M", "K"}}, {"x", {"K"}}, {"y", {"M"}}},
                      {{"_a", "A", "0:M, 0:K"}, {"_b", "x", "0:K"}},
                      {{"_c", "y", "0:M"}},
                      {},
                      "expected['y'] = inputs['A'] @ inputs['x']"},
                     "cblas_dgemv");
  check_library_case({"vecmat",
                      "matmul.MatMul",
                      {{"x", {"K"}}, {"B", {"K", "N"}}, {"y", {"N"}}},
                      {{"_a", "x", "0:K"}, {"_b", "B", "0:K, 0:N"}},
                      {{"_c", "y", "0:N"}},
                      {},
                      "expected['y'] = inputs['x'] @ inputs['B']"},
                     "cblas_dgemv");
}

TEST_CASE("blas: Dot with a strided vector matches NumPy", "[blas][npbench]") {
  check_library_case({"dot",
                      "dot.Dot",
                      {{"x", {"2 * K"}}, {"y", {"K"}}, {"r", {"1"}}},
                      {{"_x", "x", "0:2 * K:2"}, {"_y", "y", "0:K"}},
                      {{"_result", "r", "0"}},
                      {},
                      "expected['r'] = np.array([inputs['x'][0::2] @ inputs['y']])"},
                     "cblas_ddot");
}

TEST_CASE("blas: Gemm with transA, alpha and beta in place matches NumPy", "[blas][npbench]") {
  check_library_case({"gemm",
                      "gemm.Gemm",
                      {{"A", {"K", "M"}}, {"B", {"K", "N"}}, {"C", {"M", "N"}}},
                      {{"_a", "A", "0:K, 0:M"}, {"_b", "B", "0:K, 0:N"}, {"_cin", "C", "0:M, 0:N"}},
                      {{"_c", "C", "0:M, 0:N"}},
                      {{"transA", "true"}, {"alpha", "2.0"}, {"beta", "0.5"}},
                      "expected['C'] = 2.0 * inputs['A'].T @ inputs['B'] + 0.5 * inputs['C']"},
                     "cblas_dgemm");
}

TEST_CASE("blas: Gemm into a separate output with transB matches NumPy", "[blas][npbench]") {
  check_library_case({"gemm_out",
                      "gemm.Gemm",
                      {{"A", {"M", "K"}}, {"B", {"N", "K"}}, {"C", {"M", "N"}}, {"D", {"M", "N"}}},
                      {{"_a", "A", "0:M, 0:K"}, {"_b", "B", "0:N, 0:K"}, {"_cin", "C", "0:M, 0:N"}},
                      {{"_c", "D", "0:M, 0:N"}},
                      {{"transB", "true"}, {"alpha", "-1.5"}, {"beta", "3"}},
                      "expected['D'] = -1.5 * inputs['A'] @ inputs['B'].T + 3 * inputs['C']"},
                     "cblas_dgemm");
}

TEST_CASE("blas: Gemv with transA and alpha matches NumPy", "[blas][npbench]") {
  check_library_case({"gemv",
                      "gemv.Gemv",
                      {{"A", {"K", "M"}}, {"x", {"K"}}, {"y", {"M"}}},
                      {{"_A", "A", "0:K, 0:M"}, {"_x", "x", "0:K"}},
                      {{"_y", "y", "0:M"}},
                      {{"transA", "true"}, {"alpha", "1.5"}},
                      "expected['y'] = 1.5 * inputs['A'].T @ inputs['x']"},
                     "cblas_dgemv");
}

TEST_CASE("blas: Gemv along rows with alpha and beta in place matches NumPy", "[blas][npbench]") {
  // The pure loops take eight rows at a time (rows of A along k); 300 and 7 leave remainders.
  check_library_case({"gemv_rows",
                      "gemv.Gemv",
                      {{"A", {"M", "K"}}, {"x", {"K"}}, {"y", {"M"}}},
                      {{"_A", "A", "0:M, 0:K"}, {"_x", "x", "0:K"}, {"_y", "y", "0:M"}},
                      {{"_y", "y", "0:M"}},
                      {{"alpha", "2.0"}, {"beta", "0.5"}},
                      "expected['y'] = 2.0 * inputs['A'] @ inputs['x'] + 0.5 * inputs['y']"},
                     "cblas_dgemv");
}

TEST_CASE("blas: float32 MatMul matches NumPy", "[blas][npbench]") {
  BlasCase c{"matmul_f32",
             "matmul.MatMul",
             {{"A", {"M", "K"}}, {"B", {"K", "N"}}, {"C", {"M", "N"}}},
             {{"_a", "A", "0:M, 0:K"}, {"_b", "B", "0:K, 0:N"}},
             {{"_c", "C", "0:M, 0:N"}},
             {},
             "expected['C'] = inputs['A'] @ inputs['B']"};
  c.dtype = ScalarType::Float32;
  check_library_case(c, "cblas_sgemm");
}

TEST_CASE("blas: weir's cpu schedules give BLAS nodes without an implementation OpenBLAS",
          "[blas][npbench]") {
  BlasCase c{"sched",
             "matmul.MatMul",
             {{"A", {"M", "K"}}, {"B", {"K", "N"}}, {"C", {"M", "N"}}},
             {{"_a", "A", "0:M, 0:K"}, {"_b", "B", "0:K, 0:N"}},
             {{"_c", "C", "0:M, 0:N"}},
             {},
             ""};
  auto sdfg = test::build_library_case(c, "");
  transforms::AnalysisCache cache;
  transforms::CpuSchedules().run(*sdfg, cache);
  LibraryNode* ln = nullptr;
  for (Node* n : sdfg->all_states()[0]->nodes())
    if (auto* l = n->as<LibraryNode>()) ln = l;
  REQUIRE(ln);
  CHECK(ln->implementation == "OpenBLAS");
  auto pure = test::build_library_case(c, "pure");
  transforms::AnalysisCache cache2;
  transforms::CpuSchedules().run(*pure, cache2);  // an explicit choice stays
  for (Node* n : pure->all_states()[0]->nodes())
    if (auto* l = n->as<LibraryNode>()) CHECK(l->implementation == "pure");
}

// DaCe's Einsum node (dace.libraries.blas.nodes.einsum.Einsum): operands on connectors taken in
// sorted order, `einsum_str`, `alpha`, `beta`; one loop nest for every implementation.
TEST_CASE("blas: Einsum contractions, a transpose, a diagonal and alpha/beta match NumPy",
          "[blas][npbench]") {
  auto einsum = [](BlasCase c) {
    c.cls = "einsum.Einsum";
    return c;
  };
  check_library_case(einsum({"einsum_matmul",
                             "",
                             {{"A", {"M", "K"}}, {"B", {"K", "N"}}, {"C", {"M", "N"}}},
                             {{"a", "A", "0:M, 0:K"}, {"b", "B", "0:K, 0:N"}},
                             {{"out", "C", "0:M, 0:N"}},
                             {{"einsum_str", "\"ik,kj->ij\""}},
                             "expected['C'] = np.einsum('ik,kj->ij', inputs['A'], inputs['B'])"}),
                     "");
  check_library_case(einsum({"einsum_3d",
                             "",
                             {{"A", {"M", "K", "N"}}, {"B", {"N", "K"}}, {"C", {"N", "M"}}},
                             {{"a", "A", "0:M, 0:K, 0:N"}, {"b", "B", "0:N, 0:K"}},
                             {{"out", "C", "0:N, 0:M"}},
                             {{"einsum_str", "\"ikj,jk->ji\""}, {"alpha", "\"2.0\""}, {"beta", "\"0.5\""}},
                             "expected['C'] = 2.0 * np.einsum('ikj,jk->ji', inputs['A'], inputs['B']) + "
                             "0.5 * inputs['C']"}),
                     "");
  check_library_case(einsum({"einsum_implicit_trace",
                             "",
                             {{"A", {"M", "M"}}, {"x", {"M"}}, {"r", {"1"}}},
                             {{"a", "A", "0:M, 0:M"}, {"b", "x", "0:M"}},
                             {{"out", "r", "0"}},
                             {{"einsum_str", "\"ii,i\""}},
                             "expected['r'] = np.array([np.einsum('ii,i', inputs['A'], inputs['x'])])"}),
                     "");
}
