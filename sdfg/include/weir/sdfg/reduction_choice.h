// Per-thread reductions of a parallel map: which write-conflict-resolved outputs of a map run on
// OpenMP's threads are combined in a per-thread partial (one element that every iteration
// updates: `s += a[i]`) and which containers get a per-thread copy (a scatter into a small
// container: `hist[bin(x[i])] += 1`). Both change what threads compute before combining, so they
// are verdicts of an analysis that proves them (the map never reads the container, every write
// of it reassociates with one operator), not guesses. The scheduling pass (cpu-schedules)
// records them on the map as kPartialsAttribute and kPrivatizedAttribute; the CPU code generator
// reads them, and for maps without a record (an SDFG from DaCe or written by hand) asks the same
// functions itself, so both decide alike. A record may name fewer containers than the analysis
// proves (then the others keep atomics), never others. ADR 0034.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "weir/sdfg/nodes.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

namespace weir {

/// The map attribute (MapInfo::extra, a JSON array of strings) naming the containers whose
/// write-conflict-resolved writes of one element per map run are combined in per-thread
/// partials (partial_reductions). A weir extension DaCe ignores, as kThreadsAttribute.
inline constexpr const char* kPartialsAttribute = "weir_partials";
/// The map attribute (a JSON array of strings) naming the containers the map's threads update
/// in copies of their own, combined after the loops (privatizable_containers).
inline constexpr const char* kPrivatizedAttribute = "weir_privatized";

/// The compound operator of write-conflict resolution `wcr` (a Python lambda `lambda a, b: a + b`)
/// that threads may reassociate: "+" or "*", and "&", "|", "^" on non-floating `t`; "" for any
/// other lambda (min, max, subtraction) and for text that is no lambda of two arguments. Never
/// throws.
std::string reassociable_operator(const std::string& wcr, ScalarType t);

/// A write of a tasklet directly in a map's scope, through its out-connector `connector` into
/// the map exit, of one element of `data` that is the same in every iteration.
struct PartialReduction {
  NodeId tasklet = kNoNode;
  std::string connector;
  std::string data;
};
/// The WCR writes of tasklets in `body` (map `e`'s direct children, in the caller's order) into
/// `e`'s exit whose subset is one point that no parameter of `e` or dynamic range input moves,
/// of a container the map does not read (a tasklet would see it stale), through a connector with
/// that one write: per-thread partials of them are the same sums in another association.
std::vector<PartialReduction> partial_reductions(const SDFGState& st, const MapEntry& e,
                                                 const std::vector<NodeId>& body);

/// A container of `sdfg` that map `e` only updates with one reassociable operator `op` and
/// never reads. `scattered`: some write is not of the iteration's own element (those need
/// atomics, which per-thread copies avoid).
struct PrivatizableContainer {
  std::string data;
  std::string op;
  ScalarType type = ScalarType::Float64;
  bool scattered = false;
};
/// The containers map `e` of `st` (in `sdfg`, whose `arrays` describe them) writes through its
/// exit that per-thread copies may replace: not a view, of element offset 0 and of an arithmetic
/// type (not bool, float16 or complex), accepted by `plain` (the caller's knowledge of how it is
/// bound: a name of its own memory); every edge of `scope` (the nodes of `e`'s scope: entry,
/// nodes inside, exits) that touches it writes it with one reassociable WCR (a nested SDFG's
/// writes inside carry it, map exits pass it on), and nothing reads it. `own_elements(subset)`:
/// whether concurrent iterations writing `subset` touch disjoint elements (sets `scattered`).
std::vector<PrivatizableContainer> privatizable_containers(
    const SDFG& sdfg, const SDFGState& st, const MapEntry& e, const std::vector<NodeId>& scope,
    const std::function<bool(const std::string&)>& plain,
    const std::function<bool(const Subset&)>& own_elements);

/// The nodes of map `entry`'s scope in `st` (`tree`: its scope tree): the entry, every node inside
/// (nested scopes too) and the exits of the maps among them.
std::vector<NodeId> scope_nodes(const SDFGState& st, const ScopeTree& tree, NodeId entry);

/// Writes `names` into `m`'s attribute `attribute` (kPartialsAttribute or kPrivatizedAttribute)
/// as a JSON array of strings, sorted.
void record_reduction_names(MapInfo& m, const char* attribute, const std::set<std::string>& names);
/// Removes both attributes from `m`; true when one was there.
bool clear_reductions(MapInfo& m);
/// The names recorded in `m`'s `attribute`, nullopt when it is absent. Throws
/// std::invalid_argument naming the attribute and its value when it is not a JSON array of
/// strings.
std::optional<std::set<std::string>> recorded_reduction_names(const MapInfo& m, const char* attribute);

}  // namespace weir
