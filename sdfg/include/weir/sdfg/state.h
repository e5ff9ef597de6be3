// A state: an acyclic dataflow multigraph of nodes joined by memlet edges (DaCe's SDFGState).
// The state is the builder of its nodes and edges: nothing else creates or removes them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "weir/sdfg/control_flow.h"
#include "weir/sdfg/memlet.h"
#include "weir/sdfg/nodes.h"

namespace weir {

/// A dataflow edge: from (src, src_conn) to (dst, dst_conn), carrying a memlet. An empty
/// connector name means "no connector" (null in DaCe JSON), as for edges at access nodes.
struct DataflowEdge {
  EdgeId id;
  NodeId src;
  std::string src_conn;
  NodeId dst;
  std::string dst_conn;
  Memlet memlet;
};

/// Scope of every node: the MapEntry that encloses it, or kNoNode at the top level, as DaCe's
/// `scope_dict()`. As in DaCe, a MapExit belongs to its own entry's scope (parent[exit] == entry).
struct ScopeTree {
  std::vector<NodeId> parent;  // indexed by NodeId; kNoNode for top level / removed
  /// Indexed by NodeId: false for removed ids, so children(kNoNode) skips them. May be left
  /// empty by code that builds a ScopeTree by hand (then every id counts as live).
  std::vector<bool> live;
  /// Children of a scope entry (or of the top level with kNoNode), in id order.
  std::vector<NodeId> children(NodeId entry) const;
  /// Nesting depth (0 at the top level).
  int depth(NodeId n) const;
};

class SDFGState final : public ControlFlowBlock {
 public:
  explicit SDFGState(std::string lbl);
  ~SDFGState() override;
  static bool matches(BlockKind k) { return k == BlockKind::State; }

  // --- builder -------------------------------------------------------------------------
  AccessNode& add_access(std::string data);
  Tasklet& add_tasklet(std::string label, CodeBlock code, const std::vector<std::string>& inputs,
                       const std::vector<std::string>& outputs);
  /// A map scope over `params` with inclusive `range`; returns the entry (its `exit` is set).
  MapEntry& add_map(std::string label, std::vector<std::string> params, Subset range,
                    ScheduleType schedule = ScheduleType::Default);
  NestedSDFGNode& add_nested_sdfg(std::string label, std::unique_ptr<SDFG> sdfg,
                                  const std::vector<std::string>& inputs,
                                  const std::vector<std::string>& outputs,
                                  std::map<std::string, sym::Expr> symbol_mapping = {});
  /// Adds a node of any kind and gives it the next id (used by the loader and by clone).
  Node& add_node(std::unique_ptr<Node> node);
  /// Adds an edge; throws IRError if an endpoint is not a node of this state.
  DataflowEdge& add_edge(NodeId src, std::string src_conn, NodeId dst, std::string dst_conn, Memlet memlet);
  /// Connects `path` = [src, scope nodes..., dst] with one edge per hop, adding the map
  /// connectors IN_<name>/OUT_<name> on the way (as DaCe's add_memlet_path). Every edge gets
  /// `memlet`; outer edges should be widened by memlet propagation afterwards.
  std::vector<EdgeId> add_memlet_path(const std::vector<NodeId>& path, const Memlet& memlet,
                                      std::string src_conn = {}, std::string dst_conn = {});
  void remove_edge(EdgeId id);
  /// Removes the node and all its edges (for a map entry/exit, only that node).
  void remove_node(NodeId id);

  // --- queries -------------------------------------------------------------------------
  /// Throws IRError naming the state if `id` is not a live node.
  Node& node(NodeId id) const;
  bool has_node(NodeId id) const;
  /// Live nodes in id order.
  std::vector<Node*> nodes() const;
  std::size_t num_nodes() const;
  /// One past the largest id ever given (the size of id-indexed tables).
  NodeId node_capacity() const { return static_cast<NodeId>(nodes_.size()); }
  const DataflowEdge& edge(EdgeId id) const;
  DataflowEdge& edge(EdgeId id);
  bool has_edge(EdgeId id) const;
  std::vector<const DataflowEdge*> edges() const;
  std::size_t num_edges() const;
  const std::vector<EdgeId>& in_edges(NodeId n) const;
  const std::vector<EdgeId>& out_edges(NodeId n) const;
  std::vector<EdgeId> in_edges_by_connector(NodeId n, const std::string& conn) const;
  std::vector<EdgeId> out_edges_by_connector(NodeId n, const std::string& conn) const;
  /// Access nodes of `data` in id order.
  std::vector<AccessNode*> access_nodes(const std::string& data) const;
  MapExit& exit_of(const MapEntry& entry) const;
  MapEntry& entry_of(const MapExit& exit) const;

  /// Scope of every node. Throws IRError if the state has a cycle or unbalanced scopes.
  ScopeTree scope_tree() const;
  /// Nodes in a topological order (ties by id). Throws IRError naming a node on a cycle.
  std::vector<NodeId> topological_order() const;
  bool is_acyclic() const;
  /// The chain of edges a memlet takes through scope connectors (IN_x -> OUT_x), outermost
  /// first, containing `e`, as DaCe's memlet_path().
  std::vector<EdgeId> memlet_path(EdgeId e) const;
  /// Nodes of the weakly connected component containing `n`.
  std::vector<NodeId> connected_component(NodeId n) const;

  std::unique_ptr<ControlFlowBlock> clone() const override;

 private:
  std::vector<std::unique_ptr<Node>> nodes_;        // nullptr = removed
  std::vector<std::optional<DataflowEdge>> edges_;  // nullopt = removed
  std::vector<std::vector<EdgeId>> in_, out_;       // per node
  IRError error(const std::string& msg, long node = -1, long edge = -1) const;
};

}  // namespace weir
