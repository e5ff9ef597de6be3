// The size of a C++ tasklet's CBLAS call, as C++ text (blas_call_work.cpp, docs/adr/0053,
// "session 35"): where it is below the size at which OpenBLAS splits a call over its threads, the
// call runs on one thread whatever its count, and the code generator calls it without choosing
// the count (codegen/prelude/weir_blas_threads.h).
#pragma once

#include <optional>
#include <string>

namespace weir::codegen::detail {

/// The elements of work of `code` when it is one statement that calls one of the CBLAS routines
/// `cblas_sdot` / `cblas_ddot` (n), `cblas_?gemv` (M x N) or `cblas_?gemm` (M x N x K), optionally assigning
/// its result (`__result = cblas_ddot(K, __x, 1, __y, 1);`, the forms of ADR 0040's expansions and of
/// DaCe's), as a C++ product of the call's size arguments; nullopt for any other code: another
/// routine, several statements or calls, a size argument that is not an integer expression of
/// names and literals (+, -, *, parentheses; a name declared by the code itself could not be read
/// before the call). The sizes are the call's own arguments, so the text is valid where the call is.
std::optional<std::string> blas_call_work(const std::string& code);

}  // namespace weir::codegen::detail
