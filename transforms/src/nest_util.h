// Helpers of the transformations that move control flow or dataflow into a nested SDFG
// (LoopToMap, MapToForLoop) and back out of one (InlineSDFG). Private to the transforms layer.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "weir/sdfg/for_loop.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

namespace weir::transforms::detail {

using weir::ForLoop;
using weir::loop_variable_bounds;
using weir::parse_loop;

/// How a container is touched by a set of states: memlets on edges into access nodes (writes)
/// and out of them (reads), with the access nodes themselves.
struct DataAccesses {
  std::vector<Memlet> reads, writes;
  /// Every access node of the container has in-edges where it has out-edges (each state writes
  /// it before it reads it): its value never flows between states.
  bool written_before_read = true;
  int access_nodes = 0;
};

/// Accesses of every container in the given states (not inside their nested SDFGs).
std::map<std::string, DataAccesses> collect_accesses(const std::vector<SDFGState*>& states);

/// Symbols whose value changes within one pass through `r`'s blocks: map parameters and dynamic
/// map inputs of its states (nested SDFGs excluded), variables of loops inside it, targets of its
/// interstate assignments. An index using one names different elements at different points of
/// one iteration of a loop whose body is `r`, so it proves nothing about two iterations.
std::set<std::string> varying_symbols(const ControlFlowRegion& r);

/// collect_accesses, with each memlet that leads from an access node into a map scope or a
/// nested SDFG replaced by what the scope's inner ends touch: the memlets of the tasklets, library
/// nodes and copies inside (in terms of the map parameters), and through a nested SDFG that is
/// handed a whole container of the same shape, the nested SDFG's own accesses of it (recursively)
/// in the outer SDFG's terms (its symbol mapping substituted; its local symbols renamed
/// `__nested<k>_<name>` and added to `varying`, as are its varying_symbols). Where an inner end
/// cannot be said, the memlet stays as it was (the propagated bounding box, always safe).
std::map<std::string, DataAccesses> collect_leaf_accesses(const std::vector<SDFGState*>& states,
                                                          std::set<std::string>& varying);

/// The label of a map in the states with dynamic range inputs (symbols a nested SDFG could not
/// declare: SDFG::free_symbols counts them as free), or empty.
std::string dynamic_map_in(const std::vector<SDFGState*>& states);

/// Containers named by memlets of the given states (including those without access nodes, such
/// as a transient carried tasklet to tasklet).
std::set<std::string> memlet_data(const std::vector<SDFGState*>& states);

/// Whether any state of `sdfg` (not nested SDFGs) has an access node of or a memlet on `data`.
bool data_referenced(const SDFG& sdfg, const std::string& data);

/// The descriptor a nested SDFG gets for an outer container passed through a connector: not
/// transient, scope lifetime, and a plain Array for a View/Reference (the nested SDFG receives
/// the viewed memory, with the view's shape and strides, and has no `views` edge of its own);
/// Register storage (valid for transients only) becomes Default.
DataDescriptor as_argument(DataDescriptor d);

/// After cloning nodes from `src` into `dst` (old id -> new id in `nm`): cloned map entries and
/// exits point at each other again and share one MapInfo, as the originals did.
void relink_cloned_maps(const SDFGState& src, SDFGState& dst, const std::map<NodeId, NodeId>& nm);

/// An identifier made from `label` (non-identifier characters become '_').
std::string identifier_from(const std::string& label);

/// Containers of `outer` that the moved control flow or code of `inner` (a fresh nested SDFG
/// whose containers are set) reads by name, such as `start = A_row[i]` on an interstate edge:
/// each becomes an argument of `inner` (as_argument), and the names are returned, to be passed
/// as inputs through connectors. Without this they would look like free symbols of `inner`.
std::vector<std::string> nest_data_read_by_name(const SDFG& outer, SDFG& inner);

/// Fills the symbols of `inner` (a fresh nested SDFG whose containers are set) from `outer`:
/// every free symbol of `inner` gets the outer type (int64 if the outer SDFG does not declare
/// it) and an identity entry in the returned symbol mapping. Throws std::logic_error for a free
/// symbol that is a container of `outer` (nest_data_read_by_name passes those first).
std::map<std::string, sym::Expr> nest_symbols(const SDFG& outer, SDFG& inner);

/// A fresh state label in `sdfg` (not used by any block of any region of it): `base`,
/// `base_0`, ...
std::string fresh_state_label(const SDFG& sdfg, const std::string& base);

/// Replaces block `old` of `r` by `repl` (a block of `r`): every edge into/out of `old` now
/// enters/leaves `repl`, the explicit start moves too, and `old` is removed.
void replace_block(ControlFlowRegion& r, BlockId old, BlockId repl);

}  // namespace weir::transforms::detail
