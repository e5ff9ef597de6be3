// Copy elision (see the header).
#include "weir/transforms/copy_elision.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dataflow_util.h"
#include "weir/pycode/ast.h"
#include "weir/pycode/code.h"
#include "weir/pycode/names.h"
#include "weir/transforms/analysis.h"

namespace weir::transforms {

CopyElision::CopyElision()
    : Pass("copy-elision",
           "Let the writers of a transient that is only copied, whole, into another array write that array "
           "(removes the copy)") {}

namespace {

/// One array copied: T's access node `src` feeds the copy, which writes O's access node `dst`.
struct CopiedArray {
  std::string t, o;
  NodeId src = kNoNode, dst = kNoNode;
};

/// One copy found: an edge (one array), or an element-wise copy map whose tasklet copies one
/// array or several (a field operator returning all results of a scan: `return a, b`);
/// `nodes` are the copy map's entry, tasklet and exit (empty for a direct edge).
struct Copy {
  std::vector<CopiedArray> arrays;
  std::vector<NodeId> nodes;
};

bool same_layout(const DataDescriptor& a, const DataDescriptor& b) {
  return a.kind == b.kind && a.dtype == b.dtype && a.shape == b.shape && a.strides == b.strides &&
         a.offset == b.offset && a.total_size == b.total_size && a.start_offset == b.start_offset &&
         a.storage == b.storage && !a.is_view() && !b.is_view();
}

/// Whether T's accesses may become O's at the same indices: what a copy map that writes O at
/// every index of T (O[i] = T[i] over T's shape) needs. O's shape may be spelt with other
/// symbols (the second output of an operator has its own size symbols, the lowering sizes the
/// scan's transients by the first): the copy wrote O at T's indices, so do T's writers now, and
/// the bounds checks of the generated code see the same writes of O.
bool same_elements(const DataDescriptor& t, const DataDescriptor& o) {
  return t.kind == o.kind && t.dtype == o.dtype && t.shape.size() == o.shape.size() &&
         t.storage == o.storage && !t.is_view() && !o.is_view();
}

/// Whether `s` indexes exactly the points `params` (one parameter per dimension, in order).
bool at_params(const Subset& s, const std::vector<std::string>& params) {
  if (s.dims() != params.size()) return false;
  for (std::size_t d = 0; d < params.size(); ++d) {
    const sym::Expr p = sym::Expr::symbol(params[d]);
    if (!(s[d].start == p && s[d].end == p && s[d].step == sym::Expr(1))) return false;
  }
  return true;
}

/// The statements `out = in` of a Python tasklet made of nothing else, as {out, in} in order,
/// each output assigned once; nullopt otherwise.
std::optional<std::vector<std::pair<std::string, std::string>>> plain_copies(const Tasklet& t) {
  if (t.code.language != Language::Python) return std::nullopt;
  std::shared_ptr<const pycode::Code> tree;
  try {
    tree = t.code.parsed();
  } catch (const pycode::SourceError&) {
    return std::nullopt;
  }
  if (!tree || tree->body().empty()) return std::nullopt;
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> outs;
  for (const pycode::StmtPtr& stmt : tree->body()) {
    const auto* as = pycode::dyn_cast<pycode::Assign>(stmt.get());
    const auto* lhs =
        as && as->targets.size() == 1 ? pycode::dyn_cast<pycode::Name>(as->targets[0].get()) : nullptr;
    const auto* rhs = as ? pycode::dyn_cast<pycode::Name>(as->value.get()) : nullptr;
    if (!lhs || !rhs || !outs.insert(lhs->id).second || outs.count(rhs->id)) return std::nullopt;
    out.emplace_back(lhs->id, rhs->id);
  }
  return out;
}

/// The element-wise copy map whose entry is `entry` (outermost scope of `st`), or nullopt.
std::optional<Copy> copy_map(const SDFG& sdfg, const SDFGState& st, const ScopeTree& tree, NodeId entry) {
  const auto& me = *st.node(entry).as<MapEntry>();
  std::vector<NodeId> body = detail::scope_body(st, tree, entry);
  if (body.size() != 1) return std::nullopt;
  const auto* t = st.node(body[0]).as<Tasklet>();
  if (!t || t->side_effects.value_or(false)) return std::nullopt;
  auto code = plain_copies(*t);
  if (!code || st.out_edges(body[0]).size() != code->size() || st.out_edges(me.exit).size() != code->size())
    return std::nullopt;
  Copy found{{}, {entry, body[0], me.exit}};
  for (const auto& [out, in] : *code) {
    auto writes = st.out_edges_by_connector(body[0], out);
    if (writes.size() != 1) return std::nullopt;
    const DataflowEdge& w = st.edge(writes.front());
    if (w.dst != me.exit || !w.memlet.wcr.empty() || w.dst_conn.rfind("IN_", 0) != 0) return std::nullopt;
    const auto x_out = st.out_edges_by_connector(me.exit, "OUT_" + w.dst_conn.substr(3));
    if (x_out.size() != 1) return std::nullopt;
    const auto* dst = st.node(st.edge(x_out.front()).dst).as<AccessNode>();
    if (!dst || w.memlet.data != dst->data || !at_params(w.memlet.subset, me.map->params))
      return std::nullopt;
    // The read of `in`, through the entry from an access node of T outside the map.
    std::optional<CopiedArray> copied;
    for (EdgeId e : st.in_edges(body[0])) {
      const DataflowEdge& r = st.edge(e);
      if (r.dst_conn != in) continue;
      if (r.src != entry || copied || r.memlet.is_empty() || !at_params(r.memlet.subset, me.map->params))
        return std::nullopt;
      const std::string in_conn = "IN_" + r.src_conn.substr(r.src_conn.rfind("OUT_", 0) == 0 ? 4 : 0);
      auto outer = st.in_edges_by_connector(entry, in_conn);
      if (outer.size() != 1) return std::nullopt;
      const auto* src = st.node(st.edge(outer.front()).src).as<AccessNode>();
      if (!src || src->data != r.memlet.data) return std::nullopt;
      copied = CopiedArray{src->data, dst->data, src->id(), dst->id()};
    }
    if (!copied) return std::nullopt;
    // The map covers all of T: it writes O at every index T has.
    if (!sdfg.has_data(copied->t) || !detail::covers_all(me.map->range, sdfg.data(copied->t).shape))
      return std::nullopt;
    found.arrays.push_back(*copied);
  }
  // Each array copied once, onto an array of its own.
  std::set<std::string> names;
  for (const CopiedArray& a : found.arrays)
    if (!names.insert(a.t).second || !names.insert(a.o).second) return std::nullopt;
  return found;
}

/// A direct copy edge src -> dst of all of T onto all of O, or nullopt.
std::optional<Copy> copy_edge(const SDFG& sdfg, const SDFGState& st, EdgeId e) {
  const DataflowEdge& d = st.edge(e);
  const auto* a = st.node(d.src).as<AccessNode>();
  const auto* b = st.node(d.dst).as<AccessNode>();
  if (!a || !b || a->data == b->data || d.memlet.is_empty() || !d.memlet.wcr.empty()) return std::nullopt;
  if (!sdfg.has_data(a->data) || !sdfg.has_data(b->data)) return std::nullopt;
  // Which subset refers to which end (without other_subset, `subset` is both).
  CopySubsets ends = copy_subsets(d.memlet, a->data, b->data);
  if (!ends.src && !ends.dst) return std::nullopt;
  const Subset& sa = ends.src ? *ends.src : *ends.dst;
  const Subset& sb = ends.dst ? *ends.dst : *ends.src;
  if (!detail::covers_all(sa, sdfg.data(a->data).shape) || !detail::covers_all(sb, sdfg.data(b->data).shape))
    return std::nullopt;
  return Copy{{{a->data, b->data, d.src, d.dst}}, {}};
}

/// Whether the copy runs after every write of T whenever one runs: the copy's state is a block
/// of a region R, and every other state that accesses T lies in a block of R from which one
/// unconditional edge after another leads to the copy's state (so the copy is not skipped by a
/// branch, a loop or a condition on an edge, and writing O at T's writes cannot make O change
/// where the copy would have left it unchanged). In the copy's own state T has only the copy's
/// node.
bool copy_follows_writes(const SDFG& sdfg, const SDFGState& st, const CopiedArray& c) {
  const ControlFlowRegion* r = st.parent_region();
  if (!r) return false;
  for (const SDFGState* w : sdfg.all_states()) {
    const auto nodes = w->access_nodes(c.t);
    if (nodes.empty()) continue;
    if (w == &st) {
      if (nodes.size() != 1) return false;
      continue;
    }
    const ControlFlowBlock* b = w;
    while (b && b->parent_region() != r) b = b->parent_block();
    if (!b) return false;
    for (std::size_t steps = 0; b != &st; ++steps) {
      auto outs = r->out_edges(b->id());
      if (outs.size() != 1 || !outs.front()->data.is_unconditional() || steps > r->num_blocks()) return false;
      b = &r->block(outs.front()->dst);
    }
  }
  return true;
}

/// Whether the copy of `c` may be elided (the header's conditions).
bool elidable(const SDFG& sdfg, const SDFGState& st, const Copy& copy, const CopiedArray& c,
              const std::map<std::string, DataUse>& use) {
  if (!sdfg.has_data(c.t) || !sdfg.has_data(c.o)) return false;
  const DataDescriptor& t = sdfg.data(c.t);
  const DataDescriptor& o = sdfg.data(c.o);
  if (!t.transient || !(copy.nodes.empty() ? same_layout(t, o) : same_elements(t, o))) return false;
  auto ut = use.find(c.t), uo = use.find(c.o);
  if (ut == use.end() || uo == use.end()) return false;
  for (const DataUse* u : {&ut->second, &uo->second})
    if (u->in_control_flow || u->by_name_elsewhere) return false;
  if (ut->second.read_nodes != 1 || uo->second.access_nodes != 1) return false;
  // T's node here is read by the copy only; O's node is written by it only and read nowhere.
  const NodeId first = copy.nodes.empty() ? c.dst : copy.nodes.front();
  for (EdgeId e : st.out_edges(c.src))
    if (st.edge(e).dst != first) return false;
  const NodeId last = copy.nodes.empty() ? c.src : copy.nodes.back();
  if (!st.out_edges(c.dst).empty()) return false;
  for (EdgeId e : st.in_edges(c.dst))
    if (st.edge(e).src != last) return false;
  return copy_follows_writes(sdfg, st, c);
}

/// Whether every array of the copy may be elided (a copy map goes as a whole).
bool elidable(const SDFG& sdfg, const SDFGState& st, const Copy& copy,
              const std::map<std::string, DataUse>& use) {
  for (const CopiedArray& c : copy.arrays)
    if (!elidable(sdfg, st, copy, c, use)) return false;
  return !copy.arrays.empty();
}

/// Renames `from` to `to` in every access node and memlet of the SDFG's own states.
void rename_everywhere(SDFG& sdfg, const std::string& from, const std::string& to) {
  for (SDFGState* st : sdfg.all_states()) {
    for (Node* n : st->nodes())
      if (auto* a = n->as<AccessNode>(); a && a->data == from) {
        a->data = to;
        a->label = to;
      }
    std::vector<EdgeId> ids;
    for (const DataflowEdge* e : st->edges())
      if (e->memlet.data == from) ids.push_back(e->id);
    for (EdgeId e : ids) st->edge(e).memlet.data = to;
  }
}

/// Removes the copy and renames each T to its O; returns the containers the copy map read
/// without using them (its tasklet's unused inputs), now perhaps read nowhere.
std::set<std::string> elide(SDFG& sdfg, SDFGState& st, const Copy& c) {
  std::set<NodeId> inputs;  // access nodes feeding the copy map (unused inputs too)
  std::set<std::string> copied, unused;
  for (const CopiedArray& a : c.arrays) copied.insert(a.t);
  if (c.nodes.empty()) {
    st.remove_edge(st.out_edges(c.arrays.front().src).front());
  } else {
    for (EdgeId e : st.in_edges(c.nodes.front())) {
      inputs.insert(st.edge(e).src);
      const std::string& d = st.edge(e).memlet.data;
      if (!d.empty() && !copied.count(d)) unused.insert(d);
    }
    for (NodeId n : c.nodes) st.remove_node(n);
  }
  for (const CopiedArray& a : c.arrays) {
    inputs.insert(a.src);
    inputs.insert(a.dst);
  }
  for (NodeId n : inputs)
    if (st.in_edges(n).empty() && st.out_edges(n).empty() && st.node(n).as<AccessNode>()) st.remove_node(n);
  for (const CopiedArray& a : c.arrays) {
    rename_everywhere(sdfg, a.t, a.o);
    sdfg.remove_data(a.t);
  }
  return unused;
}

/// A write of a dead transient: the memlet path from a tasklet's output connector to an access
/// node of the transient (through map exits).
struct DeadWrite {
  SDFGState* state;
  NodeId tasklet;
  std::string conn;
  std::vector<EdgeId> path;  // tasklet -> ... -> access node
};

/// The statements of `t`'s Python code without the assignments `conn = value`, or nullopt when
/// the code reads `conn` or writes it otherwise (or is not Python without side effects).
std::optional<pycode::StmtList> without_output(const Tasklet& t, const std::string& conn) {
  if (t.code.language != Language::Python || t.side_effects.value_or(false)) return std::nullopt;
  std::shared_ptr<const pycode::Code> tree;
  try {
    tree = t.code.parsed();
  } catch (const pycode::SourceError&) {
    return std::nullopt;
  }
  if (!tree) return std::nullopt;
  pycode::StmtList kept;
  for (const pycode::StmtPtr& stmt : tree->body()) {
    const auto* as = pycode::dyn_cast<pycode::Assign>(stmt.get());
    const auto* lhs =
        as && as->targets.size() == 1 ? pycode::dyn_cast<pycode::Name>(as->targets[0].get()) : nullptr;
    if (lhs && lhs->id == conn) {
      if (pycode::names_used(*as->value).data().count(conn)) return std::nullopt;
      continue;
    }
    pycode::StmtList one;
    one.push_back(pycode::clone(stmt.get()));
    if (pycode::names_used(one).data().count(conn)) return std::nullopt;
    kept.push_back(std::move(one.front()));
  }
  return kept;
}

/// Removes every write of the transient `name` when nothing reads it and each write comes from
/// a tasklet with other outputs (dead-dataflow-elimination removes tasklets whose only output
/// it is): the assignments to the connector, the connector and the memlet path go, then the
/// access nodes and the descriptor. Returns whether it did.
bool drop_dead_writes(SDFG& sdfg, const std::string& name, const std::map<std::string, DataUse>& use) {
  auto u = use.find(name);
  if (!sdfg.has_data(name) || !sdfg.data(name).transient || u == use.end() || u->second.read_nodes != 0 ||
      u->second.in_control_flow || u->second.by_name_elsewhere)
    return false;
  std::vector<DeadWrite> writes;
  std::map<std::pair<SDFGState*, NodeId>, pycode::StmtList> code;
  for (SDFGState* st : sdfg.all_states())
    for (AccessNode* a : st->access_nodes(name))
      for (EdgeId in : st->in_edges(a->id())) {
        DeadWrite w{st, kNoNode, {}, {in}};
        EdgeId cur = in;
        while (const auto* x = st->node(st->edge(cur).src).as<MapExit>()) {
          const std::string& out = st->edge(cur).src_conn;
          if (out.rfind("OUT_", 0) != 0 || st->out_edges_by_connector(x->id(), out).size() != 1) return false;
          auto ins = st->in_edges_by_connector(x->id(), "IN_" + out.substr(4));
          if (ins.size() != 1) return false;
          cur = ins.front();
          w.path.insert(w.path.begin(), cur);
        }
        const DataflowEdge& first = st->edge(cur);
        const auto* t = st->node(first.src).as<Tasklet>();
        if (!t || st->out_edges_by_connector(t->id(), first.src_conn).size() != 1 ||
            st->out_edges(t->id()).size() < 2)
          return false;
        w.tasklet = t->id();
        w.conn = first.src_conn;
        auto kept = without_output(*t, w.conn);
        if (!kept) return false;
        code[{st, t->id()}] = std::move(*kept);
        writes.push_back(std::move(w));
      }
  if (writes.empty()) return false;
  for (DeadWrite& w : writes) {
    SDFGState& st = *w.state;
    auto& t = *st.node(w.tasklet).as<Tasklet>();
    t.code.set_parsed(pycode::Code::from_statements(std::move(code.at({w.state, w.tasklet}))));
    t.out_connectors.erase(w.conn);
    for (EdgeId e : w.path) {
      const DataflowEdge d = st.edge(e);
      st.remove_edge(e);
      if (auto* x = st.node(d.dst).as<MapExit>()) x->in_connectors.erase(d.dst_conn);
      if (auto* x = st.node(d.src).as<MapExit>()) x->out_connectors.erase(d.src_conn);
    }
  }
  for (SDFGState* st : sdfg.all_states())
    for (AccessNode* a : st->access_nodes(name))
      if (st->in_edges(a->id()).empty() && st->out_edges(a->id()).empty()) st->remove_node(a->id());
  sdfg.remove_data(name);
  return true;
}

}  // namespace

std::size_t CopyElision::run_pass(SDFG& sdfg, Transaction& tx) {
  std::size_t removed = 0;
  for (bool again = true; again;) {
    again = false;
    const auto use = tx.cache().data_use(sdfg);
    for (SDFGState* stp : sdfg.all_states()) {
      SDFGState& st = *stp;
      const ScopeTree& tree = tx.cache().scope_tree(st);
      std::optional<Copy> copy;
      for (Node* n : st.nodes()) {
        if (n->as<MapEntry>() && tree.parent[n->id()] == kNoNode)
          copy = copy_map(sdfg, st, tree, n->id());
        else if (n->as<AccessNode>() && tree.parent[n->id()] == kNoNode)
          for (EdgeId e : st.out_edges(n->id()))
            if ((copy = copy_edge(sdfg, st, e)) && elidable(sdfg, st, *copy, use)) break;
        if (copy && elidable(sdfg, st, *copy, use)) break;
        copy.reset();
      }
      if (!copy) continue;
      tx.modify_all([&] {
        std::set<std::string> unused = elide(sdfg, st, *copy);
        // The copy map's unused inputs (the other results of a scan whose one result it copied)
        // may now be read nowhere: their writes go too.
        AnalysisCache fresh;  // the transaction's analyses are stale until modify_all returns
        const auto& after = fresh.data_use(sdfg);
        for (const auto& d : unused) drop_dead_writes(sdfg, d, after);
      });
      removed += copy->arrays.size();
      again = true;  // names and uses changed: look again with fresh analyses
      break;
    }
  }
  return removed;
}

}  // namespace weir::transforms
