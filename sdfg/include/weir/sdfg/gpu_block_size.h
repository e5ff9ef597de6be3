// Which thread-block sizes fit a GPU kernel map. A kernel's threads cover its parameters as x (the
// last parameter), y (the one before) and z (the rest, linearised); a block of more than one
// thread along a dimension the kernel does not have runs every point that many times (a sum into
// a WCR output would count each term twice). The gpu-schedules pass refuses such an option and
// the CUDA code generator refuses such a MapInfo::gpu_block_size (ADR 0020).
#pragma once

#include <string>
#include <vector>

#include "weir/sdfg/nodes.h"

namespace weir {

/// Why `block` (threads along x, y, z) does not fit kernel map `m`: more than three values, or
/// more than one thread along a dimension past the kernel's parameters ("block (64, 2, 1) has 2
/// threads along y, but map 'm' has 1 parameter (i): each point would run 2 times; give 1
/// there"); empty when it fits. Thread counts themselves (1..1024) are checked where they are read.
std::string gpu_block_size_misfit(const std::vector<long long>& block, const MapInfo& m);

}  // namespace weir
