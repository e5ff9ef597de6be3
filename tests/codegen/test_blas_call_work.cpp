// The size of a C++ tasklet's CBLAS call (codegen/src/blas_call_work.h): a call smaller than
// OpenBLAS's split size is generated without the choice of OpenBLAS's threads (docs/adr/0053,
// "session 35"; the generated code in tests/npbench/test_cblas_expansion.cpp).
#include <catch2/catch.hpp>

#include "../../codegen/src/blas_call_work.h"

using weir::codegen::detail::blas_call_work;

TEST_CASE("blas call work: the sizes of weir's and DaCe's dot, gemv and gemm calls", "[codegen][blas]") {
  CHECK(blas_call_work("__result = cblas_ddot(K, __x, 1, __y, 1);\n") == "(K)");
  CHECK(blas_call_work("_result = cblas_sdot(N - 1, __x, 1, __y, 2);") == "(N - 1)");
  CHECK(blas_call_work(
            "cblas_dgemv(CblasRowMajor, CblasNoTrans, M, K, double(2.0), __A, K, __x, 1, double(0.5), "
            "__y, 1);") == "(M) * (K)");
  CHECK(
      blas_call_work("cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, (K + 1), double(-1.5), __a, "
                     "K, __b, K, double(3), __c, N);") == "(M) * (N) * ((K + 1))");
}

TEST_CASE("blas call work: unknown sizes keep the choice", "[codegen][blas]") {
  // Another routine, two calls, a second statement, a size the code computes, a call that does
  // not end the code, a wrong argument count, an assignment to an element.
  CHECK_FALSE(blas_call_work("cblas_dscal(N, 2.0, __x, 1);"));
  CHECK_FALSE(blas_call_work("a = cblas_ddot(K, __x, 1, __y, 1);\nb = cblas_ddot(K, __x, 1, __y, 1);"));
  CHECK_FALSE(blas_call_work("int n = K / 2;\n__result = cblas_ddot(n, __x, 1, __y, 1);"));
  CHECK_FALSE(blas_call_work("__result = cblas_ddot(K / 2, __x, 1, __y, 1);"));
  CHECK_FALSE(blas_call_work("__result = cblas_ddot(sizes[0], __x, 1, __y, 1);"));
  CHECK_FALSE(blas_call_work("__result = cblas_ddot(K, __x, 1, __y, 1) * 2.0;"));
  CHECK_FALSE(blas_call_work("__result = cblas_ddot(K, __x, 1, __y);"));
  CHECK_FALSE(blas_call_work("r[0] = cblas_ddot(K, __x, 1, __y, 1);"));
  CHECK_FALSE(blas_call_work("__result = 0.0;"));
}
