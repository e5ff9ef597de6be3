// Free symbols of an SDFG by DaCe 2.0's rule, which DaCe's validation applies to the symbol
// mapping of a nested SDFG node.
#pragma once

#include <set>
#include <string>

#include "weir/sdfg/sdfg.h"

namespace weir {

/// Free symbols of `sdfg` as DaCe 2.0 computes them (SDFG.free_symbols), which a nested SDFG
/// node's symbol mapping must cover: every declared symbol the control flow does not define
/// (map parameters define a symbol only inside their state; an interstate assignment of a symbol
/// read before it, in breadth-first order from the start block, defines nothing), and whatever
/// the graph reads (descriptors, memlets, map ranges, conditions, assignments, the names Python
/// tasklets read). Differs from SDFG::free_symbols(), which counts a symbol defined anywhere as
/// defined everywhere. Never throws; invalid Python code reads nothing here.
std::set<std::string> dace_free_symbols(const SDFG& sdfg);

}  // namespace weir
