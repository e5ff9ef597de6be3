// Dataflow node kinds and their deep copies. Copies keep the node id so that a cloned state
// has the same ids and edges can be copied verbatim.
#include "weir/sdfg/nodes.h"

#include "weir/sdfg/sdfg.h"

namespace weir {

std::string_view to_string(NodeKind k) {
  switch (k) {
    case NodeKind::Access: return "AccessNode";
    case NodeKind::Tasklet: return "Tasklet";
    case NodeKind::MapEntry: return "MapEntry";
    case NodeKind::MapExit: return "MapExit";
    case NodeKind::NestedSDFG: return "NestedSDFG";
    case NodeKind::Library: return "LibraryNode";
  }
  return "<invalid>";
}

Node::~Node() = default;

void Node::copy_common_to(Node& n) const {
  n.label = label;
  n.in_connectors = in_connectors;
  n.out_connectors = out_connectors;
  n.extra = extra;
  n.id_ = id_;
}

std::unique_ptr<Node> AccessNode::clone() const {
  auto c = std::make_unique<AccessNode>(data);
  copy_common_to(*c);
  c->setzero = setzero;
  return c;
}

std::unique_ptr<Node> Tasklet::clone() const {
  auto c = std::make_unique<Tasklet>(label, code);
  copy_common_to(*c);
  c->code_global = code_global;
  c->code_init = code_init;
  c->code_exit = code_exit;
  c->side_effects = side_effects;
  return c;
}

// A lone entry/exit copy gets its own MapInfo; SDFGState::clone re-shares one MapInfo per
// entry/exit pair afterwards.
std::unique_ptr<Node> MapEntry::clone() const {
  auto c = std::make_unique<MapEntry>(std::make_shared<MapInfo>(*map));
  copy_common_to(*c);
  c->exit = exit;
  return c;
}

std::unique_ptr<Node> MapExit::clone() const {
  auto c = std::make_unique<MapExit>(std::make_shared<MapInfo>(*map));
  copy_common_to(*c);
  c->entry = entry;
  return c;
}

NestedSDFGNode::NestedSDFGNode(std::string lbl, std::unique_ptr<SDFG> s)
    : Node(kKind, std::move(lbl)), sdfg(std::move(s)) {}

NestedSDFGNode::~NestedSDFGNode() = default;

// The nested SDFG's back-pointers are set when the copy is added to a state (SDFGState::add_node,
// SDFGState::clone) or by SDFG::relink_nested().
std::unique_ptr<Node> NestedSDFGNode::clone() const {
  auto c = std::make_unique<NestedSDFGNode>(label, sdfg ? sdfg->clone_sdfg() : nullptr);
  copy_common_to(*c);
  c->symbol_mapping = symbol_mapping;
  c->schedule = schedule;
  return c;
}

std::string LibraryNode::class_name() const {
  if (classpath.empty()) return type_name;
  auto dot = classpath.rfind('.');
  return dot == std::string::npos ? classpath : classpath.substr(dot + 1);
}

std::unique_ptr<Node> LibraryNode::clone() const {
  auto c = std::make_unique<LibraryNode>(label, type_name);
  copy_common_to(*c);
  c->classpath = classpath;
  c->schedule = schedule;
  c->implementation = implementation;
  c->wcr = wcr;
  c->axes = axes;
  c->identity = identity;
  return c;
}

}  // namespace weir
