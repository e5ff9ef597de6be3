// How often the control flow of a region mentions each name (defined in analysis.cpp, beside
// the container-use counts it shares its walk with).
#pragma once

#include <map>
#include <string>

#include "weir/sdfg/sdfg.h"

namespace weir::transforms {

/// How often the control flow inside `r` mentions each name: its interstate edges (conditions,
/// assignment targets and values), and the headers of the loops and the branch conditions of the
/// blocks inside it, recursively (not `r`'s own header; not nested SDFGs). The counts
/// DataUse::in_control_flow is derived from when `r` is the whole SDFG.
std::map<std::string, int> control_flow_mentions(const ControlFlowRegion& r);

}  // namespace weir::transforms
