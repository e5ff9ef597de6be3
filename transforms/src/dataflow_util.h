// Helpers shared by the dataflow transformations (private to the transforms layer).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "weir/sdfg/for_loop.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"
#include "weir/transforms/analysis.h"

namespace weir::pycode {
class Code;
struct Expr;
}  // namespace weir::pycode

namespace weir::transforms::detail {

using weir::single_assignment;

/// Whether `s` is all of a container of `shape`: 0:shape[d]-1 with step 1 in every dimension.
bool covers_all(const Subset& s, const std::vector<sym::Expr>& shape);

/// Nodes strictly inside the scope of `entry` (all depths), excluding entry and exit.
std::vector<NodeId> scope_body(const SDFGState& st, const ScopeTree& tree, NodeId entry);

/// The map entry directly nested in `outer` with nothing in between: every out-edge of `outer`
/// goes to it and every in-edge of outer's exit comes from its exit. kNoNode otherwise;
/// `why` then says what is in the way.
NodeId directly_nested_map(const SDFGState& st, const MapEntry& outer, std::string& why);

/// The memlet on the edge entering `entry` at IN_<x> for the connector OUT_<x> (or the
/// memlet leaving `exit` at OUT_<x> for IN_<x>); nullopt if there is no such edge.
std::optional<Memlet> outer_memlet_of_entry(const SDFGState& st, NodeId entry, const std::string& out_conn);
std::optional<Memlet> outer_memlet_of_exit(const SDFGState& st, NodeId exit, const std::string& in_conn);

/// Python text of a symbolic expression, for code (tasklets, loop conditions, interstate
/// edges): sympy's Min/Max/Abs become Python's min/max/abs, which code generators translate.
std::string python_expr(const sym::Expr& e);

/// Substitutes symbols in everything the scope of `entry` contains: memlets of edges inside the
/// scope (including entry out-edges and exit in-edges), ranges of nested maps, tasklet code and
/// nested SDFG symbol mappings.
void substitute_in_scope(SDFGState& st, const ScopeTree& tree, NodeId entry,
                         const std::map<std::string, sym::Expr>& m);

/// Substitutes symbols in a memlet (subset, other_subset, volume).
void substitute_memlet(Memlet& mem, const std::map<std::string, sym::Expr>& m);

/// A name for a new map parameter: `base`, `base_0`, ... not used by a container, symbol or a
/// parameter of any map in the state.
std::string fresh_param(const SDFG& sdfg, const SDFGState& st, const std::string& base);

/// The map's dynamic range inputs (input connectors not named IN_*), empty if none, as
/// "'b0', 'e1'"; transformations that move ranges refuse such maps.
std::string dynamic_inputs(const MapEntry& me);

/// Why a per-parameter list option (one value per map parameter, the last repeated for further
/// parameters) does not fit map `m`: it has more values than the map has parameters, which would
/// be dropped silently ("tile_sizes has 3 values (32, 8, 4) but map 'm' has 2 parameters (i, j);
/// give at most 2"); empty when it fits.
std::string too_many_per_parameter(const std::string& option, const std::vector<long long>& values,
                                   const MapInfo& m);

/// Copies the dataflow of `from` into `into`: every node `id` does not map yet (to a node of
/// `into`) is cloned, then every edge; copied map entries and exits are linked again and share
/// their Map. Afterwards `id` maps every node of `from` to its node in `into` (state fusion).
void copy_dataflow(const SDFGState& from, SDFGState& into, std::map<NodeId, NodeId>& id);

/// The inner map of an [outer MapEntry, inner MapEntry] match (`sub`): the map directly nested
/// in `outer`, neither of them with dynamic range inputs; else null and `why` says why not.
const MapEntry* nested_static_map(const SDFGState& st, const MapEntry& outer,
                                  const std::vector<std::uint32_t>& sub, std::string& why);

/// Containers of `sdfg` that are transient (not views or streams) and used only by the access
/// nodes in `body` (nodes of `st`): no other access node in any state, no control flow, no
/// tasklet or symbol mapping naming them. What a map rewrite may reshape or copy freely.
std::set<std::string> transients_local_to(const SDFG& sdfg, AnalysisCache& cache, const SDFGState& st,
                                          const std::vector<NodeId>& body);

/// "i", "j": the parameter list of a map as text.
std::string join(const std::vector<std::string>& v, const std::string& sep = ", ");

}  // namespace weir::transforms::detail

namespace weir::transforms::detail {

/// Puts the (fresh, unconnected) map `inner` directly inside `entry`: every out-edge of `entry`
/// now leaves `inner` (same connectors), `entry` OUT_x feeds `inner` IN_x with the memlet that
/// enters `entry` at IN_x; the same mirrored at the exits. An ordering edge links the two when
/// no data does.
void insert_map_inside(SDFGState& st, MapEntry& entry, MapEntry& inner);
/// Puts the (fresh, unconnected) map `outer` around `entry`: every in-edge of `entry` now enters
/// `outer` (same connectors) and `outer` OUT_x feeds `entry` IN_x; mirrored at the exits.
void insert_map_outside(SDFGState& st, MapEntry& entry, MapEntry& outer);

}  // namespace weir::transforms::detail
