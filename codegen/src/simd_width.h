// The SIMD width of an innermost loop (simd_width.cpp, docs/adr/0055, "session 33" and "session
// 35"): whether its `#pragma omp simd` asks for every lane of the machine's vector registers, or
// for half of them over long rows read at shifted offsets.
#pragma once

#include <cstddef>
#include <optional>

#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

namespace weir::codegen::detail {

/// What the lanes of a contiguous SIMD loop depend on (contiguous_simd_loop).
struct ContiguousLoop {
  /// The widest element the loop moves, in bytes.
  std::size_t element_bytes = 0;
  /// Some container is accessed at two offsets along the parameter whose distance is not a whole
  /// number of 64-byte cache lines (a 2-D stencil's `A[i, j - 1]`, `A[i, j]`, `A[i, j + 1]`): at
  /// most one of them starts its vectors on a line, so each 512-bit access of the others spans
  /// two lines, where a 256-bit one spans two at every other access. Over long rows such a loop
  /// ran up to 1.6x faster with 256-bit vectors on an AVX-512 machine, over short ones (K = 80)
  /// 1.1x slower (docs/adr/0055, "session 35"): the code generator chooses by the trip count at
  /// run time (`weir_simd_long_row` of the prelude).
  bool shifted = false;
};

/// The contiguous SIMD loop of the one-parameter sequential map `e`, when every access on its
/// scope's boundary (the memlets out of its entry and into its exit) is one element that is either
/// contiguous in the parameter (the parameter plus a constant in the last dimension of an array
/// whose last stride is 1, and in no other dimension) or the same for every point; nullopt
/// otherwise (a strided, gathered, dynamic or ranged access, a conflict-resolved write, a
/// container of unknown or complex type). Such a loop reads and writes whole vectors of
/// consecutive elements, so it gets all the lanes of the widest registers the target has
/// (`WEIR_SIMD_FULL(bytes)` of the prelude: `simdlen(64 / bytes)` under AVX-512, where GCC's
/// tuning for Intel's cores otherwise stops at 256-bit vectors), or, where it is `shifted` and its
/// rows are long, half of them (`WEIR_SIMD_HALF(bytes)`); a loop of gathers or of stride accesses
/// keeps the compiler's choice (a masked 512-bit pass of gathers measured slower than two 256-bit
/// ones, docs/adr/0041, session 29).
std::optional<ContiguousLoop> contiguous_simd_loop(const SDFG& sdfg, const SDFGState& st, const MapEntry& e);

}  // namespace weir::codegen::detail
