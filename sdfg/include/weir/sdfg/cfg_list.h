// The numbering of control-flow regions DaCe calls cfg_id (its SDFG.cfg_list): matches of
// transformations and instrumentation reports name a state by (cfg_id, state_id).
#pragma once

#include <vector>

#include "weir/sdfg/sdfg.h"

namespace weir {

/// Every control-flow region of `root` in a fixed pre-order (DaCe's cfg_list): the SDFG itself
/// first (cfg_id 0), then, per block in id order, loops/regions and conditional branch bodies
/// and, per state, the SDFGs of nested SDFG nodes in node-id order, each followed by its own
/// regions.
std::vector<ControlFlowRegion*> cfg_list(const SDFG& root);

}  // namespace weir
