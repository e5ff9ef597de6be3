// Dataflow nodes of a state: access nodes, tasklets, map entry/exit, nested SDFGs and library
// nodes. Nodes are created and removed only through SDFGState (the builder); their properties
// are plain fields because changing them cannot break the graph's structure.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weir/sdfg/attributes.h"
#include "weir/sdfg/data.h"
#include "weir/sdfg/subset.h"
#include "weir/sdfg/types.h"

namespace weir {

class SDFG;
class SDFGState;

using NodeId = std::uint32_t;
inline constexpr NodeId kNoNode = ~NodeId{0};

enum class NodeKind : std::uint8_t { Access, Tasklet, MapEntry, MapExit, NestedSDFG, Library };
std::string_view to_string(NodeKind k);

/// Connector name -> type (nullopt: untyped, inferred, as `null` in DaCe JSON).
using ConnectorMap = std::map<std::string, std::optional<DataType>>;

class Node {
 public:
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  NodeKind kind() const { return kind_; }
  /// Stable within its state until removed; DaCe's node index after serialization.
  NodeId id() const { return id_; }
  bool is_scope_entry() const { return kind_ == NodeKind::MapEntry; }
  bool is_scope_exit() const { return kind_ == NodeKind::MapExit; }

  /// Checked downcast by kind (no dynamic_cast chains): nullptr if the kind differs.
  template <class T>
  T* as() {
    return kind_ == T::kKind ? static_cast<T*>(this) : nullptr;
  }
  template <class T>
  const T* as() const {
    return kind_ == T::kKind ? static_cast<const T*>(this) : nullptr;
  }

  std::string label;
  ConnectorMap in_connectors;
  ConnectorMap out_connectors;
  UnknownAttributes extra;  // attributes weir does not model (guid, debuginfo, ...)

  /// Deep copy with the same id (used when copying states and SDFGs).
  virtual std::unique_ptr<Node> clone() const = 0;

 protected:
  Node(NodeKind k, std::string lbl) : label(std::move(lbl)), kind_(k) {}
  void copy_common_to(Node& n) const;

 private:
  friend class SDFGState;
  NodeKind kind_;
  NodeId id_ = kNoNode;
};

/// A reference to a data container (DaCe's AccessNode).
class AccessNode final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::Access;
  explicit AccessNode(std::string data_name) : Node(kKind, data_name), data(std::move(data_name)) {}
  std::string data;
  bool setzero = false;  // zero-initialise on allocation
  std::unique_ptr<Node> clone() const override;
};

/// A computation on scalars received through connectors (DaCe's Tasklet).
class Tasklet final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::Tasklet;
  Tasklet(std::string lbl, CodeBlock c) : Node(kKind, std::move(lbl)), code(std::move(c)) {}
  CodeBlock code;
  CodeBlock code_global{{}, Language::CPP};
  CodeBlock code_init{{}, Language::CPP};
  CodeBlock code_exit{{}, Language::CPP};
  std::optional<bool> side_effects;
  std::unique_ptr<Node> clone() const override;
};

/// Properties of a map scope, shared by its entry and exit (DaCe's nodes.Map).
/// `range` has one Range per parameter; ends are inclusive.
struct MapInfo {
  std::string label;
  std::vector<std::string> params;
  Subset range;
  ScheduleType schedule = ScheduleType::Default;
  bool unroll = false;
  int collapse = 1;
  std::vector<std::string> gpu_block_size;  // kept as text; empty = default
  UnknownAttributes extra;
  bool operator==(const MapInfo&) const = default;
};

/// Opens a map scope: its dataflow runs once per point of `map->range`.
class MapEntry final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::MapEntry;
  explicit MapEntry(std::shared_ptr<MapInfo> m) : Node(kKind, m->label), map(std::move(m)) {}
  std::shared_ptr<MapInfo> map;
  NodeId exit = kNoNode;  // the matching MapExit in the same state
  std::unique_ptr<Node> clone() const override;
};

/// Closes a map scope; shares its MapInfo with the entry.
class MapExit final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::MapExit;
  explicit MapExit(std::shared_ptr<MapInfo> m) : Node(kKind, m->label), map(std::move(m)) {}
  std::shared_ptr<MapInfo> map;
  NodeId entry = kNoNode;
  std::unique_ptr<Node> clone() const override;
};

/// An SDFG called from a state; connectors are the nested SDFG's non-transient containers.
/// `symbol_mapping` maps each symbol of the nested SDFG to an expression of the outer one.
class NestedSDFGNode final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::NestedSDFG;
  NestedSDFGNode(std::string lbl, std::unique_ptr<SDFG> s);
  ~NestedSDFGNode() override;
  std::unique_ptr<SDFG> sdfg;
  std::map<std::string, sym::Expr> symbol_mapping;
  ScheduleType schedule = ScheduleType::Default;
  std::unique_ptr<Node> clone() const override;
};

/// A library node: a high-level operation expanded later (e.g. Reduce). `type_name` is the JSON
/// `type` ("Reduce"), `classpath` DaCe's full class path. Nodes weir does not know are kept
/// opaque: their attributes stay in `extra` and are written back unchanged.
class LibraryNode final : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::Library;
  LibraryNode(std::string lbl, std::string type) : Node(kKind, std::move(lbl)), type_name(std::move(type)) {}
  std::string type_name;
  std::string classpath;
  ScheduleType schedule = ScheduleType::Default;
  std::string implementation;  // empty = default
  /// Reduce: the reduction lambda, reduced axes (nullopt = all) and the identity value as JSON
  /// text (empty = none).
  std::string wcr;
  std::optional<std::vector<int>> axes;
  std::string identity;
  /// The library node's class: the last part of `classpath`
  /// ("dace.libraries.blas.nodes.matmul.MatMul" -> "MatMul"), else `type_name` (DaCe writes
  /// `type` "LibraryNode" for every library node, older files the class name).
  std::string class_name() const;
  bool is_reduce() const { return class_name() == "Reduce"; }
  std::unique_ptr<Node> clone() const override;
};

}  // namespace weir
