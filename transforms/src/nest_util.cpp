// Helpers for nesting and inlining (see nest_util.h).
#include "nest_util.h"

#include "dataflow_util.h"
#include "memlet_tree.h"

#include <cctype>
#include <functional>
#include <memory>
#include <stdexcept>

#include "weir/pycode/code.h"
#include "weir/sdfg/symbolic_tree.h"

namespace weir::transforms::detail {

namespace {

// A copy edge's memlet may describe the other end (or, in a self-copy, either end: DaCe's rules
// in copy_subsets): the memlet as the subset of access node `a`'s container.
Memlet this_end_of(const SDFGState& st, const DataflowEdge& e, const AccessNode& a, bool incoming) {
  Memlet r = e.memlet;
  auto* other = st.node(incoming ? e.src : e.dst).as<AccessNode>();
  if (!other) return r;
  CopySubsets ends = incoming ? copy_subsets(r, other->data, a.data) : copy_subsets(r, a.data, other->data);
  const std::optional<Subset>& mine = incoming ? ends.dst : ends.src;
  if (mine) {
    r.data = a.data;
    r.subset = *mine;
    r.other_subset.reset();
    r.is_data_src.reset();
  }
  return r;
}

}  // namespace

std::map<std::string, DataAccesses> collect_accesses(const std::vector<SDFGState*>& states) {
  std::map<std::string, DataAccesses> out;
  for (SDFGState* st : states) {
    std::optional<ScopeTree> scopes;  // built at the first leaf inside a map
    for (Node* n : st->nodes()) {
      auto* a = n->as<AccessNode>();
      if (!a) continue;
      DataAccesses& acc = out[a->data];
      ++acc.access_nodes;
      auto this_end = [&](const DataflowEdge& e, bool incoming) { return this_end_of(*st, e, *a, incoming); };
      bool has_in = false, has_out = false;
      for (EdgeId e : st->in_edges(n->id()))
        if (!st->edge(e).memlet.is_empty()) {
          has_in = true;
          acc.writes.push_back(this_end(st->edge(e), true));
        }
      for (EdgeId e : st->out_edges(n->id()))
        if (!st->edge(e).memlet.is_empty()) {
          has_out = true;
          acc.reads.push_back(this_end(st->edge(e), false));
        }
      if (has_out && !has_in) acc.written_before_read = false;
    }
  }
  return out;
}

std::set<std::string> varying_symbols(const ControlFlowRegion& r) {
  std::set<std::string> out;
  std::function<void(const ControlFlowRegion&)> walk = [&](const ControlFlowRegion& reg) {
    if (const auto* loop = reg.as<LoopRegion>(); loop && !loop->loop_variable.empty() && &reg != &r)
      out.insert(loop->loop_variable);
    for (const ControlFlowEdge* e : reg.edges())
      for (const auto& [target, value] : e->data.assignments) out.insert(target);
    for (const ControlFlowBlock* b : reg.blocks()) {
      if (const auto* st = b->as<SDFGState>()) {
        for (const Node* n : st->nodes())
          if (const auto* me = n->as<MapEntry>()) {
            if (me->map) out.insert(me->map->params.begin(), me->map->params.end());
            for (const auto& [c, t] : me->in_connectors)
              if (c.rfind("IN_", 0) != 0) out.insert(c);
          }
      } else if (const auto* cb = b->as<ConditionalBlock>()) {
        for (const auto& br : cb->branches())
          if (br.body) walk(*br.body);
      } else if (const auto* sub = b->as<ControlFlowRegion>()) {
        walk(*sub);
      }
    }
  };
  walk(r);
  return out;
}

namespace {

/// `m` as the subset of `data` it touches (a copy's memlet may name the other end), or nullopt.
std::optional<Memlet> as_access_of(const Memlet& m, const std::string& data, const Node& other,
                                   bool other_is_dst) {
  if (m.data == data && !m.other_subset) return m;
  const auto* a = other.as<AccessNode>();
  if (!a) return m.data == data ? std::optional<Memlet>(m) : std::nullopt;
  CopySubsets ends = other_is_dst ? copy_subsets(m, data, a->data) : copy_subsets(m, a->data, data);
  const std::optional<Subset>& mine = other_is_dst ? ends.src : ends.dst;
  if (!mine) return std::nullopt;
  Memlet r = m;
  r.data = data;
  r.subset = *mine;
  r.other_subset.reset();
  r.is_data_src.reset();
  return r;
}

/// The accesses of container `c` by nested SDFG `n` (reads or writes), in the outer SDFG's terms,
/// or nullopt when they cannot be said (the argument is not the whole container, or no access).
std::optional<std::vector<Memlet>> nested_accesses(const NestedSDFGNode& n, const std::string& c,
                                                   const Memlet& outer, const DataDescriptor& outer_desc,
                                                   bool writes, std::set<std::string>& varying,
                                                   int& counter) {
  if (!n.sdfg || !n.sdfg->has_data(c)) return std::nullopt;
  const SDFG& inner = *n.sdfg;
  const DataDescriptor& d = inner.data(c);
  // The whole container, same shape: inner indices are outer indices (no offset or reshape).
  if (d.shape.size() != outer_desc.shape.size() || outer.subset.dims() != outer_desc.shape.size())
    return std::nullopt;
  for (std::size_t k = 0; k < d.shape.size(); ++k) {
    const Range& r = outer.subset[k];
    if (r.start != sym::Expr(0) || r.end != outer_desc.shape[k] - sym::Expr(1) || r.step != sym::Expr(1) ||
        d.shape[k].subs(n.symbol_mapping) != outer_desc.shape[k])
      return std::nullopt;
  }
  std::set<std::string> inner_varying = varying_symbols(inner);
  auto acc = collect_leaf_accesses(inner.all_states(), inner_varying);
  auto it = acc.find(c);
  if (it == acc.end()) return std::nullopt;
  const std::vector<Memlet>& ms = writes ? it->second.writes : it->second.reads;
  if (ms.empty()) return std::nullopt;
  // Inner names: a mapped symbol becomes its outer value; any other (local, varying) a fresh name.
  std::map<std::string, sym::Expr> rename;
  int k = counter++;
  std::vector<Memlet> out;
  for (Memlet m : ms) {
    for (const auto& s : m.subset.free_symbols()) {
      if (rename.count(s)) continue;
      auto mapped = n.symbol_mapping.find(s);
      if (mapped != n.symbol_mapping.end() && !inner_varying.count(s)) {
        rename[s] = mapped->second;
      } else {
        std::string fresh = "__nested" + std::to_string(k) + "_" + s;
        varying.insert(fresh);
        rename[s] = sym::Expr::symbol(fresh);
      }
    }
    m.data = outer.data;
    m.subset = m.subset.subs(rename);
    out.push_back(std::move(m));
  }
  return out;
}

/// `m` with the parameters of the maps around `end` that take one value (`__i0 = i:i`, DaCe's
/// frontend writes `C[i, :i+1] *= beta` so) replaced by that value, innermost map first: such an
/// index is no more varying than the value itself.
Memlet with_single_point_params(const SDFGState& st, const ScopeTree& scopes, NodeId end, Memlet m) {
  for (NodeId p = scopes.parent[end]; p != kNoNode; p = scopes.parent[p]) {
    const auto* me = st.node(p).as<MapEntry>();
    if (!me || !me->map) continue;
    std::map<std::string, sym::Expr> point;
    for (std::size_t k = 0; k < me->map->params.size() && k < me->map->range.dims(); ++k)
      if (me->map->range[k].start == me->map->range[k].end)
        point.emplace(me->map->params[k], me->map->range[k].start);
    if (!point.empty()) m.subset = m.subset.subs(point);
  }
  return m;
}

}  // namespace

std::map<std::string, DataAccesses> collect_leaf_accesses(const std::vector<SDFGState*>& states,
                                                          std::set<std::string>& varying) {
  auto out = collect_accesses(states);
  int counter = 0;
  for (auto& [data, acc] : out) {
    acc.reads.clear();
    acc.writes.clear();
  }
  for (SDFGState* st : states) {
    std::optional<ScopeTree> scopes;  // built at the first leaf inside a map
    for (Node* n : st->nodes()) {
      auto* a = n->as<AccessNode>();
      if (!a) continue;
      DataAccesses& acc = out[a->data];
      const SDFG* sdfg = st->sdfg();
      const DataDescriptor* desc = sdfg && sdfg->has_data(a->data) ? &sdfg->data(a->data) : nullptr;
      // One edge at the access node: its leaves, or the edge itself.
      auto refine = [&](EdgeId id, bool write, std::vector<Memlet>& into) {
        const DataflowEdge& e = st->edge(id);
        const Node& other = st->node(write ? e.src : e.dst);
        std::vector<Memlet> leaves;
        bool ok =
            desc != nullptr && (other.kind() == NodeKind::MapEntry || other.kind() == NodeKind::MapExit ||
                                other.kind() == NodeKind::NestedSDFG);
        std::vector<EdgeId> ends;
        if (ok && other.kind() == NodeKind::NestedSDFG) {
          ends.push_back(id);
        } else if (ok) {
          for (EdgeId t : memlet_tree(*st, id)) {
            const DataflowEdge& te = st->edge(t);
            if (t == id) continue;
            NodeKind inner = st->node(write ? te.src : te.dst).kind();
            if (inner != NodeKind::MapEntry && inner != NodeKind::MapExit) ends.push_back(t);
          }
          ok = !ends.empty();
        }
        for (EdgeId t : ends) {
          if (!ok) break;
          const DataflowEdge& te = st->edge(t);
          const Node& end = st->node(write ? te.src : te.dst);
          auto m = as_access_of(te.memlet, a->data, end, !write);
          if (!m || m->is_empty()) {
            ok = false;
          } else if (const auto* ns = end.as<NestedSDFGNode>()) {
            auto inner =
                nested_accesses(*ns, write ? te.src_conn : te.dst_conn, *m, *desc, write, varying, counter);
            if (inner)
              leaves.insert(leaves.end(), inner->begin(), inner->end());
            else
              leaves.push_back(*m);
          } else {
            if (!scopes) scopes = st->scope_tree();
            leaves.push_back(with_single_point_params(*st, *scopes, end.id(), *m));
          }
        }
        if (!ok) {
          into.push_back(this_end_of(*st, e, *a, write));
          return;
        }
        into.insert(into.end(), leaves.begin(), leaves.end());
      };
      for (EdgeId e : st->in_edges(n->id()))
        if (!st->edge(e).memlet.is_empty()) refine(e, true, acc.writes);
      for (EdgeId e : st->out_edges(n->id()))
        if (!st->edge(e).memlet.is_empty()) refine(e, false, acc.reads);
    }
  }
  return out;
}

std::string dynamic_map_in(const std::vector<SDFGState*>& states) {
  for (SDFGState* st : states)
    for (Node* n : st->nodes())
      if (auto* me = n->as<MapEntry>())
        for (const auto& [c, t] : me->in_connectors)
          if (c.rfind("IN_", 0) != 0) return me->map->label;
  return {};
}

std::set<std::string> memlet_data(const std::vector<SDFGState*>& states) {
  std::set<std::string> out;
  for (SDFGState* st : states)
    for (const DataflowEdge* e : st->edges())
      if (!e->memlet.is_empty()) out.insert(e->memlet.data);
  return out;
}

bool data_referenced(const SDFG& sdfg, const std::string& data) {
  for (SDFGState* st : sdfg.all_states()) {
    for (Node* n : st->nodes())
      if (auto* a = n->as<AccessNode>(); a && a->data == data) return true;
    for (const DataflowEdge* e : st->edges())
      if (e->memlet.data == data) return true;
  }
  return false;
}

DataDescriptor as_argument(DataDescriptor d) {
  d.transient = false;
  d.lifetime = AllocationLifetime::Scope;
  if (d.is_view()) {
    d.kind = DataKind::Array;
    d.type_name = "Array";
  }
  if (d.storage == StorageType::Register) d.storage = StorageType::Default;
  return d;
}

void relink_cloned_maps(const SDFGState& src, SDFGState& dst, const std::map<NodeId, NodeId>& nm) {
  for (const auto& [old, fresh] : nm) {
    const auto* me = src.node(old).as<MapEntry>();
    if (!me || !nm.count(me->exit)) continue;
    auto& ce = *dst.node(fresh).as<MapEntry>();
    auto& cx = *dst.node(nm.at(me->exit)).as<MapExit>();
    ce.exit = cx.id();
    cx.entry = ce.id();
    cx.map = ce.map;
  }
}

std::string identifier_from(const std::string& label) {
  std::string s;
  for (char c : label) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "n_" + s;
  return s;
}

std::vector<std::string> nest_data_read_by_name(const SDFG& outer, SDFG& inner) {
  std::vector<std::string> out;
  for (const std::string& s : inner.free_symbols())
    if (outer.has_data(s)) {
      inner.arrays[s] = as_argument(outer.data(s));
      out.push_back(s);
    }
  return out;
}

std::map<std::string, sym::Expr> nest_symbols(const SDFG& outer, SDFG& inner) {
  std::map<std::string, sym::Expr> mapping;
  for (const std::string& s : inner.free_symbols()) {
    // A symbol mapping cannot carry an array: the nested SDFG would index a symbol.
    if (outer.has_data(s))
      throw std::logic_error("nested SDFG '" + inner.name + "' reads container '" + s +
                             "' by name; it must be passed through a connector");
    auto it = outer.symbols.find(s);
    inner.symbols[s] = it != outer.symbols.end() ? it->second : DataType::scalar(ScalarType::Int64);
    mapping.emplace(s, sym::Expr::symbol(s));
  }
  return mapping;
}

namespace {

void collect_labels(const ControlFlowRegion& r, std::set<std::string>& out) {
  for (const ControlFlowBlock* b : r.blocks()) {
    out.insert(b->label);
    if (const auto* sub = b->as<ControlFlowRegion>()) collect_labels(*sub, out);
    if (const auto* c = b->as<ConditionalBlock>())
      for (const auto& br : c->branches())
        if (br.body) collect_labels(*br.body, out);
  }
}

}  // namespace

std::string fresh_state_label(const SDFG& sdfg, const std::string& base) {
  std::set<std::string> used;
  collect_labels(sdfg, used);
  if (!used.count(base)) return base;
  for (int k = 0;; ++k) {
    std::string c = base + "_" + std::to_string(k);
    if (!used.count(c)) return c;
  }
}

void replace_block(ControlFlowRegion& r, BlockId old, BlockId repl) {
  struct E {
    BlockId src, dst;
    InterstateEdge data;
  };
  std::vector<E> edges;
  for (const ControlFlowEdge* e : r.in_edges(old))
    edges.push_back({e->src == old ? repl : e->src, repl, e->data});
  for (const ControlFlowEdge* e : r.out_edges(old))
    if (e->dst != old) edges.push_back({repl, e->dst, e->data});
  bool was_start = r.explicit_start() == old;
  r.remove_block(old);
  for (auto& e : edges) r.add_edge(e.src, e.dst, e.data);
  if (was_start) r.set_start_block(repl);
}

}  // namespace weir::transforms::detail
