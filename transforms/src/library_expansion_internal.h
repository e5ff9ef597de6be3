// Shared by library_expansion.cpp (the pass: finding nodes, replacing one by its nested SDFG) and
// the expansions of each library node class (expand_reduce.cpp, expand_einsum.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"
#include "weir/transforms/transformation.h"

namespace weir::transforms::detail {

/// One data operand of a library node: its edge and the container the nested SDFG sees.
struct LibraryOperand {
  /// The edge (valid until the state's edges change) and its id.
  const DataflowEdge* edge = nullptr;
  EdgeId edge_id = 0;
  bool incoming = true;
  /// The nested SDFG's container (and the nested SDFG node's connector) for the edge.
  std::string name;
  /// The memlet's subset as the nested SDFG's container: the subset's sizes as shape, the outer
  /// container's strides times the subset's steps as strides; a scalar for a scalar container.
  DataDescriptor desc;
};

/// The node being expanded, where it is, and the errors that name it.
struct ExpansionSite {
  const SDFG& sdfg;
  const SDFGState& st;
  const LibraryNode& node;
  /// A TransformError "SDFG 's', state 't', node 5 ('sum'): <msg>".
  TransformError error(const std::string& msg) const;
  /// The in (or out) edges of the node with a non-empty memlet.
  std::vector<const DataflowEdge*> data_edges(bool incoming) const;
  /// The operand of `e`: its container is named after the node's connector, `fallback` when the
  /// edge has none (DaCe writes Reduce edges without connectors). Throws when the edge's other
  /// end is a code node (tasklet, nested SDFG, library node).
  LibraryOperand operand(const DataflowEdge& e, bool incoming, const std::string& fallback) const;
};

/// The SDFG of an expansion, named after the node, with the operands' containers (not
/// transient) and the symbols their shapes and strides use (typed as in the outer SDFG).
std::unique_ptr<SDFG> expansion_sdfg(const ExpansionSite& site, const std::vector<LibraryOperand>& ops);

/// The expansions (see library_expansion.h): the nested SDFG of the node at `site`; `ops` gets
/// the operands (one per connector of the nested SDFG node).
std::unique_ptr<SDFG> expand_reduce(const ExpansionSite& site, std::vector<LibraryOperand>& ops);
std::unique_ptr<SDFG> expand_einsum(const ExpansionSite& site, std::vector<LibraryOperand>& ops);

}  // namespace weir::transforms::detail
