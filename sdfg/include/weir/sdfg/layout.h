// Memory layout of a data descriptor: which elements, counted from the container's pointer, the
// generated code can address from in-bounds indices, and whether that stays inside the memory
// the container has (ADR 0037). The validator (`desc-layout`, `view-reach`, `nested-reach`) and
// the code generator's run-time layout checks share these rules.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "weir/sdfg/data.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/subset.h"

namespace weir {

/// The element index (from the container's pointer, in elements) of the last element that
/// in-bounds indices reach: start_offset + sum((shape_k - 1) * stride_k). An index i_k is in
/// bounds when 0 <= i_k + offset_k < shape_k, so `offset` shifts which indices are in bounds,
/// not which elements they reach. Meaningful only when every extent is at least 1 (otherwise no
/// index is in bounds) and every stride is non-negative; strides missing from `d.strides` are
/// row-major. Throws sym::SymbolicError on int64 overflow of constant terms.
sym::Expr last_reached_element(const DataDescriptor& d);

/// Elements the code generator allocates for a transient array: `total_size`, or the product
/// of the shape when total_size is a constant <= 0 (DaCe's loader replaces a total_size of 0
/// by the product as well).
sym::Expr allocated_elements(const DataDescriptor& d);

/// Elements from the first to the last element of `subset` of a container with descriptor
/// `viewed`: sum((last_k - first_k) * stride_k), the room a view or a nested SDFG argument bound
/// at the subset's first element has when the subset itself is inside `viewed` (the bounds
/// checks see to that). nullopt when a range is tiled or `subset` has a different number of
/// dimensions.
std::optional<sym::Expr> subset_reach(const DataDescriptor& viewed, const Subset& subset);

/// A condition the layout of a descriptor must satisfy for its in-bounds accesses to stay
/// inside its memory: `value >= 0`, to hold whenever every extent in `nonempty` is >= 1.
struct LayoutCondition {
  /// Which field is wrong when it fails: "strides", "start_offset", "total_size", ...
  std::string field;
  /// Must be >= 0.
  sym::Expr value;
  /// Extents (shape entries) that must all be >= 1 for the condition to matter.
  std::vector<sym::Expr> nonempty;
  /// The complete explanation when it fails, naming the container, the field, what was
  /// expected and what was found (the values are those of the descriptor, symbolic or not).
  std::string message;
};

/// What the layout of array `d` (named `name`) must satisfy: non-negative strides and
/// start_offset, a total_size that is not negative and holds every element the shape reaches
/// (for transients, whose memory weir allocates by total_size; for other containers the
/// caller's memory is checked against the shape). Scalars, streams and unknown kinds have no
/// conditions.
std::vector<LayoutCondition> layout_conditions(const std::string& name, const DataDescriptor& d);

/// The condition that `inner` (a view or a nested SDFG's argument, named `inner_name` and
/// described as `what` in the message: "view 'V'"), bound at the first element of `subset` of
/// `outer_name` (descriptor `outer`), reaches no element past the subset's last one. nullopt when
/// it cannot be stated (tiled or mismatched subset).
std::optional<LayoutCondition> reach_condition(const std::string& inner_name, const DataDescriptor& inner,
                                               const std::string& outer_name, const DataDescriptor& outer,
                                               const Subset& subset, const std::string& what);

/// The reach condition of the array argument that edge `e` (incoming: into `n`) of a nested
/// SDFG node carries: the inner descriptor with `n`'s symbol mapping applied, bound at the first
/// element of the memlet's subset of the container of `outer`. nullopt when the edge carries no
/// array argument (an empty memlet, a scalar, a transient, unknown containers), when the argument
/// is DaCe's copy of the outer descriptor (the outer container's name and shape: its shape
/// over-approximates what the body accesses) or when the condition cannot be stated. Throws
/// sym::SymbolicError on int64 overflow.
std::optional<LayoutCondition> nested_argument_reach(const SDFG& outer, const NestedSDFGNode& n,
                                                     const DataflowEdge& e, bool incoming);

/// Whether `c` holds for every value of the symbols (assumed >= 0, as sizes are): true when its
/// value is provably >= 0 or one of its extents is a constant <= 0; false when its value is a
/// negative constant (it fails whenever the container has elements); nullopt when it depends on
/// symbols in a way that cannot be decided (the generated code checks it at run time).
std::optional<bool> holds(const LayoutCondition& c);

}  // namespace weir
