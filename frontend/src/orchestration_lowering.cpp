// Lowering an orchestration function to one SDFG (see orchestration.h and ADR 0019).
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "lowering_internal.h"
#include "orchestration_flow.h"
#include "weir/frontend/orchestration.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/dace_symbols.h"
#include "weir/sdfg/field_dims.h"
#include "weir/sdfg/library_implementations.h"

namespace weir::frontend {
namespace {

using detail::Binding;
using detail::BindingFlow;
using detail::BindingTable;
using lowering::to_sdfg_type;

constexpr const char* kBinding = "__binding";

std::string float_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eninf") == std::string::npos) s += ".0";
  return s;
}

// Appends blocks one after the other into a region; symbol assignments wait for the next edge.
struct Seq {
  explicit Seq(ControlFlowRegion& region) : r(region) {}
  ControlFlowRegion& r;
  BlockId last = kNoBlock;
  std::vector<std::pair<std::string, CodeBlock>> pending;
  bool dead = false;  // after a break/continue nothing more runs in this sequence
  /// The debuginfo (JSON) of the statement being lowered: every block it adds carries it, so
  /// that `weir view` maps the orchestration function's lines (loops, ifs, calls) to blocks.
  std::string where;

  /// Adds `target = value` to the next edge; an edge never reads what it assigns, so a value
  /// that reads a pending target (or a target a pending value reads) starts a new edge.
  void assign(const std::string& target, const std::string& value) {
    CodeBlock code(value);
    std::set<std::string> reads = names(code), assigned;
    bool clash = false;
    for (const auto& [t, v] : pending) {
      assigned.insert(t);
      clash = clash || t == target || names(v).count(target);
    }
    for (const std::string& r : reads) clash = clash || assigned.count(r);
    if (clash) state("assign");
    pending.emplace_back(target, std::move(code));
  }
  /// The names a value reads, from its syntax tree (the lowering writes only valid Python).
  static std::set<std::string> names(const CodeBlock& value) { return code_names(value).data(); }
  /// A label not used by another block of the region.
  std::string unique(const std::string& label) const {
    std::set<std::string> used;
    for (const ControlFlowBlock* b : r.blocks()) used.insert(b->label);
    std::string l = label;
    for (int k = 1; used.count(l); ++k) l = label + "_" + std::to_string(k);
    return l;
  }

  template <class B>
  B& link(B& b) {
    if (last == kNoBlock && !pending.empty()) last = r.add_state(unique("assign")).id();
    if (last != kNoBlock) {
      InterstateEdge e;
      e.assignments = std::move(pending);
      r.add_edge(last, b.id(), e);
    }
    pending.clear();
    last = b.id();
    if (!where.empty() && !b.extra.find("debuginfo")) b.extra.set("debuginfo", where);
    return b;
  }
  SDFGState& state(const std::string& label) { return link(r.add_state(unique(label))); }
  void finish() {
    where.clear();  // the end of the sequence is no statement's
    if (!pending.empty() || last == kNoBlock) state("end");
  }
};

class Lowering {
 public:
  Lowering(const Orchestration& o, const LoweringOptions& opt) : o_(o), opt_(opt), flow_(o, table_) {}

  std::unique_ptr<SDFG> run() {
    sdfg_ = std::make_unique<SDFG>(opt_.sdfg_name.empty() ? o_.name : opt_.sdfg_name);
    for (const TypedDefinition* c : o_.callees) {
      LoweringOptions lo = opt_;
      lo.sdfg_name = c->name;
      lowered_[c] = lower_to_sdfg(*c, lo);
    }
    // Parameters.
    for (const TParam& p : o_.params) {
      if (p.type.is_field()) {
        std::vector<sym::Expr> shape;
        for (const Dimension& d : p.type.dims) {
          if (d.kind == DimensionKind::Local) {
            shape.push_back(local_extent(d, p));
            continue;
          }
          const std::string s = size_symbol(p.name, d.name);
          sdfg_->add_symbol(s, ScalarType::Int64);
          shape.push_back(sym::Expr::symbol(s));
        }
        lowering::record_dims(sdfg_->add_array(p.name, to_sdfg_type(p.type.dtype), shape, false),
                              p.type.dims);
      } else if (is_floating(p.type.dtype)) {
        sdfg_->add_scalar(p.name, to_sdfg_type(p.type.dtype), false);
        value_name_[p.name] = "__value_" + p.name;
      } else {
        sdfg_->add_symbol(p.name, to_sdfg_type(p.type.dtype));
      }
      sdfg_->arg_names.push_back(p.name);
    }
    for (const auto& [var, t] : o_.scalars) {
      std::string n = value(var);
      if (!sdfg_->has_data(n)) sdfg_->add_symbol(n, to_sdfg_type(t.dtype));
    }
    // Local fields: one transient per Alloc statement, shaped by its own size expressions
    // (a half-level temporary is one level longer than a full-level one).
    for (const auto& [stmt, slot] : flow_.allocs()) {
      std::vector<sym::Expr> shape;
      for (const TExprPtr& v : stmt->values) shape.push_back(sym::Expr::parse(py(*v)));
      for (const sym::Expr& s : shape)
        for (const std::string& f : s.free_symbols())
          if (assigned_anywhere(f))
            throw FrontendError(stmt->loc,
                                "the size of a local field may only use parameters that are never "
                                "reassigned ('" +
                                    f + "' is assigned in the function)");
      lowering::record_dims(sdfg_->add_array(slot, to_sdfg_type(stmt->type.dtype), shape, true),
                            stmt->type.dims);
    }
    Seq top{*sdfg_};
    for (const auto& [param, name] : value_name_) top.pending.emplace_back(name, param);
    int init = flow_.initial();
    tracked_ = needs_tracking();
    if (tracked_) {
      sdfg_->add_symbol(kBinding, ScalarType::Int64);
      top.pending.emplace_back(kBinding, std::to_string(init));
    }
    emit(o_.body, top, {init});
    top.finish();
    // Connectivity tables used by callees: arguments after the parameters, by name.
    for (const auto& [name, desc] : tables_) sdfg_->arg_names.push_back(name);
    return std::move(sdfg_);
  }

 private:
  const Orchestration& o_;
  const LoweringOptions& opt_;
  BindingTable table_;
  BindingFlow flow_;
  std::unique_ptr<SDFG> sdfg_;
  std::map<const TypedDefinition*, std::unique_ptr<SDFG>> lowered_;
  std::map<const TypedDefinition*, std::vector<std::unique_ptr<SDFG>>> pieces_;
  std::map<std::string, std::string> value_name_;  // float parameter -> its symbol
  std::map<std::string, DataDescriptor> tables_;
  bool tracked_ = false;
  int fresh_ = 0;
  // The control-flow labels' numbers: per kind, in the order the statements first appear.
  std::map<std::string, std::map<const OStmt*, int>> ordinals_;
  std::map<std::string, std::string> hoisted_;      // the current call's parameter -> its symbol
  std::map<std::string, std::string> snapshot_of_;  // slot -> its copy before a call (snapshots())

  // A local dimension's extent: the neighbour count the callees' lowerings give it.
  sym::Expr local_extent(const Dimension& d, const TParam& p) const {
    for (const auto& [callee, sdfg] : lowered_)
      for (const TParam& tp : callee->params)
        for (std::size_t j = 0; j < tp.type.dims.size(); ++j)
          if (tp.type.dims[j] == d && sdfg->has_data(tp.name)) return sdfg->data(tp.name).shape[j];
    throw FrontendError(p.loc, "the extent of the local dimension '" + d.name + "' of '" + p.name +
                                   "' is not known: no program the function calls has a field over it");
  }

  std::string value(const std::string& var) const {
    auto it = value_name_.find(var);
    return it == value_name_.end() ? var : it->second;
  }

  bool assigned_anywhere(const std::string& sym) const {
    bool found = false;
    std::function<void(const std::vector<OStmt>&)> walk = [&](const std::vector<OStmt>& body) {
      for (const OStmt& s : body) {
        if ((s.kind == OStmt::Kind::Assign || s.kind == OStmt::Kind::For) &&
            std::find(s.targets.begin(), s.targets.end(), sym) != s.targets.end())
          found = true;
        walk(s.body);
        walk(s.orelse);
      }
    };
    walk(o_.body);
    return found;
  }

  // Several bindings are possible somewhere: the symbol __binding records which one holds.
  bool needs_tracking() {
    bool many = false;
    flow_.run(o_.body, {flow_.initial()}, nullptr, nullptr,
              [&](const OStmt&, const std::set<int>& cur) { many = many || cur.size() > 1; });
    return many;
  }

  // ------------------------------------------------------------------ scalar expressions

  // Python text of a scalar expression (interstate edges, loop bounds, symbol mappings).
  std::string py(const TExpr& e) const {
    switch (e.kind) {
      case TExprKind::Name: return value(e.name);
      case TExprKind::Literal:
        switch (e.literal.kind) {
          case ConstantValue::Kind::Int:
            return e.literal.int_value < 0 ? "(" + std::to_string(e.literal.int_value) + ")"
                                           : std::to_string(e.literal.int_value);
          case ConstantValue::Kind::Float:
            return e.literal.float_value < 0 ? "(" + float_text(e.literal.float_value) + ")"
                                             : float_text(e.literal.float_value);
          case ConstantValue::Kind::Bool: return e.literal.bool_value ? "True" : "False";
          case ConstantValue::Kind::String: break;
        }
        break;
      case TExprKind::Unary:
        if (e.unary_op == UnaryOperator::Not) return "(not " + py(*e.args[0]) + ")";
        return "(" + std::string(to_string(e.unary_op)) + py(*e.args[0]) + ")";
      case TExprKind::Binary: {
        std::string a = py(*e.args[0]), b = py(*e.args[1]);
        if (e.type.dtype == ScalarKind::Bool && e.binary_op == BinaryOperator::BitAnd)
          return "(" + a + " and " + b + ")";
        if (e.type.dtype == ScalarKind::Bool && e.binary_op == BinaryOperator::BitOr)
          return "(" + a + " or " + b + ")";
        if (e.binary_op == BinaryOperator::Div && !is_floating(e.args[0]->type.dtype) &&
            !is_floating(e.args[1]->type.dtype))
          a = "(1.0 * " + a + ")";  // Python's true division of integers
        return "(" + a + " " + std::string(to_string(e.binary_op)) + " " + b + ")";
      }
      case TExprKind::Compare:
        return "(" + py(*e.args[0]) + " " + std::string(to_string(e.compare_op)) + " " + py(*e.args[1]) + ")";
      case TExprKind::Ternary:
        return "(" + py(*e.args[1]) + " if " + py(*e.args[0]) + " else " + py(*e.args[2]) + ")";
      case TExprKind::Builtin:
        if (e.name == "astype") {
          // Toward zero for every integer type (`gtx.int32(s)`); values outside int32 are not
          // wrapped as NumPy's cast would wrap them.
          if (is_integral(e.type.dtype))
            return is_integral(e.args[0]->type.dtype) ? py(*e.args[0]) : "int(" + py(*e.args[0]) + ")";
          if (e.type.dtype == ScalarKind::Bool) return "(" + py(*e.args[0]) + " != 0)";
          return "(1.0 * " + py(*e.args[0]) + ")";
        }
        break;
      default: break;
    }
    throw FrontendError(e.loc, "this expression cannot be lowered in an orchestrated function");
  }

  // ------------------------------------------------------------------ statements

  void emit(const std::vector<OStmt>& body, Seq& seq, std::set<int> cur) {
    for (const OStmt& s : body) {
      if (cur.empty() || seq.dead) return;
      if (s.loc.known()) seq.where = lowering::debuginfo_json(s.loc);
      switch (s.kind) {
        case OStmt::Kind::Assign: {
          // All values first (tuple assignment), through temporaries when a later value reads
          // an earlier target.
          std::vector<std::string> vals;
          for (const TExprPtr& v : s.values) vals.push_back(py(*v));
          if (s.targets.size() == 1) {
            seq.assign(value(s.targets[0]), vals[0]);
          } else {
            std::vector<std::string> tmps;
            for (std::size_t i = 0; i < vals.size(); ++i) {
              std::string t = "__tmp" + std::to_string(fresh_++);
              sdfg_->add_symbol(t, to_sdfg_type(s.values[i]->type.dtype));
              seq.assign(t, vals[i]);
              tmps.push_back(t);
            }
            for (std::size_t i = 0; i < vals.size(); ++i) seq.assign(value(s.targets[i]), tmps[i]);
          }
          break;
        }
        case OStmt::Kind::Bind: {
          std::set<int> next = flow_.step(s, cur);
          rebind(seq, cur, s);
          cur = std::move(next);
          break;
        }
        case OStmt::Kind::Alloc: {
          std::set<int> next = flow_.step(s, cur);
          rebind(seq, cur, s);
          if (s.zero) zero(seq.state("zeros_" + flow_.allocs().at(&s)), flow_.allocs().at(&s));
          cur = std::move(next);
          break;
        }
        case OStmt::Kind::Call: call(seq, cur, s); break;
        case OStmt::Kind::Reduce: reduce(seq, cur, s); break;
        case OStmt::Kind::If: {
          ConditionalBlock& cb = seq.link(seq.r.add_conditional(seq.unique(structural_label("if", s))));
          std::set<int> out;
          for (int branch = 0; branch < 2; ++branch) {
            const std::vector<OStmt>& b = branch == 0 ? s.body : s.orelse;
            std::optional<CodeBlock> cond;
            if (branch == 0) cond = CodeBlock{py(*s.values[0]), Language::Python};
            ControlFlowRegion& region = cb.add_branch(cond, branch == 0 ? "then" : "else");
            Seq inner{region};
            emit(b, inner, cur);
            inner.finish();
            std::set<int> brk, cont;
            std::set<int> end = flow_.run(b, cur, &brk, &cont);
            out.insert(end.begin(), end.end());
          }
          cur = std::move(out);
          break;
        }
        case OStmt::Kind::For:
        case OStmt::Kind::While: {
          std::set<int> brk;
          std::set<int> head = flow_.loop_head(s, cur, &brk);
          LoopRegion* loop = nullptr;
          std::string label = structural_label(s.kind == OStmt::Kind::For ? "for" : "while", s);
          if (s.kind == OStmt::Kind::For) {
            const std::string& v = value(s.targets[0]);
            std::string lo = py(*s.values[0]), hi = py(*s.values[1]);
            if (s.values[1]->kind != TExprKind::Literal) {
              // range() evaluates its bounds once, before the first iteration.
              std::string h = "__range_end" + std::to_string(fresh_++);
              sdfg_->add_symbol(h, ScalarType::Int64);
              seq.assign(h, hi);
              hi = h;
            }
            std::vector<int> chain = binding_cycle(s, cur);
            if (chain.size() > 1) {
              unrolled(seq, s, chain, lo, hi, label);
              cur = head;
              break;
            }
            loop = &seq.link(seq.r.add_loop(seq.unique(label), v, v + " = " + lo,
                                            v + (s.step > 0 ? " < " : " > ") + hi,
                                            v + " = " + v + " + " + signed_text(s.step)));
          } else {
            loop = &seq.link(seq.r.add_loop(seq.unique(label), "", "", py(*s.values[0]), ""));
          }
          Seq inner{*loop};
          emit(s.body, inner, head);
          inner.finish();
          cur = head;
          cur.insert(brk.begin(), brk.end());
          break;
        }
        case OStmt::Kind::Break:
        case OStmt::Kind::Continue: {
          BlockKind k = s.kind == OStmt::Kind::Break ? BlockKind::Break : BlockKind::Continue;
          auto& b = seq.r.add_block(std::make_unique<ControlTransferBlock>(
              k, seq.unique(k == BlockKind::Break ? "break" : "continue")));
          seq.link(b);
          seq.dead = true;
          return;
        }
      }
    }
  }

  // The label of a statement's region or state: its kind and its number among the function's
  // statements of that kind in order of appearance ("for1", "if2"), never its line, so a line
  // added above it changes no label and no generated code (ADR 0061); the line stays in the
  // block's debuginfo (Seq::link), for messages, and the viewer. A statement met again
  // (a body unrolled k times) keeps its number.
  std::string structural_label(const std::string& kind, const OStmt& s) {
    auto& numbers = ordinals_[kind];
    auto it = numbers.try_emplace(&s, static_cast<int>(numbers.size()) + 1).first;
    return kind + std::to_string(it->second);
  }

  static std::string signed_text(std::int64_t v) {
    return v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v);
  }

  // The bindings a `for` loop entered with one binding goes through when its body maps each
  // binding to exactly one other and never breaks or continues: b0 -> b1 -> ... -> b0. Empty
  // when that does not hold (or the body keeps the binding).
  std::vector<int> binding_cycle(const OStmt& loop, const std::set<int>& in) const {
    if (in.size() != 1) return {};
    std::vector<int> chain{*in.begin()};
    while (true) {
      std::set<int> brk, cont;
      std::set<int> end = flow_.run(loop.body, {chain.back()}, &brk, &cont);
      if (end.size() != 1 || !brk.empty() || !cont.empty()) return {};
      int next = *end.begin();
      if (next == chain.front()) return chain.size() > 1 ? chain : std::vector<int>{};
      if (std::find(chain.begin(), chain.end(), next) != chain.end()) return {};
      chain.push_back(next);
    }
  }

  // A loop whose body cycles through k bindings, unrolled k times so every call of the body is
  // connected to its arrays at compile time: each iteration of the LoopRegion (counter
  // __round<n>) runs copy 0 of the body, then copies 1 .. k-1 each where its own iteration is
  // still in the range (a ConditionalBlock), so no copy of the body runs after the loop.
  void unrolled(Seq& seq, const OStmt& s, const std::vector<int>& chain, const std::string& lo,
                const std::string& hi, const std::string& label) {
    const std::string& v = value(s.targets[0]);
    std::string u = "__round" + std::to_string(fresh_++);
    sdfg_->add_symbol(u, ScalarType::Int64);
    std::int64_t k = static_cast<std::int64_t>(chain.size());
    const char* lt = s.step > 0 ? " < " : " > ";
    LoopRegion& loop = seq.link(seq.r.add_loop(seq.unique(label), u, u + " = " + lo, u + lt + hi,
                                               u + " = " + u + " + " + signed_text(k * s.step)));
    Seq inner{loop};
    inner.assign(v, u);
    emit(s.body, inner, {chain[0]});
    for (std::int64_t j = 1; j < k; ++j) {
      std::string at = "(" + u + " + " + signed_text(j * s.step) + ")";
      inner.where = seq.where;
      ConditionalBlock& cb =
          inner.link(inner.r.add_conditional(inner.unique(label + "_copy" + std::to_string(j))));
      ControlFlowRegion& region = cb.add_branch(CodeBlock{at + lt + hi, Language::Python}, "then");
      Seq copy{region};
      copy.assign(v, at);
      emit(s.body, copy, {chain[static_cast<std::size_t>(j)]});
      copy.finish();
    }
    inner.finish();
  }

  // Records the binding after a Bind/Alloc in __binding (only when bindings are tracked).
  void rebind(Seq& seq, const std::set<int>& cur, const OStmt& s) {
    if (!tracked_) return;
    if (cur.size() == 1) {
      seq.assign(kBinding, std::to_string(*flow_.step(s, cur).begin()));
      return;
    }
    ConditionalBlock& cb = seq.link(seq.r.add_conditional(seq.unique(structural_label("rebind", s))));
    for (int id : cur) {
      ControlFlowRegion& region =
          cb.add_branch(CodeBlock{std::string(kBinding) + " == " + std::to_string(id), Language::Python});
      Seq inner{region};
      inner.where = seq.where;
      inner.pending.emplace_back(kBinding, std::to_string(*flow_.step(s, {id}).begin()));
      inner.finish();
    }
  }

  void zero(SDFGState& st, const std::string& slot) {
    const DataDescriptor& d = sdfg_->data(slot);
    std::vector<std::string> params;
    std::vector<Range> ranges, point;
    for (std::size_t i = 0; i < d.shape.size(); ++i) {
      params.push_back("__i" + std::to_string(i));
      ranges.emplace_back(sym::Expr(0), d.shape[i] - sym::Expr(1));
      point.push_back(Range::index(sym::Expr::symbol(params.back())));
    }
    MapEntry& me = st.add_map("zeros_" + slot, params, Subset(ranges), opt_.map_schedule);
    NodeId entry = me.id(), exit = me.exit;
    Tasklet& t = st.add_tasklet("zero", CodeBlock{"__out = 0", Language::Python}, {}, {"__out"});
    NodeId tid = t.id();
    AccessNode& a = st.add_access(slot);
    st.add_edge(entry, "", tid, "", Memlet{});
    st.add_memlet_path({tid, exit, a.id()}, Memlet::simple(slot, Subset(point)), "__out");
    // The exit's outer memlet covers the whole array.
    for (EdgeId e : st.in_edges(a.id())) st.edge(e).memlet = Memlet::simple(slot, Subset::full(d.shape));
  }

  void call(Seq& seq, const std::set<int>& cur, const OStmt& s) {
    const std::vector<std::unique_ptr<SDFG>>& parts = pieces(*s.callee);
    // A symbol argument (a domain bound) that symbolic expressions cannot state, a float
    // truncated by `gtx.int32(x)`, is computed into a symbol of its own on the edge before.
    hoisted_.clear();
    for (std::size_t i = 0; i < s.callee->params.size(); ++i) {
      const TParam& tp = s.callee->params[i];
      if (tp.type.is_field() || !is_integral(tp.type.dtype)) continue;
      std::string text = py(*s.args[i].scalar);
      if (text.find("int(") == std::string::npos) continue;
      std::string h = "__bound" + std::to_string(fresh_++);
      sdfg_->add_symbol(h, ScalarType::Int64);
      seq.assign(h, text);
      hoisted_[tp.name] = h;
    }
    if (cur.size() == 1) {
      const Binding& b = table_.all[static_cast<std::size_t>(*cur.begin())];
      std::map<std::string, std::string> before = snapshots(seq, b, s);
      for (const auto& piece : parts) call_state(seq.state("call_" + piece->name), b, s, *piece, before);
      return;
    }
    ConditionalBlock& cb = seq.link(seq.r.add_conditional(seq.unique("call_" + s.callee->name)));
    for (int id : cur) {
      ControlFlowRegion& region =
          cb.add_branch(CodeBlock{std::string(kBinding) + " == " + std::to_string(id), Language::Python});
      Seq inner{region};
      inner.where = seq.where;
      const Binding& b = table_.all[static_cast<std::size_t>(id)];
      std::map<std::string, std::string> before = snapshots(inner, b, s);
      for (const auto& piece : parts) call_state(inner.state("call_" + piece->name), b, s, *piece, before);
    }
  }

  // A field passed for a parameter the callee reads and for another one it writes
  // (`advection(q, ..., q)`): the callee's lowering treats its parameters as distinct arrays,
  // so in place its reads would see points already written (a neighbour read). gt4py and the
  // embedded backend compute the call out of place, so the read parameter gets a copy of the
  // field taken before the call, in a state of its own (docs/adr/0019, session 32). Returns the
  // read parameters so redirected, each to its copy.
  std::map<std::string, std::string> snapshots(Seq& seq, const Binding& b, const OStmt& s) {
    const TypedDefinition& p = *s.callee;
    const SDFG& whole = *lowered_.at(&p);
    std::set<std::string> reads, writes;
    for (const SDFGState* st : whole.all_states())
      for (const Node* n : st->nodes())
        if (auto* a = n->as<AccessNode>(); a && !whole.data(a->data).transient) {
          if (!st->out_edges(n->id()).empty()) reads.insert(a->data);
          if (!st->in_edges(n->id()).empty()) writes.insert(a->data);
        }
    std::set<std::string> written;  // the slots the callee writes
    for (std::size_t i = 0; i < p.params.size(); ++i)
      if (p.params[i].type.is_field() && writes.count(p.params[i].name))
        written.insert(b.at(s.args[i].field));
    std::map<std::string, std::string> out;
    SDFGState* st = nullptr;
    for (std::size_t i = 0; i < p.params.size(); ++i) {
      const TParam& tp = p.params[i];
      if (!tp.type.is_field() || !reads.count(tp.name) || writes.count(tp.name)) continue;
      const std::string& slot = b.at(s.args[i].field);
      if (!written.count(slot)) continue;
      auto [it, fresh] = snapshot_of_.try_emplace(slot);
      if (fresh) {
        const DataDescriptor& d = sdfg_->data(slot);
        it->second = sdfg_->unique_data_name("__" + slot + "_before_call");
        std::vector<std::string> dims = field_dims(d);
        DataDescriptor& copy = sdfg_->add_array(it->second, d.dtype.base, d.shape, true);
        if (!dims.empty()) set_field_dims(copy, dims);
      }
      if (!st) st = &seq.state("before_" + p.name);
      const DataDescriptor& d = sdfg_->data(slot);
      NodeId src = st->add_access(slot).id();
      NodeId dst = st->add_access(it->second).id();
      st->add_edge(src, "", dst, "", Memlet::simple(slot, Subset::full(d.shape)));
      out[tp.name] = it->second;
    }
    return out;
  }

  // A Reduce statement: a Reduce library node from the slice of the array the field names (per
  // binding, as a call) into a transient Scalar, which the next interstate edge copies into the
  // statement's symbol. The compile path expands the node (library-expansion).
  void reduce(Seq& seq, const std::set<int>& cur, const OStmt& s) {
    const std::string& var = s.targets[0];
    const std::string out = sdfg_->unique_data_name("__red_" + var.substr(var.rfind("__") + 2));
    sdfg_->add_scalar(out, to_sdfg_type(o_.scalars.at(var).dtype), true);
    const std::string label = structural_label("reduce", s);
    if (cur.size() == 1) {
      reduce_state(seq.state(label), table_.all[static_cast<std::size_t>(*cur.begin())].at(s.sources[0]), s,
                   out);
    } else {
      ConditionalBlock& cb = seq.link(seq.r.add_conditional(seq.unique(label)));
      for (int id : cur) {
        ControlFlowRegion& region =
            cb.add_branch(CodeBlock{std::string(kBinding) + " == " + std::to_string(id), Language::Python});
        Seq inner{region};
        inner.where = seq.where;
        reduce_state(inner.state(label), table_.all[static_cast<std::size_t>(id)].at(s.sources[0]), s, out);
      }
    }
    seq.assign(value(var), out);
  }

  void reduce_state(SDFGState& st, const std::string& slot, const OStmt& s, const std::string& out) {
    const DataDescriptor& d = sdfg_->data(slot);
    // Python's slice bounds; literal bounds past a symbolic size are not clamped (ADR 0019).
    auto at = [&](std::int64_t b, std::size_t i) { return b < 0 ? d.shape[i] + sym::Expr(b) : sym::Expr(b); };
    std::vector<Range> ranges;
    for (std::size_t i = 0; i < d.shape.size(); ++i) {
      sym::Expr lo = i < s.lower.size() ? at(s.lower[i], i) : sym::Expr(0);
      sym::Expr hi = i < s.upper.size() && s.upper[i] ? at(*s.upper[i], i) : d.shape[i];
      ranges.emplace_back(lo, hi - sym::Expr(1));
    }
    // np.max and np.min propagate NaN wherever it is (NumPy's maximum/minimum, as max_over:
    // lowering_builtins.cpp's numpy_extremum); Python's max(a, b) would drop a NaN after the first
    // point. `reduction` names the kind for readers of the wcr text (global_reductions.cpp).
    static const std::map<std::string, std::pair<std::string, std::string>> kinds = {
        {"max", {"lambda a, b: (a if (a > b or a != a) else b)", "\"-inf\""}},
        {"min", {"lambda a, b: (a if (a < b or a != a) else b)", "\"inf\""}},
        {"sum", {"lambda a, b: a + b", "0"}}};
    // Of absolute values (`np.max(np.abs(u))`): the new value `b` enters as abs(b), and the
    // identity of max is 0 (no |x| is below it), so that combining partial results, which are
    // absolute already (or the identity), changes none of them.
    static const std::map<std::string, std::pair<std::string, std::string>> absolute_kinds = {
        {"max", {"lambda a, b: (a if (a > abs(b) or a != a) else abs(b))", "0"}},
        {"min", {"lambda a, b: (a if (a < abs(b) or a != a) else abs(b))", "\"inf\""}},
        {"sum", {"lambda a, b: a + abs(b)", "0"}}};
    const auto& [wcr, identity] = (s.absolute ? absolute_kinds : kinds).at(s.reduction);
    auto lib = std::make_unique<LibraryNode>(
        "reduce_" + s.reduction + (s.absolute ? "_abs_" : "_") + s.sources[0], "Reduce");
    lib->classpath = kDaceReduceClasspath;
    lib->wcr = wcr;
    lib->identity = identity;
    const ScalarKind k = o_.scalars.at(s.targets[0]).dtype;
    if (s.reduction != "sum" && !is_floating(k) && !(s.absolute && s.reduction == "max")) {
      // the extreme value of the integer type
      const bool narrow = o_.fields.at(s.sources[0]).dtype != ScalarKind::Int64;
      lib->identity = s.reduction == "max" ? (narrow ? "-2147483648" : "-9223372036854775807")
                                           : (narrow ? "2147483647" : "9223372036854775807");
    }
    lib->in_connectors["_in"] = std::nullopt;
    lib->out_connectors["_out"] = std::nullopt;
    // The slice as written and the statement's place, for a decomposition (which reduces only
    // the points a rank owns and names the statement where it cannot; docs/adr/0057).
    std::string lower = "[", upper = "[";
    for (std::size_t i = 0; i < s.lower.size(); ++i) {
      lower += (i ? ", " : "") + std::to_string(s.lower[i]);
      upper += (i ? ", " : "") + (s.upper[i] ? std::to_string(*s.upper[i]) : std::string("null"));
    }
    lib->extra.set("reduction", "\"" + s.reduction + "\"");
    lib->extra.set("slice_lower", lower + "]");
    lib->extra.set("slice_upper", upper + "]");
    lib->extra.set("debuginfo", lowering::debuginfo_json(s.loc));
    AccessNode& a = st.add_access(slot);
    NodeId aid = a.id();
    Node& r = st.add_node(std::move(lib));
    NodeId rid = r.id();
    AccessNode& o = st.add_access(out);
    st.add_edge(aid, "", rid, "_in", Memlet::simple(slot, Subset(ranges)));
    st.add_edge(rid, "_out", o.id(), "", Memlet::simple(out, Subset({Range::index(0)})));
  }

  // The callee's SDFG, split into one SDFG per state when it is a plain chain of states (a
  // program of several calls): each becomes a nested SDFG of a single state, which the
  // compiled backends inline, so maps of consecutive calls can fuse across programs too.
  const std::vector<std::unique_ptr<SDFG>>& pieces(const TypedDefinition& p) {
    auto it = pieces_.find(&p);
    if (it != pieces_.end()) return it->second;
    std::vector<std::unique_ptr<SDFG>>& out = pieces_[&p];
    const SDFG& whole = *lowered_.at(&p);
    bool chain = whole.num_blocks() > 1;
    for (const ControlFlowBlock* b : whole.blocks()) chain = chain && b->as<SDFGState>() != nullptr;
    for (const ControlFlowEdge* e : whole.edges())
      chain = chain && e->data.is_unconditional() && e->data.assignments.empty();
    // A transient one state writes and a later one reads (an out= result computed into a
    // temporary, then copied; docs/adr/0043) must stay in one SDFG: each piece has its own.
    std::map<std::string, std::set<const SDFGState*>> transient_states;
    for (const SDFGState* st : whole.all_states())
      for (const Node* n : st->nodes())
        if (auto* a = n->as<AccessNode>(); a && whole.data(a->data).transient)
          transient_states[a->data].insert(st);
    for (const auto& [name, states] : transient_states) chain = chain && states.size() <= 1;
    if (!chain) {
      out.push_back(whole.clone_sdfg());
      return out;
    }
    for (BlockId keep : whole.reverse_post_order()) {
      std::unique_ptr<SDFG> piece = whole.clone_sdfg();
      for (ControlFlowBlock* b : piece->blocks())
        if (b->id() != keep) piece->remove_block(b->id());
      piece->name = whole.name + "_" + std::to_string(out.size());
      // Arguments this state does not access are no containers of the piece (a nested SDFG
      // connects every non-transient container).
      std::set<std::string> used;
      for (const SDFGState* st : piece->all_states())
        for (const Node* n : st->nodes())
          if (auto* a = n->as<AccessNode>()) used.insert(a->data);
      std::vector<std::string> unused;
      for (const auto& [name, d] : piece->arrays)
        if (!d.transient && !used.count(name)) unused.push_back(name);
      for (const std::string& name : unused) piece->remove_data(name);
      piece->arg_names.erase(std::remove_if(piece->arg_names.begin(), piece->arg_names.end(),
                                            [&](const std::string& a) {
                                              return !piece->has_data(a) && !piece->symbols.count(a);
                                            }),
                             piece->arg_names.end());
      out.push_back(std::move(piece));
    }
    return out;
  }

  // One call: `inner` (the callee's SDFG or a piece of it) nested in `st`, its field parameters
  // connected to the arrays the arguments name under binding `b`.
  // `before` redirects read parameters to the copies snapshots() took.
  void call_state(SDFGState& st, const Binding& b, const OStmt& s, const SDFG& piece,
                  const std::map<std::string, std::string>& before) {
    const TypedDefinition& p = *s.callee;
    std::unique_ptr<SDFG> inner = piece.clone_sdfg();
    // Which containers the callee reads and writes.
    std::set<std::string> reads, writes, accessed;
    for (const SDFGState* is : inner->all_states())
      for (const Node* n : is->nodes())
        if (auto* a = n->as<AccessNode>()) {
          accessed.insert(a->data);
          if (inner->data(a->data).transient) continue;
          if (!is->out_edges(n->id()).empty()) reads.insert(a->data);
          if (!is->in_edges(n->id()).empty()) writes.insert(a->data);
        }
    std::map<std::string, sym::Expr> mapping;
    std::vector<std::pair<std::string, std::string>> conns;  // connector -> outer container
    std::map<std::string, NodeId> arg_nodes;                 // scalar arguments' transients
    std::set<std::string> written_outer;
    for (std::size_t i = 0; i < p.params.size(); ++i) {
      const TParam& tp = p.params[i];
      const OArg& a = s.args[i];
      if (tp.type.is_field()) {
        if (!inner->has_data(tp.name)) continue;  // a piece that does not access this field
        auto redirected = before.find(tp.name);
        std::string slot = redirected != before.end() ? redirected->second : b.at(a.field);
        const DataDescriptor& in_desc = inner->data(tp.name);
        const DataDescriptor& out_desc = sdfg_->data(slot);
        for (std::size_t d = 0; d < in_desc.shape.size(); ++d)
          if (in_desc.shape[d].is_symbol()) mapping[in_desc.shape[d].symbol_name()] = out_desc.shape[d];
        if (writes.count(tp.name) && !written_outer.insert(slot).second)
          throw FrontendError(
              s.loc, "'" + a.field + "' is passed for two parameters of '" + p.name + "' that it writes");
        conns.emplace_back(tp.name, slot);
        continue;
      }
      std::string text = hoisted_.count(tp.name) ? hoisted_.at(tp.name) : py(*a.scalar);
      if (inner->symbols.count(tp.name) && !inner->has_data(tp.name)) {
        mapping[tp.name] = sym::Expr::parse(text);
        continue;
      }
      if (!reads.count(tp.name)) {
        // A piece, or a whole callee, that does not use this scalar: its container would be a
        // non-transient without a connector (invalid), so it goes when nothing accesses it.
        if (inner->has_data(tp.name) && !accessed.count(tp.name)) {
          inner->remove_data(tp.name);
          auto& names = inner->arg_names;
          names.erase(std::remove(names.begin(), names.end(), tp.name), names.end());
        }
        continue;
      }
      // A Scalar container of the callee: computed into a transient of its dtype.
      std::string t = sdfg_->unique_data_name("__arg_" + tp.name);
      sdfg_->add_scalar(t, to_sdfg_type(tp.type.dtype), true);
      Tasklet& tk =
          st.add_tasklet("arg_" + tp.name, CodeBlock{"__out = " + text, Language::Python}, {}, {"__out"});
      NodeId tid = tk.id();
      AccessNode& an = st.add_access(t);
      st.add_edge(tid, "__out", an.id(), "", Memlet::simple(t, Subset({Range::index(0)})));
      arg_nodes[t] = an.id();
      conns.emplace_back(tp.name, t);
    }
    // Connectivity tables: outer arrays of the same name and shape.
    for (const auto& [name, desc] : inner->arrays) {
      const std::string& table = name;  // (clang cannot capture a structured binding)
      if (desc.transient || (!reads.count(name) && !writes.count(name)) ||
          std::any_of(conns.begin(), conns.end(), [&](const auto& c) { return c.first == table; }))
        continue;
      if (!sdfg_->has_data(name)) {
        for (const sym::Expr& e : desc.shape)
          for (const std::string& f : e.free_symbols()) sdfg_->add_symbol(f, ScalarType::Int64);
        sdfg_->add_data(name, desc);
        tables_[name] = desc;
      }
      for (const sym::Expr& e : desc.shape)
        if (e.is_symbol()) mapping[e.symbol_name()] = e;
      conns.emplace_back(name, name);
    }
    // Free symbols of the callee not mapped yet keep their names.
    for (const std::string& f : inner->free_symbols())
      if (!mapping.count(f)) mapping[f] = sym::Expr::symbol(f);
    // A piece keeps the callee's symbol declarations, also the sizes of fields and tables it does
    // not access. DaCe counts a declared symbol free (ADR 0050): drop those nothing in the piece
    // reads; any other keeps its name too.
    for (const std::string& f : dace_free_symbols(*inner)) {
      if (mapping.count(f)) continue;
      if (auto it = inner->symbols.find(f); it != inner->symbols.end()) {
        const DataType type = it->second;
        inner->symbols.erase(it);
        if (!dace_free_symbols(*inner).count(f)) continue;
        inner->symbols.emplace(f, type);
      }
      mapping[f] = sym::Expr::symbol(f);
    }
    std::vector<std::string> ins, outs;
    for (const auto& [c, outer] : conns) {
      if (reads.count(c)) ins.push_back(c);
      if (writes.count(c)) outs.push_back(c);
    }
    std::map<std::string, std::string> outer_of(conns.begin(), conns.end());
    NestedSDFGNode& n = st.add_nested_sdfg(piece.name, std::move(inner), ins, outs, mapping);
    NodeId nid = n.id();
    for (const std::string& c : ins) {
      const std::string& outer = outer_of.at(c);
      const DataDescriptor& d = sdfg_->data(outer);
      NodeId src = arg_nodes.count(outer) ? arg_nodes.at(outer) : st.add_access(outer).id();
      st.add_edge(src, "", nid, c,
                  Memlet::simple(outer, d.is_scalar() ? Subset({Range::index(0)}) : Subset::full(d.shape)));
    }
    for (const std::string& c : outs) {
      const std::string& outer = outer_of.at(c);
      const DataDescriptor& d = sdfg_->data(outer);
      NodeId dst = st.add_access(outer).id();
      st.add_edge(nid, c, dst, "", Memlet::simple(outer, Subset::full(d.shape)));
    }
  }
};

}  // namespace

std::unique_ptr<SDFG> lower_orchestration(const Orchestration& o, const LoweringOptions& options) {
  return Lowering(o, options).run();
}

}  // namespace weir::frontend
