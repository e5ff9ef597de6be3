// DaCe's CBLAS expansions mapped back to library nodes (docs/adr/0035-dace-blas-call-recognition.md).
// DaCe's OpenBLAS/MKL expansions of MatMul, Gemm, Gemv and Dot turn each library node into a C++
// tasklet holding one CBLAS call (`cblas_dgemm(CblasColMajor, ...);`), which weir compiles only
// with --trust-code. A tasklet whose code is exactly such a call, and whose sizes, leading
// dimensions and increments agree with its memlets and the containers' strides, computes what
// weir's Gemm, Gemv or Dot node computes on the same memlets: it is replaced by that node.
// Anything else stays a C++ tasklet.
#pragma once

#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"

namespace weir::transforms {

/// One tasklet replaced by a library node.
struct RecognizedBlasCall {
  std::string sdfg;          ///< the (nested) SDFG's name
  std::string state;         ///< the state's label
  std::string tasklet;       ///< the tasklet's label (the library node keeps it)
  NodeId tasklet_id = 0;     ///< the tasklet's id in its state before the replacement
  std::string function;      ///< the CBLAS function called ("cblas_dgemm")
  std::string library_node;  ///< the class of the node put in its place ("Gemm", "Gemv", "Dot")
  std::string attributes;    ///< its attributes other than the defaults ("transA, alpha 2"), or ""
  /// "SDFG 'gemm', state 'main', tasklet '_MatMult_gemm' (node 16): cblas_dgemm -> Gemm".
  std::string str() const;
};

/// Why a C++ tasklet that calls CBLAS was left as it is, for messages and tests.
struct UnrecognizedBlasCall {
  std::string sdfg, state, tasklet;
  NodeId tasklet_id = 0;
  std::string reason;  ///< what did not match ("the leading dimension `NI` does not match NK")
  /// "SDFG 'k', state 's', tasklet 't' (node 4) stays C++ (needs --trust-code): REASON".
  std::string str() const;
};

/// What recognize_dace_blas_calls did.
struct BlasRecognition {
  std::vector<RecognizedBlasCall> recognized;
  /// C++ tasklets whose code mentions `cblas_` and that were not replaced.
  std::vector<UnrecognizedBlasCall> kept;
};

/// Replaces, in `sdfg` and its nested SDFGs, every C++ tasklet whose code is exactly one call of
/// cblas_{s,d}gemm, cblas_{s,d}gemv or `R = cblas_{s,d}dot(...)` on its own connectors, as DaCe's
/// expansions write them, by the library node Gemm (`_a`, `_b` -> `_c`), Gemv (`_A`, `_x` ->
/// `_y`) or Dot (`_x`, `_y` -> `_result`) with implementation "OpenBLAS", on the same memlets.
/// Matched exactly: one statement; constant layout and transpose flags; alpha a number and beta
/// zero; sizes, leading dimensions and increments integer expressions of symbols equal to the
/// memlets' extents and the containers' strides (times the subset step); operands of the
/// function's type; no other connectors, no global/init/exit code. Never throws on bad input:
/// what does not match stays a tasklet (and still needs --trust-code).
BlasRecognition recognize_dace_blas_calls(SDFG& sdfg);

}  // namespace weir::transforms
