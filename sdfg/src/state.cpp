// SDFGState: the dataflow multigraph of a state. Nodes and edges live in tombstoned vectors
// (an id is an index and is never reused); per-node in/out edge lists are kept in id order.
// Graph algorithms (topological order, cycles, components) use Boost.Graph on a temporary
// adjacency list built from the live nodes.
#include "weir/sdfg/state.h"

#include <algorithm>
#include <deque>
#include <iterator>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/topological_sort.hpp>

#include "weir/sdfg/sdfg.h"

namespace weir {

namespace {

using DiGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
using UGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// Records the target of the first back edge a DFS meets: a node on a cycle.
struct BackEdgeFinder : boost::default_dfs_visitor {
  std::size_t* hit;
  explicit BackEdgeFinder(std::size_t* h) : hit(h) {}
  void back_edge(DiGraph::edge_descriptor e, const DiGraph& g) const {
    if (*hit == kNone) *hit = boost::target(e, g);
  }
};

std::string id_str(NodeId n) { return std::to_string(static_cast<long>(n)); }

}  // namespace

// --- ScopeTree -----------------------------------------------------------------------------

std::vector<NodeId> ScopeTree::children(NodeId entry) const {
  std::vector<NodeId> out;
  for (std::size_t i = 0; i < parent.size(); ++i)
    if ((live.empty() || live[i]) && parent[i] == entry) out.push_back(static_cast<NodeId>(i));
  return out;
}

int ScopeTree::depth(NodeId n) const {
  int d = 0;
  // The bound guards against a malformed (cyclic) parent table.
  while (n < parent.size() && parent[n] != kNoNode && d <= static_cast<int>(parent.size())) {
    n = parent[n];
    ++d;
  }
  return d;
}

// --- construction --------------------------------------------------------------------------

SDFGState::SDFGState(std::string lbl) : ControlFlowBlock(BlockKind::State, std::move(lbl)) {}
SDFGState::~SDFGState() = default;

IRError SDFGState::error(const std::string& msg, long node, long edge) const {
  ElementRef r;
  if (const SDFG* s = sdfg()) r.sdfg = s->name;
  r.block_path = path();
  r.node = node;
  r.edge = edge;
  if (node >= 0 && has_node(static_cast<NodeId>(node)))
    r.node_label = nodes_[static_cast<std::size_t>(node)]->label;
  return IRError(std::move(r), msg);
}

AccessNode& SDFGState::add_access(std::string data) {
  return static_cast<AccessNode&>(add_node(std::make_unique<AccessNode>(std::move(data))));
}

Tasklet& SDFGState::add_tasklet(std::string label, CodeBlock code, const std::vector<std::string>& inputs,
                                const std::vector<std::string>& outputs) {
  auto t = std::make_unique<Tasklet>(std::move(label), std::move(code));
  for (const auto& c : inputs) t->in_connectors[c] = std::nullopt;
  for (const auto& c : outputs) t->out_connectors[c] = std::nullopt;
  return static_cast<Tasklet&>(add_node(std::move(t)));
}

MapEntry& SDFGState::add_map(std::string label, std::vector<std::string> params, Subset range,
                             ScheduleType schedule) {
  auto info = std::make_shared<MapInfo>();
  info->label = std::move(label);
  info->params = std::move(params);
  info->range = std::move(range);
  info->schedule = schedule;
  auto& entry = static_cast<MapEntry&>(add_node(std::make_unique<MapEntry>(info)));
  auto& exit = static_cast<MapExit&>(add_node(std::make_unique<MapExit>(info)));
  entry.exit = exit.id();
  exit.entry = entry.id();
  return entry;
}

NestedSDFGNode& SDFGState::add_nested_sdfg(std::string label, std::unique_ptr<SDFG> sdfg,
                                           const std::vector<std::string>& inputs,
                                           const std::vector<std::string>& outputs,
                                           std::map<std::string, sym::Expr> symbol_mapping) {
  auto n = std::make_unique<NestedSDFGNode>(std::move(label), std::move(sdfg));
  for (const auto& c : inputs) n->in_connectors[c] = std::nullopt;
  for (const auto& c : outputs) n->out_connectors[c] = std::nullopt;
  n->symbol_mapping = std::move(symbol_mapping);
  return static_cast<NestedSDFGNode&>(add_node(std::move(n)));
}

Node& SDFGState::add_node(std::unique_ptr<Node> node) {
  if (!node) throw error("add_node: null node");
  node->id_ = static_cast<NodeId>(nodes_.size());
  if (auto* ns = node->as<NestedSDFGNode>(); ns && ns->sdfg) {
    ns->sdfg->parent_node_ = ns;
    ns->sdfg->parent_state_ = this;
  }
  nodes_.push_back(std::move(node));
  in_.emplace_back();
  out_.emplace_back();
  return *nodes_.back();
}

DataflowEdge& SDFGState::add_edge(NodeId src, std::string src_conn, NodeId dst, std::string dst_conn,
                                  Memlet memlet) {
  for (NodeId n : {src, dst})
    if (!has_node(n)) throw error("add_edge: no node " + id_str(n) + " in this state", static_cast<long>(n));
  auto id = static_cast<EdgeId>(edges_.size());
  edges_.push_back(DataflowEdge{id, src, std::move(src_conn), dst, std::move(dst_conn), std::move(memlet)});
  out_[src].push_back(id);
  in_[dst].push_back(id);
  return *edges_.back();
}

std::vector<EdgeId> SDFGState::add_memlet_path(const std::vector<NodeId>& path, const Memlet& memlet,
                                               std::string src_conn, std::string dst_conn) {
  if (path.size() < 2) throw error("add_memlet_path needs at least two nodes");
  for (NodeId n : path)
    if (!has_node(n))
      throw error("add_memlet_path: no node " + id_str(n) + " in this state", static_cast<long>(n));
  // Connectors of each hop: the caller's at both ends, IN_x/OUT_x through scope nodes.
  std::vector<std::string> out_conn(path.size()), in_conn(path.size());
  out_conn.front() = std::move(src_conn);
  in_conn.back() = std::move(dst_conn);
  for (std::size_t i = 1; i + 1 < path.size(); ++i) {
    Node& s = *nodes_[path[i]];
    // Empty memlets only order nodes and pass scopes without connectors.
    if (memlet.is_empty() || !(s.is_scope_entry() || s.is_scope_exit())) continue;
    std::string name = memlet.data;
    for (int k = 1; s.in_connectors.count("IN_" + name) || s.out_connectors.count("OUT_" + name); ++k)
      name = memlet.data + "_" + std::to_string(k);
    in_conn[i] = "IN_" + name;
    out_conn[i] = "OUT_" + name;
    s.in_connectors[in_conn[i]] = std::nullopt;
    s.out_connectors[out_conn[i]] = std::nullopt;
  }
  std::vector<EdgeId> ids;
  for (std::size_t i = 0; i + 1 < path.size(); ++i)
    ids.push_back(add_edge(path[i], out_conn[i], path[i + 1], in_conn[i + 1], memlet).id);
  return ids;
}

void SDFGState::remove_edge(EdgeId id) {
  if (!has_edge(id))
    throw error("remove_edge: no edge " + std::to_string(id) + " in this state", -1, static_cast<long>(id));
  const DataflowEdge& e = *edges_[id];
  auto drop = [id](std::vector<EdgeId>& v) { v.erase(std::remove(v.begin(), v.end(), id), v.end()); };
  drop(out_[e.src]);
  drop(in_[e.dst]);
  edges_[id].reset();
}

void SDFGState::remove_node(NodeId id) {
  if (!has_node(id))
    throw error("remove_node: no node " + id_str(id) + " in this state", static_cast<long>(id));
  // Copies: remove_edge edits the lists being walked.
  std::vector<EdgeId> incident = in_[id];
  incident.insert(incident.end(), out_[id].begin(), out_[id].end());
  for (EdgeId e : incident)
    if (has_edge(e)) remove_edge(e);  // a self-loop appears in both lists
  nodes_[id].reset();
}

// --- queries -------------------------------------------------------------------------------

Node& SDFGState::node(NodeId id) const {
  if (!has_node(id)) throw error("no node " + id_str(id) + " in this state", static_cast<long>(id));
  return *nodes_[id];
}

bool SDFGState::has_node(NodeId id) const { return id < nodes_.size() && nodes_[id]; }

std::vector<Node*> SDFGState::nodes() const {
  std::vector<Node*> out;
  for (const auto& n : nodes_)
    if (n) out.push_back(n.get());
  return out;
}

std::size_t SDFGState::num_nodes() const {
  return static_cast<std::size_t>(
      std::count_if(nodes_.begin(), nodes_.end(), [](const auto& n) { return n != nullptr; }));
}

const DataflowEdge& SDFGState::edge(EdgeId id) const {
  if (!has_edge(id))
    throw error("no edge " + std::to_string(id) + " in this state", -1, static_cast<long>(id));
  return *edges_[id];
}

DataflowEdge& SDFGState::edge(EdgeId id) {
  return const_cast<DataflowEdge&>(static_cast<const SDFGState&>(*this).edge(id));
}

bool SDFGState::has_edge(EdgeId id) const { return id < edges_.size() && edges_[id].has_value(); }

std::vector<const DataflowEdge*> SDFGState::edges() const {
  std::vector<const DataflowEdge*> out;
  for (const auto& e : edges_)
    if (e) out.push_back(&*e);
  return out;
}

std::size_t SDFGState::num_edges() const {
  return static_cast<std::size_t>(
      std::count_if(edges_.begin(), edges_.end(), [](const auto& e) { return e.has_value(); }));
}

const std::vector<EdgeId>& SDFGState::in_edges(NodeId n) const {
  if (!has_node(n)) throw error("in_edges: no node " + id_str(n) + " in this state", static_cast<long>(n));
  return in_[n];
}

const std::vector<EdgeId>& SDFGState::out_edges(NodeId n) const {
  if (!has_node(n)) throw error("out_edges: no node " + id_str(n) + " in this state", static_cast<long>(n));
  return out_[n];
}

std::vector<EdgeId> SDFGState::in_edges_by_connector(NodeId n, const std::string& conn) const {
  std::vector<EdgeId> out;
  for (EdgeId e : in_edges(n))
    if (edges_[e]->dst_conn == conn) out.push_back(e);
  return out;
}

std::vector<EdgeId> SDFGState::out_edges_by_connector(NodeId n, const std::string& conn) const {
  std::vector<EdgeId> out;
  for (EdgeId e : out_edges(n))
    if (edges_[e]->src_conn == conn) out.push_back(e);
  return out;
}

std::vector<AccessNode*> SDFGState::access_nodes(const std::string& data) const {
  std::vector<AccessNode*> out;
  for (const auto& n : nodes_)
    if (n)
      if (auto* a = n->as<AccessNode>(); a && a->data == data) out.push_back(a);
  return out;
}

MapExit& SDFGState::exit_of(const MapEntry& entry) const {
  if (has_node(entry.exit))
    if (auto* x = nodes_[entry.exit]->as<MapExit>()) return *x;
  throw error("map entry has no matching map exit", static_cast<long>(entry.id()));
}

MapEntry& SDFGState::entry_of(const MapExit& exit) const {
  if (has_node(exit.entry))
    if (auto* e = nodes_[exit.entry]->as<MapEntry>()) return *e;
  throw error("map exit has no matching map entry", static_cast<long>(exit.id()));
}

std::vector<NodeId> SDFGState::topological_order() const {
  // Boost's topological_sort is a DFS that emits nodes in finishing order. Numbering the
  // vertices by descending node id and visiting higher-id successors first makes the
  // reversed finishing order prefer lower ids wherever the order is free.
  std::vector<NodeId> ids;  // vertex -> node id
  std::vector<std::size_t> vertex_of(nodes_.size(), kNone);
  for (std::size_t i = nodes_.size(); i-- > 0;)
    if (nodes_[i]) {
      vertex_of[i] = ids.size();
      ids.push_back(static_cast<NodeId>(i));
    }
  DiGraph g(ids.size());
  for (std::size_t v = 0; v < ids.size(); ++v) {
    std::vector<NodeId> succ;
    for (EdgeId e : out_[ids[v]]) succ.push_back(edges_[e]->dst);
    std::sort(succ.begin(), succ.end(), std::greater<>());
    for (NodeId s : succ) boost::add_edge(v, vertex_of[s], g);
  }
  std::vector<DiGraph::vertex_descriptor> finish;
  finish.reserve(ids.size());
  try {
    boost::topological_sort(g, std::back_inserter(finish));
  } catch (const boost::not_a_dag&) {
    std::size_t hit = kNone;
    boost::depth_first_search(g, boost::visitor(BackEdgeFinder(&hit)));
    long bad = hit == kNone ? -1 : static_cast<long>(ids[hit]);
    throw error("the dataflow graph has a cycle through this node", bad);
  }
  std::vector<NodeId> order;
  order.reserve(finish.size());
  for (auto it = finish.rbegin(); it != finish.rend(); ++it) order.push_back(ids[*it]);
  return order;
}

bool SDFGState::is_acyclic() const {
  try {
    topological_order();
    return true;
  } catch (const IRError&) {
    return false;
  }
}

ScopeTree SDFGState::scope_tree() const {
  ScopeTree t;
  t.parent.assign(nodes_.size(), kNoNode);
  t.live.assign(nodes_.size(), false);
  for (std::size_t i = 0; i < nodes_.size(); ++i) t.live[i] = nodes_[i] != nullptr;

  // Every entry must name a live exit that names it back, and vice versa.
  for (const auto& n : nodes_) {
    if (!n) continue;
    if (auto* e = n->as<MapEntry>()) {
      auto* x = has_node(e->exit) ? nodes_[e->exit]->as<MapExit>() : nullptr;
      if (!x || x->entry != e->id())
        throw error("unbalanced scopes: map entry has no matching exit", e->id());
    } else if (auto* x = n->as<MapExit>()) {
      auto* e = has_node(x->entry) ? nodes_[x->entry]->as<MapEntry>() : nullptr;
      if (!e || e->exit != x->id()) throw error("unbalanced scopes: map exit has no matching entry", x->id());
    }
  }

  std::vector<char> done(nodes_.size(), 0);
  // The scope a node passes on to its successors: an entry opens its own scope, an exit
  // closes its entry's scope, anything else stays in its own scope.
  auto scope_after = [&](NodeId p) -> NodeId {
    const Node& pn = *nodes_[p];
    if (pn.is_scope_entry()) return p;
    if (auto* x = pn.as<MapExit>()) return t.parent[x->entry];
    return t.parent[p];
  };

  for (NodeId n : topological_order()) {
    const Node& nd = *nodes_[n];
    if (auto* x = nd.as<MapExit>()) {
      if (!done[x->entry])
        throw error("unbalanced scopes: map exit is reached before its entry", static_cast<long>(n));
      t.parent[n] = x->entry;  // DaCe: an exit belongs to its entry's scope
      for (EdgeId e : in_[n]) {
        NodeId p = edges_[e]->src;
        if (scope_after(p) != x->entry)
          throw error("unbalanced scopes: node " + id_str(p) + " feeds this map exit from outside its scope",
                      static_cast<long>(n));
      }
      done[n] = 1;
      continue;
    }
    if (in_[n].empty()) {
      // Top level, unless every out-edge goes into exits of one map: then the node lives in
      // that map (a source node inside a scope not wired from the entry by an empty memlet).
      NodeId scope = kNoNode;
      bool only_exits = !out_[n].empty();
      for (EdgeId e : out_[n]) {
        auto* x = nodes_[edges_[e]->dst]->as<MapExit>();
        if (!x || (scope != kNoNode && scope != x->entry)) {
          only_exits = false;
          break;
        }
        scope = x->entry;
      }
      t.parent[n] = only_exits ? scope : kNoNode;
      done[n] = 1;
      continue;
    }
    // Fed by an entry: inside it. Else fed by an exit: in the scope around that map. Else: in
    // the scope of its (first) predecessor.
    std::optional<NodeId> by_entry, by_exit, by_other;
    for (EdgeId e : in_[n]) {
      NodeId p = edges_[e]->src;
      const Node& pn = *nodes_[p];
      auto& slot = pn.is_scope_entry() ? by_entry : pn.is_scope_exit() ? by_exit : by_other;
      if (!slot) slot = scope_after(p);
    }
    t.parent[n] = by_entry ? *by_entry : by_exit ? *by_exit : *by_other;
    done[n] = 1;
  }
  return t;
}

std::vector<EdgeId> SDFGState::memlet_path(EdgeId e) const {
  std::deque<EdgeId> chain{edge(e).id};
  auto through_scope = [&](NodeId n) { return nodes_[n]->is_scope_entry() || nodes_[n]->is_scope_exit(); };
  // Each loop can take at most every edge once; the bound guards against malformed cycles.
  // Upstream: an edge leaving a scope node through OUT_x continues from the edge into IN_x.
  const DataflowEdge* cur = &*edges_[e];
  for (std::size_t guard = 0; guard < edges_.size(); ++guard) {
    if (!through_scope(cur->src) || cur->src_conn.rfind("OUT_", 0) != 0) break;
    std::string in = "IN_" + cur->src_conn.substr(4);
    const DataflowEdge* next = nullptr;
    for (EdgeId i : in_[cur->src])
      if (edges_[i]->dst_conn == in) {
        next = &*edges_[i];
        break;
      }
    if (!next) break;
    chain.push_front(next->id);
    cur = next;
  }
  // Downstream: an edge entering a scope node at IN_x continues with the (first) edge out of
  // OUT_x. Branching after an exit is DaCe's memlet_tree; memlet_path follows one branch.
  cur = &*edges_[e];
  for (std::size_t guard = 0; guard < edges_.size(); ++guard) {
    if (!through_scope(cur->dst) || cur->dst_conn.rfind("IN_", 0) != 0) break;
    std::string out = "OUT_" + cur->dst_conn.substr(3);
    const DataflowEdge* next = nullptr;
    for (EdgeId i : out_[cur->dst])
      if (edges_[i]->src_conn == out) {
        next = &*edges_[i];
        break;
      }
    if (!next) break;
    chain.push_back(next->id);
    cur = next;
  }
  return {chain.begin(), chain.end()};
}

std::vector<NodeId> SDFGState::connected_component(NodeId n) const {
  if (!has_node(n))
    throw error("connected_component: no node " + id_str(n) + " in this state", static_cast<long>(n));
  // Vertices are node ids; removed ids are isolated vertices and never join n's component.
  UGraph g(nodes_.size());
  for (const auto& e : edges_)
    if (e) boost::add_edge(e->src, e->dst, g);
  std::vector<int> comp(nodes_.size());
  boost::connected_components(g, comp.data());
  std::vector<NodeId> out;
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i] && comp[i] == comp[n]) out.push_back(static_cast<NodeId>(i));
  return out;
}

std::unique_ptr<ControlFlowBlock> SDFGState::clone() const {
  auto c = std::make_unique<SDFGState>(label);
  copy_common_to(*c);
  c->nodes_.reserve(nodes_.size());
  for (const auto& n : nodes_) c->nodes_.push_back(n ? n->clone() : nullptr);  // holes keep ids
  c->edges_ = edges_;
  c->in_ = in_;
  c->out_ = out_;
  for (const auto& n : c->nodes_) {
    if (!n) continue;
    // One MapInfo per entry/exit pair, as in the original.
    if (auto* x = n->as<MapExit>(); x && c->has_node(x->entry))
      if (auto* e = c->nodes_[x->entry]->as<MapEntry>()) x->map = e->map;
    if (auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg) {
      ns->sdfg->parent_node_ = ns;
      ns->sdfg->parent_state_ = c.get();
    }
  }
  return c;
}

}  // namespace weir
