// The read/write sets of a state: the containers it accesses and the names its code, memlets,
// map ranges, nested-SDFG symbol mappings and the descriptors of those containers read (as
// DaCe's SDFGState.read_and_write_sets and free symbols together). Code generators take the
// parameters of a state's function from it.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

namespace weir {

struct StateUses {
  /// Containers of access nodes and memlets.
  std::set<std::string> containers;
  /// Names read: symbols of memlet subsets and volumes, map ranges, nested-SDFG symbol
  /// mappings, the shapes, strides, offsets and sizes of `containers`, and every name tasklet
  /// code uses (code_names: Python from its tree, C++ identifiers). A superset of the symbols
  /// the state reads; connectors and locals of tasklets are in it too.
  std::set<std::string> names;
};

/// The uses of `st`, a state of `sdfg` (nested SDFGs count through their symbol mappings and
/// connected memlets, not their insides). Throws pycode::SourceError on invalid Python (validate()
/// reports it first).
StateUses state_uses(const SDFG& sdfg, const SDFGState& st);

/// The same for part of `st`: the nodes `nodes` (e.g. a map scope: its entry, every node inside
/// and the exits) and every edge with an end among them, so a scope's uses include what its
/// outer memlets carry in and out. Code generators take the parameters of a scope's function
/// (a CUDA kernel) from it. Throws pycode::SourceError on invalid Python.
StateUses node_uses(const SDFG& sdfg, const SDFGState& st, const std::vector<NodeId>& nodes);

}  // namespace weir
