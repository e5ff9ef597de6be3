// A view's indices as its viewed container's (private to the transforms layer; CopyIntoMap).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

namespace weir::transforms::detail {

/// How the indices of a view node address its viewed container (view_binding.h gives where it
/// starts): each dimension of the view that holds more than one element runs along one of the
/// viewed subset's dimensions of more than one element, in order, with the same extent and the
/// same stride; the view's other dimensions hold the single index 0.
struct ViewIndexing {
  std::string viewed;
  /// The viewed subset: its start is the view's element 0.
  Subset at;
  /// For each dimension of the view, the viewed container's dimension it runs along (none for
  /// a dimension of one element).
  std::vector<std::optional<std::size_t>> along;

  /// `r`, a subset of the view, in the viewed container's indices; nullopt where `r` has the
  /// wrong number of dimensions or reads a dimension of one element at other than index 0.
  std::optional<Subset> to_viewed(const Subset& r) const;
};

/// The indexing of view node `v` (a container of `sdfg` with is_view()), or why its elements are
/// not the viewed subset's one by one: no defining edge, an index offset, a view that reshapes
/// the viewed subset, or one that walks it with other strides (a strided or transposed view).
std::variant<ViewIndexing, std::string> view_indexing(const SDFG& sdfg, const SDFGState& st,
                                                      const AccessNode& v);

}  // namespace weir::transforms::detail
