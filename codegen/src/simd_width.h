// The SIMD width of an innermost loop (simd_width.cpp, docs/adr/0055, "session 33"): whether
// its `#pragma omp simd` asks for every lane of the machine's vector registers.
#pragma once

#include <cstddef>
#include <optional>

#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

namespace weir::codegen::detail {

/// The widest element, in bytes, that the loop of the one-parameter sequential map `e` moves, when
/// every access on its scope's boundary (the memlets out of its entry and into its exit) is one
/// element that is either contiguous in the parameter (the parameter plus a constant in the last
/// dimension of an array whose last stride is 1, and in no other dimension) or the same for every
/// point; nullopt otherwise (a strided, gathered, dynamic or ranged access, a conflict-resolved
/// write, a container of unknown or complex type). Such a loop reads and writes whole vectors of
/// consecutive elements, so it gets all the lanes of the widest registers the target has
/// (`WEIR_SIMD_FULL(bytes)` of the prelude: `simdlen(64 / bytes)` under AVX-512, where GCC's
/// tuning for Intel's cores otherwise stops at 256-bit vectors); a loop of gathers or of stride
/// accesses keeps the compiler's choice (a masked 512-bit pass of gathers measured slower than two
/// 256-bit ones, docs/adr/0041, session 29).
std::optional<std::size_t> full_width_element_bytes(const SDFG& sdfg, const SDFGState& st, const MapEntry& e);

}  // namespace weir::codegen::detail
