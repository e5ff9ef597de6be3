// Domains bounded by a program's scalar arguments along a dimension that a decomposition or a
// partition splits: gt4py's `domain={I: (1, ni - 1)}` (Cartesian) or `domain={Cell: (0,
// n_cells)}` (unstructured) instead of an `out=` slice or the whole field. The values the user
// gives are global; on a rank they would describe another range (docs/adr/0057, section
// "2026-12-06, session 29").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "weir/runtime/arguments.h"
#include "weir/sdfg/sdfg.h"

namespace weir::distributed {

/// A memlet of a non-transient array, at the top level of a state of the SDFG, whose range along
/// a split dimension has a scalar argument of the program in its bounds.
struct ScalarBound {
  std::string array;      ///< the array read or written ("" for a bound of an orchestration's calls)
  std::string dimension;  ///< the split dimension ("I", "Cell")
  sym::Expr start;        ///< first index (inclusive)
  sym::Expr end;          ///< last index + 1 (exclusive)
  bool written = false;   ///< written (else read)
  std::string where;      ///< "file:line:column: " of the access node, "" without debuginfo
};

/// Every such memlet of `sdfg`'s states (not of nested SDFGs: each is its own program), the
/// writes first, each group in state and edge order. A symbol counts as a scalar argument when `sdfg.symbols`
/// declares it and it is not a size symbol `__NAME_DIM_size` (map parameters are not declared there).
std::vector<ScalarBound> scalar_bounds(const SDFG& sdfg, const std::vector<std::string>& dims);

/// The text of a refusal for `b`: "FILE:L:C: 'out' is written over I [1, ni - 1), bounded by
/// the scalar argument(s) ni".
std::string describe(const ScalarBound& b);

/// The values of the scalar bounds on one part of an unstructured partition (`weir run
/// --parts`): a range along an entity that covers all of it, from 0 (a number or a scalar whose
/// value is 0) to a scalar whose value is the entity's global count, covers all of the part's
/// rows too, so that scalar takes the part's row count (`local_rows`). Any other range (inside
/// the entities, or a bound computed from a scalar, `n_cells - 1`) would name other entities in
/// the part's local numbering: weir::Error naming the program's line, the array, the range and
/// the counts. A scalar that two bounds would set to different counts is refused likewise.
/// `global` holds the values given for the whole mesh; returns the scalars to replace.
std::map<std::string, runtime::Number> localize_partition_bounds(
    const std::vector<ScalarBound>& bounds, const std::map<std::string, runtime::Number>& global,
    const std::map<std::string, std::int64_t>& global_counts,
    const std::map<std::string, std::int64_t>& local_rows);

}  // namespace weir::distributed
