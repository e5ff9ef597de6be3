// Loop-invariant code motion out of a sequential innermost map (loop_hoisting.cpp, ADR 0041):
// which maps qualify, and which connectors of their one tasklet hold the same value in every
// iteration. StateGen::emit_map asks the first, its tasklet's emission the second.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "state_codegen.h"

namespace weir::codegen::detail {

/// C++ that is true when map `e`'s loops run at least once, when its body can be hoisted from:
/// a sequential map whose scope (`nodes`: StateGen::scope_nodes) holds exactly one Python
/// tasklet, with steps (`sign`: each dimension's step sign) of +1 or -1 and bounds that do not
/// use its own parameters (sets `loops.params`); nullopt otherwise.
std::optional<std::string> hoisting_guard(const SDFGState& st, const MapEntry& e,
                                          const std::vector<NodeId>& nodes,
                                          const std::vector<std::optional<int>>& sign, LoopHoist& loops);
/// For the tasklet `t` of a map that hoists (`loops`: its plan): the input connectors whose value
/// is the same in every iteration (memlets without the loops' parameters, containers the tasklet
/// does not write, names the code does not assign); adds the others to `loops.variant`.
std::set<std::string> invariant_connectors(const Tasklet& t, const std::vector<Conn>& ins,
                                           const std::vector<Conn>& outs, LoopHoist& loops);

}  // namespace weir::codegen::detail
