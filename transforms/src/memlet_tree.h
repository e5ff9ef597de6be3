// The memlet tree of an edge (as DaCe's SDFGState.memlet_tree): every edge that carries the same
// data through the same scope connectors, fanning out after an entry's OUT_x and in before an
// exit's IN_x. A memlet path (SDFGState::memlet_path) is one branch of it.
#pragma once

#include <vector>

#include "weir/sdfg/state.h"

namespace weir::transforms::detail {

/// The edges of the memlet tree containing `e`, each once, in no particular order. Renaming a
/// container along memlet_path alone misses the other branches (a map entry whose OUT_x feeds
/// several tasklets, an exit whose IN_x collects several writes).
std::vector<EdgeId> memlet_tree(const SDFGState& st, EdgeId e);

}  // namespace weir::transforms::detail
