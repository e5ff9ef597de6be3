// Helpers for nesting and inlining (see nest_util.h).
#include "nest_util.h"

#include <cctype>

namespace weir::transforms::detail {

std::map<std::string, DataAccesses> collect_accesses(const std::vector<SDFGState*>& states) {
  std::map<std::string, DataAccesses> out;
  for (SDFGState* st : states) {
    for (Node* n : st->nodes()) {
      auto* a = n->as<AccessNode>();
      if (!a) continue;
      DataAccesses& acc = out[a->data];
      ++acc.access_nodes;
      // A copy edge's memlet may describe the other end (or, in a self-copy, either end: DaCe's
      // rules in copy_subsets): this end's subset.
      auto this_end = [&](const DataflowEdge& e, bool incoming) {
        Memlet r = e.memlet;
        auto* other = st->node(incoming ? e.src : e.dst).as<AccessNode>();
        if (!other) return r;
        CopySubsets ends = incoming ? copy_subsets(r, other->data, a->data) : copy_subsets(r, a->data, other->data);
        const std::optional<Subset>& mine = incoming ? ends.dst : ends.src;
        if (mine) {
          r.data = a->data;
          r.subset = *mine;
          r.other_subset.reset();
          r.is_data_src.reset();
        }
        return r;
      };
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

std::optional<std::pair<sym::Expr, sym::Expr>> affine_in(const sym::Expr& e, const std::string& var) {
  if (!e.free_symbols().count(var)) return std::make_pair(sym::Expr(0), e);
  sym::Expr b = e.subs({{var, sym::Expr(0)}});
  sym::Expr a = e.subs({{var, sym::Expr(1)}}) - b;
  if (a.free_symbols().count(var)) return std::nullopt;
  if (a * sym::Expr::symbol(var) + b != e) return std::nullopt;
  return std::make_pair(a, b);
}

std::optional<std::string> cross_iteration_conflict(const std::string& data, const std::string& var, const Memlet& w,
                                                    const Memlet& x, bool x_is_write) {
  const char* verb = x_is_write ? "written" : "read";
  std::string carried;
  if (w.subset.dims() == x.subset.dims()) {
    for (std::size_t d = 0; d < w.subset.dims(); ++d) {
      const Range& rw = w.subset[d];
      const Range& rx = x.subset[d];
      if (rw.start != rw.end || rx.start != rx.end) continue;
      auto aw = affine_in(rw.start, var), ax = affine_in(rx.start, var);
      if (!aw || !ax) continue;
      if (aw->first != ax->first) continue;
      auto a = aw->first.as_integer();
      if (!a || *a == 0) continue;
      sym::Expr diff = ax->second - aw->second;
      auto c = diff.as_integer();
      if (!c) continue;
      if (*c % *a != 0 || *c == 0) return std::nullopt;  // different elements in different iterations
      if (carried.empty()) carried = data + " is written at " + rw.start.str() + " and " + verb + " at " + rx.start.str();
    }
  }
  if (!carried.empty()) return carried;
  bool uses_var = w.subset.free_symbols().count(var) != 0;
  if (!uses_var && w.subset == x.subset)
    return data + " is written at the same element(s) [" + w.subset.str() + "] in every iteration";
  return "cannot prove that different iterations touch different elements of " + data + " (written at [" +
         w.subset.str() + "], " + verb + " at [" + x.subset.str() + "])";
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

std::map<std::string, sym::Expr> nest_symbols(const SDFG& outer, SDFG& inner) {
  std::map<std::string, sym::Expr> mapping;
  for (const std::string& s : inner.free_symbols()) {
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
  for (const ControlFlowEdge* e : r.in_edges(old)) edges.push_back({e->src == old ? repl : e->src, repl, e->data});
  for (const ControlFlowEdge* e : r.out_edges(old))
    if (e->dst != old) edges.push_back({repl, e->dst, e->data});
  bool was_start = r.explicit_start() == old;
  r.remove_block(old);
  for (auto& e : edges) r.add_edge(e.src, e.dst, e.data);
  if (was_start) r.set_start_block(repl);
}

}  // namespace weir::transforms::detail
