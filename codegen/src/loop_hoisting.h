// Loop-invariant code motion out of a sequential innermost map (loop_hoisting.cpp, ADR 0041):
// which maps qualify, and which connectors of their hoisted tasklet hold the same value in every
// iteration. StateGen::emit_map asks the first two, its tasklet's emission the third.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "state_codegen.h"

namespace weir::codegen::detail {

/// The tasklet of map `e`'s scope (`nodes`: StateGen::scope_nodes, in `st` of `sdfg`) whose
/// invariant part may run before the loops: the scope holds only Python tasklets and transient
/// scalars between them, and of the tasklets the one with the most inputs, when no other tasklet
/// there writes a container it reads (the one tasklet of a field-view K map; a fusion's producer
/// copy beside its consumer, ADR 0052); kNoNode otherwise.
NodeId hoisted_tasklet(const SDFG& sdfg, const SDFGState& st, const MapEntry& e,
                       const std::vector<NodeId>& nodes);
/// C++ that is true when map `e`'s loops run at least once, when its body (with a
/// hoisted_tasklet) can be hoisted from: steps (`sign`: each dimension's step sign) of +1 or -1
/// and bounds that do not use its own parameters (sets `loops.params`); nullopt otherwise.
std::optional<std::string> hoisting_guard(const MapEntry& e, const std::vector<std::optional<int>>& sign,
                                          LoopHoist& loops);
/// For the tasklet `t` of a map that hoists (`loops`: its plan): the input connectors whose value
/// is the same in every iteration (memlets without the loops' parameters, containers the tasklet
/// does not write, names the code does not assign); adds the others to `loops.variant`.
std::set<std::string> invariant_connectors(const Tasklet& t, const std::vector<Conn>& ins,
                                           const std::vector<Conn>& outs, LoopHoist& loops);

}  // namespace weir::codegen::detail
