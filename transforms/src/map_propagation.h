// Memlet propagation through one map scope (internal to transforms; memlet_propagation.h has
// the public forms).
#pragma once

#include "weir/sdfg/state.h"

namespace weir::transforms::detail {

/// Propagates the memlets of one map scope outward (IN_x of the entry, OUT_x of the exit from
/// the edges inside), assuming the scopes nested in it are propagated already. Costs the map's
/// edges, not the state: propagate_memlets_scope computes the state's scope tree each time,
/// which made a pass that rebuilt every map of a state O(maps^2).
void propagate_map(SDFGState& st, const MapEntry& entry);

}  // namespace weir::transforms::detail
