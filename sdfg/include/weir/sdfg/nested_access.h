// Memlet propagation out of nested SDFGs, as an analysis (DaCe's propagate_memlets_nested_sdfg,
// ADR 0062): which elements of a container the body of an SDFG touches, and so which part of
// the caller's container a nested SDFG node touches through a connector, whatever its outer
// memlet says (LoopToMap and the frontend give nested SDFGs whole-array memlets).
//
// The region is the hull, per dimension, of the memlets at the container's accesses in every
// state: the memlets of the edges at the dataflow's leaves (a tasklet's, a library node's, a
// copy's, a nested SDFG's - its own region, recursively), widened over the ranges of the maps
// around them and of the loops (LoopRegions read as for loops) around their states, innermost
// first. A bound a*v + b of such a variable v (a of known sign) moves to the variable's
// first or last value; any other bound, and a bound left with a symbol the SDFG defines itself
// (an interstate assignment, a while loop's variable, a dynamic map input), gives the whole
// dimension. A container the control flow names (a condition, an assignment) is touched whole.
#pragma once

#include <optional>
#include <string>

#include "weir/sdfg/nodes.h"
#include "weir/sdfg/sdfg.h"

namespace weir {

/// The elements of `sdfg`'s container `data` that its states read or write, in `sdfg`'s free
/// symbols (see the top of this header); nullopt when no state accesses it. Throws IRError if
/// `data` is not a container of `sdfg`.
std::optional<Subset> accessed_region(const SDFG& sdfg, const std::string& data);

/// The part of the caller's container that nested SDFG `n` touches through connector `conn`,
/// whose memlet in the caller is `outer` (of a container described by `outer_desc`): the
/// connector's accessed_region in the caller's symbols (`n.symbol_mapping`), moved by the start
/// of `outer` (a connector of fewer dimensions takes the dimensions of `outer` that are not a
/// single index, in order). `outer.subset` where that cannot be said: the body does not touch
/// the connector, `outer` has a step other than 1 or names the other end of a copy, or the
/// connector's dimensions or strides are not those of the part of `outer_desc` it maps to.
Subset nested_access_region(const NestedSDFGNode& n, const std::string& conn, const Memlet& outer,
                            const DataDescriptor& outer_desc);

}  // namespace weir
