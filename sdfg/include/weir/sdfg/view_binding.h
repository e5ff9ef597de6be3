// Where a view points: the container it views and the subset of it whose first element is the
// view's element 0, read off the view's access node as DaCe does (the edge on its `views`
// connector, or its only edge to or from another access node). Shared by the validator
// (`view-reach`) and the code generator, which defines the view's pointer from it.
#pragma once

#include <optional>
#include <string>

#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

namespace weir {

/// The edge that defines view `n`: the one on its `views` connector, else its only edge from
/// another access node when it has exactly one incoming edge, else its only edge to another
/// access node when it has exactly one outgoing edge; nullptr when none is.
const DataflowEdge* view_edge(const SDFGState& st, const AccessNode& n);

/// The viewed container and the subset of it the view starts at.
struct ViewBinding {
  const DataflowEdge* edge = nullptr;
  std::string viewed;
  /// In the viewed container's indices. A memlet on the view itself without other_subset
  /// binds the view to the viewed container's element 0 and spans the whole container.
  Subset subset;
};

/// The binding of view `n` (a container of `sdfg` with is_view()), nullopt when view_edge()
/// finds no edge, or the edge's other end is not an access node while the memlet names the view.
std::optional<ViewBinding> view_binding(const SDFG& sdfg, const SDFGState& st, const AccessNode& n);

}  // namespace weir
