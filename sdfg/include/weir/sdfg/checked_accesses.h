// Accesses a transformation removed whose run-time bounds checks must stay (ADR 0005, 0052).
// A fusion by recomputation (otf-map-fusion, greedy-map-fusion) removes the producer map A and
// the consumer B's read of the transient T between them: their outer memlets were what the
// code generator's run-time bounds checks tested (A's reads of its inputs over A's whole range,
// B's read of T against T's shape), so a call that failed before would run silently after the
// fusion. The fusion records those accesses on the fused map as kCheckedAccessesAttribute; the
// CPU code generator checks each of them before the map runs, as it checks the map's own outer
// memlets, with the same message (the container, its dimension, the range read and the
// container's extent, and the map the access came from). The record keeps the container's
// shape and offset, so T may be gone from the SDFG.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "weir/sdfg/nodes.h"
#include "weir/sdfg/subset.h"
#include "weir/sdfg/symbolic.h"

namespace weir {

/// The map attribute (MapInfo::extra, a JSON array of objects) holding the CheckedAccess records
/// of a map. A weir extension DaCe ignores.
inline constexpr const char* kCheckedAccessesAttribute = "weir_checked_accesses";

/// One access that the map no longer makes but whose bounds are still checked before it runs.
struct CheckedAccess {
  std::string data;               ///< the container accessed (may no longer exist)
  Subset subset;                  ///< the range accessed (free of the map's parameters)
  std::vector<sym::Expr> shape;   ///< the container's shape when the access was removed
  std::vector<sym::Expr> offset;  ///< and its offset (empty: all zero)
  bool write = false;             ///< a write (else a read)
  std::string scope;              ///< where the access was, for the error: "map 'laplace_map'"
  std::string debuginfo;          ///< DaCe DebugInfo JSON of the access (its memlet's, else its map's), or ""
  std::vector<std::string> dims;  ///< the container's dimensions (field_dims.h), or empty
  bool operator==(const CheckedAccess&) const = default;
};

/// Adds `more` to `m`'s record (kCheckedAccessesAttribute), keeping those already there and
/// skipping duplicates; nothing is written when both are empty.
void add_checked_accesses(MapInfo& m, const std::vector<CheckedAccess>& more);

/// The records of `m` (empty without the attribute). Throws std::invalid_argument naming the
/// attribute and the offending text when it is not a JSON array of such objects (`data`,
/// `subset` and `shape` required; subsets and expressions as weir's text forms).
std::vector<CheckedAccess> checked_accesses(const MapInfo& m);

/// The symbols `m`'s records read (subsets, shapes, offsets): the map's checks need them, so the
/// SDFG's free symbols and a state's uses include them. Empty for a malformed record (the code
/// generator reports it); never throws.
std::set<std::string> checked_access_symbols(const MapInfo& m);

}  // namespace weir
