// Helpers for nesting and inlining (see nest_util.h).
#include "nest_util.h"

#include "dataflow_util.h"

#include <cctype>
#include <memory>
#include <stdexcept>

#include "weir/pycode/code.h"
#include "weir/pycode/unparse.h"

namespace weir::transforms::detail {

namespace {

/// The value of `stmt` when it is the one statement `var = expr` (on its cached tree) and expr
/// is a symbolic expression, else nullopt.
std::optional<sym::Expr> assigned(const CodeBlock& stmt, const std::string& var) {
  std::shared_ptr<const pycode::Code> tree;
  auto a = single_assignment(stmt, tree);
  if (!a || a->first != var) return std::nullopt;
  try {
    return sym::Expr::parse(pycode::unparse(*a->second));  // the symbolic layer reads Python expressions
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

std::variant<ForLoop, std::string> parse_loop(const LoopRegion& L, bool downward) {
  ForLoop f;
  f.var = L.loop_variable;
  std::string what = "loop '" + L.label + "'";
  if (f.var.empty()) return what + " has no loop variable (a while loop)";
  if (L.inverted) return what + " is a do-while loop";
  auto init = assigned(L.init_statement, f.var);
  if (!init)
    return what + ": init statement '" + L.init_statement.code + "' is not '" + f.var + " = <expression>'";
  f.start = *init;
  auto upd = assigned(L.update_statement, f.var);
  if (!upd)
    return what + ": update statement '" + L.update_statement.code + "' is not '" + f.var +
           " = <expression>'";
  f.step = *upd - sym::Expr::symbol(f.var);
  auto step = f.step.as_integer();
  if (!step) return what + ": the step '" + f.step.str() + "' is not a constant";
  if (*step == 0 || (*step < 0 && !downward))
    return what + " counts down or does not move (step " + std::to_string(*step) + ")";
  sym::Expr cond;
  try {
    cond = sym::Expr::parse(L.loop_condition.code);
  } catch (const Error&) {
    return what + ": condition '" + L.loop_condition.code + "' is not a comparison";
  }
  if (cond.kind() != sym::Kind::Compare || cond.args().size() != 2)
    return what + ": condition '" + L.loop_condition.code + "' is not a comparison";
  std::string op = cond.name();
  sym::Expr lhs = cond.args()[0], rhs = cond.args()[1];
  sym::Expr v = sym::Expr::symbol(f.var);
  if (rhs == v && lhs != v) {  // "N > v" is "v < N"
    std::swap(lhs, rhs);
    op = op == ">" ? "<" : op == ">=" ? "<=" : op == "<" ? ">" : op == "<=" ? ">=" : op;
  }
  if (lhs != v || rhs.free_symbols().count(f.var))
    return what + ": condition '" + L.loop_condition.code + "' does not bound " + f.var;
  if (*step > 0 && op == "<")
    f.end = rhs - sym::Expr(1);
  else if (*step > 0 && op == "<=")
    f.end = rhs;
  else if (*step < 0 && op == ">")
    f.end = rhs + sym::Expr(1);
  else if (*step < 0 && op == ">=")
    f.end = rhs;
  else
    return what + ": condition '" + L.loop_condition.code + "' is not an " + (*step > 0 ? "upper" : "lower") +
           " bound of " + f.var;
  return f;
}

std::optional<std::pair<sym::Expr, sym::Expr>> loop_variable_bounds(const LoopRegion& L) {
  auto parsed = parse_loop(L, true);
  if (!std::holds_alternative<ForLoop>(parsed)) return std::nullopt;
  const ForLoop& f = std::get<ForLoop>(parsed);
  long long step = *f.step.as_integer();
  // The last value taken: `end` itself only for unit steps.
  sym::Expr last =
      step == 1 || step == -1 ? f.end : f.start + sym::Expr::floordiv(f.end - f.start, f.step) * f.step;
  return step > 0 ? std::make_pair(f.start, last) : std::make_pair(last, f.start);
}

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
        CopySubsets ends =
            incoming ? copy_subsets(r, other->data, a->data) : copy_subsets(r, a->data, other->data);
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

std::optional<std::string> cross_iteration_conflict(const std::string& data, const std::string& var,
                                                    const Memlet& w, const Memlet& x, bool x_is_write) {
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
      if (carried.empty())
        carried = data + " is written at " + rw.start.str() + " and " + verb + " at " + rx.start.str();
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
