// The read/write sets of a state: the containers it accesses and the names its code, memlets,
// map ranges, nested-SDFG symbol mappings and the descriptors of those containers read (as
// DaCe's SDFGState.read_and_write_sets and free symbols together). Code generators take the
// parameters of a state's function from it.
#pragma once

#include <set>
#include <string>

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

}  // namespace weir
