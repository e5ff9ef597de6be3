// Tiling of a stencil map's second dimension when its reuse window exceeds the L2 cache
// (cpu-schedules' `l2_tiling`; docs/adr/0059, session 37). Internal to the transforms layer.
#pragma once

#include <cstddef>

#include "weir/sdfg/state.h"

namespace weir::transforms::detail {

/// The L2 cache of the machine that optimizes, in bytes: sysconf(_SC_LEVEL2_CACHE_SIZE), else
/// sysfs (cpu0's level-2 data or unified cache), else 1 MiB.
long long machine_l2_bytes();

/// Tiles the second dimension (J) of every top-level map of `st` (Default or CPU_Multicore
/// schedule, three or more unit-step parameters, no dynamic range inputs, the last parameter
/// indexing the contiguous dimension of a container it reads or writes) that reads some array
/// with constant offsets along its first parameter (I), when the planes of those arrays that
/// one thread keeps while it sweeps I (the reuse window: per array, offsets spanned in I times
/// the points of J and of the further dimensions times the element size) exceed half of
/// `l2_bytes`. The map `[I, J, K...]` becomes `[tile_J, I]` (J's range with step T) around a
/// map `[J]` over `tile_J : Min(end, tile_J + T - 1)` around a map `[K...]` (labelled as
/// cpu-schedules' split labels its inner map): a thread sweeps I within one J tile, whose
/// window fits in half of L2. T spreads J evenly over the fewest tiles of at most
/// `floor(l2_bytes / 2 / column)` points (column: the window's bytes per point of J, at least
/// one point per tile). Sizes known when optimizing: a map whose window fits is left alone.
/// Symbolic sizes: T is an expression of the symbols, evaluated when the map runs (one tile
/// when the window fits then). A map reading with an offset that is not constant along I (an
/// indirection) or without offsets along I is no stencil of this kind and is left alone.
/// Returns the number of maps tiled.
std::size_t tile_j_for_l2(SDFGState& st, long long l2_bytes);

}  // namespace weir::transforms::detail
