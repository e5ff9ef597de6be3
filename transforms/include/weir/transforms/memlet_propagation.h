// Memlet propagation (DaCe's propagate_memlets_state / propagate_memlet): the memlets on the
// edges outside a map scope are recomputed from the memlets inside it, widened over the map's
// parameter ranges.
//
// Per dimension of an inner subset, start and end are bounded over each map parameter p in
// [s, e] (inclusive): an index affine in p, `a*p + b`, gives [a*s + b, a*e + b] for a > 0 and
// [a*e + b, a*s + b] for a < 0 (a an integer or of provable sign); an index without p stays;
// Min/Max of such indices are bounded argument-wise. Anything else (p**2, p//2, an index using a
// symbol defined by a dynamic map input) becomes the whole dimension of the container and the
// memlet becomes dynamic. Several inner memlets on one connector give their bounding box
// (Min/Max, simplified where the difference has a known sign assuming symbols >= 0). Volume =
// sum of inner volumes * iterations of the map; dynamic if any inner memlet is.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

namespace weir::transforms {

/// The memlet seen outside `map` for the inner memlets `inner` (all of the same container `desc`
/// describes). `data_dependent` are symbols defined inside the scope by other means than the
/// map parameters (dynamic map inputs): an index using one gives the whole dimension. `outer`
/// is the memlet currently outside (its wcr/allow_oob/is_data_src/extra are kept). nullopt when
/// nothing can be said: no inner memlets, an empty one, or memlets of different containers.
std::optional<Memlet> propagate_memlet(const std::vector<Memlet>& inner, const MapInfo& map,
                                       const DataDescriptor& desc, const Memlet& outer,
                                       const std::set<std::string>& data_dependent = {});

/// Propagates through every map scope of the state, innermost first: each IN_x edge of an
/// entry (OUT_x edge of an exit) gets the propagation of the memlets on the OUT_x (IN_x) edges
/// of the same connector pair. Connectors whose inner memlets disagree on the container, and
/// containers the state's SDFG does not have, are left unchanged. Throws IRError if the state
/// has no SDFG or its scopes cannot be determined.
void propagate_memlets(SDFGState& st);

/// The same for the scope of `entry` and everything nested in it, then for every scope that
/// encloses it, outward (what a transformation that rebuilt one scope needs).
void propagate_memlets_scope(SDFGState& st, NodeId entry);

/// propagate_memlets for every state of the SDFG, nested SDFGs (inner first) included.
void propagate_memlets(SDFG& sdfg);

}  // namespace weir::transforms
