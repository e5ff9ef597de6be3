// Which element inside a map a profile times once per thread: the map's whole body. The CPU code
// generator puts that element's timer around the map's loops (codegen/src/map_codegen.cpp,
// chunk_timer_slot), and instrument-timers' `bounded` mode times nothing else inside a map
// (transforms/src/instrument_timers.cpp); both ask this one rule, so a profile never asks for a
// timer that codegen would then run once per point (ADR 0048).
#pragma once

#include "weir/sdfg/nodes.h"
#include "weir/sdfg/state.h"

namespace weir {

/// Whether map `m` carries auto_optimize's SIMD hint (MapInfo::extra "weir_vectorize": "true", or
/// MapVectorization's lane count): its loop is an `omp simd` loop, which holds no timer.
bool has_simd_hint(const MapInfo& m);

/// The node that is the whole body of the map entered at `entry`, timed once per thread around
/// its loops: the map's only child besides its exit, when that is a map entry, a library node or
/// a nested SDFG call, and the map has no SIMD hint. kNoNode otherwise: an element inside such a
/// map runs its timer once per execution. (Code generated for a GPU device holds no timers at
/// all; the code generator checks that itself.)
NodeId whole_body_timed_once(const SDFGState& st, const ScopeTree& scopes, NodeId entry);

}  // namespace weir
