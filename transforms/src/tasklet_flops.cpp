// Floating-point operations of a tasklet's Python code, counted on its syntax tree with the type
// of every subexpression (static_costs.h, tasklet_flops; user31's G19: the integer clamps
// `max(idx, 0)` of an unstructured stencil's table entries are not FLOPs).
#include <set>
#include <string>

#include "weir/pycode/ast.h"
#include "weir/pycode/code.h"
#include "weir/sdfg/promotion.h"
#include "weir/sdfg/state.h"
#include "weir/transforms/static_costs.h"

namespace weir::transforms {

namespace {

using namespace pycode;

bool floating(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::Float32 || t == ScalarType::Float64 ||
         t == ScalarType::Complex64 || t == ScalarType::Complex128;
}

/// An operand's type for the promotion table (a bool computes as an integer).
ScalarType numeric(ScalarType t) { return t == ScalarType::Bool ? ScalarType::Int64 : t; }

/// The type of a float-only function's result (sqrt, exp, ...): float32 for float32 arguments
/// only, complex for a complex one, else float64.
ScalarType float_result(ScalarType t) {
  if (t == ScalarType::Float32 || t == ScalarType::Complex64 || t == ScalarType::Complex128) return t;
  return ScalarType::Float64;
}

std::string callee_name(const Expr* f) {
  if (f->kind == ExprKind::Name) return static_cast<const Name*>(f)->id;
  if (f->kind == ExprKind::Attribute) return static_cast<const Attribute*>(f)->attr;
  return "";
}

/// An expression's FLOPs and the type of its value.
struct Typed {
  long long flops = 0;
  ScalarType type = ScalarType::Float64;
};

/// Walks statements in order: the type of a local is the type of the value last assigned to it.
class FlopCounter {
 public:
  explicit FlopCounter(const TaskletNameTypes& names) : names_(names) {}

  long long statements(const StmtList& body) {
    long long n = 0;
    for (const auto& s : body) n += statement(*s);
    return n;
  }

 private:
  const TaskletNameTypes& names_;
  TaskletNameTypes locals_;

  ScalarType name_type(const std::string& id) const {
    if (auto it = locals_.find(id); it != locals_.end()) return it->second;
    if (auto it = names_.find(id); it != names_.end()) return it->second;
    if (id == "True" || id == "False") return ScalarType::Bool;
    return ScalarType::Float64;  // unknown: counted, as an untyped value would be
  }

  void assign(const Expr* target, ScalarType t) {
    if (target && target->kind == ExprKind::Name) {
      const std::string& id = static_cast<const Name*>(target)->id;
      if (!names_.count(id)) locals_[id] = t;  // connectors keep their container's type
    }
  }

  long long statement(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Assign: {
        auto& a = static_cast<const Assign&>(s);
        Typed v = expr(a.value.get());
        for (const auto& t : a.targets) assign(t.get(), v.type);
        return v.flops;
      }
      case StmtKind::AnnAssign: {
        auto& a = static_cast<const AnnAssign&>(s);
        Typed v = expr(a.value.get());
        if (a.value) assign(a.target.get(), v.type);
        return v.flops;
      }
      case StmtKind::AugAssign: {
        auto& a = static_cast<const AugAssign&>(s);
        Typed target = expr(a.target.get());
        Typed v = expr(a.value.get());
        Typed r = binary(a.op, target.type, v.type);
        assign(a.target.get(), r.type);
        return v.flops + r.flops;
      }
      case StmtKind::Expr: return expr(static_cast<const ExprStmt&>(s).value.get()).flops;
      case StmtKind::Return: return expr(static_cast<const Return&>(s).value.get()).flops;
      case StmtKind::If: {
        auto& i = static_cast<const If&>(s);
        return expr(i.test.get()).flops + statements(i.body) + statements(i.orelse);
      }
      default: return 0;
    }
  }

  /// `a op b` on values of types `a` and `b`: 1 FLOP for an arithmetic operator whose result
  /// is floating point (Python's `/` is, on integers too).
  static Typed binary(BinaryOperator op, ScalarType a, ScalarType b) {
    using B = BinaryOperator;
    const bool arithmetic = op == B::Add || op == B::Sub || op == B::Mult || op == B::Div ||
                            op == B::FloorDiv || op == B::Mod || op == B::Pow;
    ScalarType t = arithmetic_result_type(numeric(a), numeric(b));
    if (op == B::Div) t = float_result(t);
    return {arithmetic && floating(t) ? 1 : 0, t};
  }

  long long list(const ExprList& l) {
    long long n = 0;
    for (const auto& x : l) n += expr(x.get()).flops;
    return n;
  }

  Typed call(const Call& c) {
    const std::string name = callee_name(c.func.get());
    long long n = 0;
    for (const auto& k : c.keywords) n += expr(k.value.get()).flops;
    std::vector<ScalarType> args;
    for (const auto& a : c.args) {
      Typed t = expr(a.get());
      n += t.flops;
      args.push_back(t.type);
    }
    // Casts: int(x), float(x), bool(x), np.float32(x), dace.int64(x): no operation.
    if (name == "int") return {n, ScalarType::Int64};
    if (name == "float") return {n, ScalarType::Float64};
    if (name == "bool") return {n, ScalarType::Bool};
    if (auto t = scalar_type_from_string(name); t && *t != ScalarType::Void) return {n, *t};
    // The type the arguments promote to (min, max, abs keep an integer integral).
    ScalarType promoted = args.empty() ? ScalarType::Float64 : numeric(args.front());
    for (ScalarType a : args) promoted = arithmetic_result_type(promoted, numeric(a));
    static const std::set<std::string> keep_type{"abs",   "min",  "max", "minimum", "maximum",
                                                 "floor", "ceil", "pow", "power"};
    static const std::set<std::string> float_only{
        "sqrt", "exp",  "exp2", "expm1", "log",   "log2",   "log10",  "log1p",  "sin",     "cos",
        "tan",  "asin", "acos", "atan",  "sinh",  "cosh",   "tanh",   "asinh",  "acosh",   "atanh",
        "fabs", "fmin", "fmax", "hypot", "atan2", "arcsin", "arccos", "arctan", "arctan2", "cbrt"};
    if (keep_type.count(name)) return {n + (floating(promoted) ? 1 : 0), promoted};
    if (float_only.count(name)) return {n + 1, float_result(promoted)};
    return {n, ScalarType::Float64};  // another function: its arguments' operations only
  }

  Typed expr(const Expr* e) {
    if (!e) return {0, ScalarType::Float64};
    switch (e->kind) {
      case ExprKind::Name: return {0, name_type(static_cast<const Name*>(e)->id)};
      case ExprKind::Constant: {
        auto* c = static_cast<const Constant*>(e);
        switch (c->value_kind) {
          case ConstantKind::Int: return {0, ScalarType::Int64};
          case ConstantKind::Bool: return {0, ScalarType::Bool};
          case ConstantKind::Imaginary: return {0, ScalarType::Complex128};
          default: return {0, ScalarType::Float64};
        }
      }
      case ExprKind::BinOp: {
        auto* b = static_cast<const BinOp*>(e);
        Typed l = expr(b->left.get());
        Typed r = expr(b->right.get());
        Typed op = binary(b->op, l.type, r.type);
        return {l.flops + r.flops + op.flops, op.type};
      }
      case ExprKind::Call: return call(*static_cast<const Call*>(e));
      case ExprKind::UnaryOp: {
        auto* u = static_cast<const UnaryOp*>(e);
        Typed v = expr(u->operand.get());
        if (u->op == UnaryOperator::Not) v.type = ScalarType::Bool;
        return v;
      }
      case ExprKind::BoolOp: return {list(static_cast<const BoolOp*>(e)->values), ScalarType::Bool};
      case ExprKind::Compare: {
        auto* c = static_cast<const Compare*>(e);
        return {expr(c->left.get()).flops + list(c->comparators), ScalarType::Bool};
      }
      case ExprKind::IfExp: {  // both arms count (an upper bound)
        auto* i = static_cast<const IfExp*>(e);
        Typed body = expr(i->body.get());
        Typed orelse = expr(i->orelse.get());
        ScalarType t = body.type == orelse.type
                           ? body.type
                           : arithmetic_result_type(numeric(body.type), numeric(orelse.type));
        return {expr(i->test.get()).flops + body.flops + orelse.flops, t};
      }
      case ExprKind::Tuple: return {list(static_cast<const Tuple*>(e)->elts), ScalarType::Float64};
      case ExprKind::List: return {list(static_cast<const List*>(e)->elts), ScalarType::Float64};
      case ExprKind::Subscript: {  // the element's type; an index computed in floats counts
        auto* s = static_cast<const Subscript*>(e);
        Typed v = expr(s->value.get());
        return {v.flops + expr(s->index.get()).flops, v.type};
      }
      default: return {0, ScalarType::Float64};
    }
  }
};

}  // namespace

TaskletNameTypes tasklet_name_types(const SDFG& sdfg, const SDFGState& st, const Tasklet& t) {
  TaskletNameTypes types;
  for (const auto& [name, type] : sdfg.symbols) types[name] = type.base;
  // Map parameters are integers (the maps around the tasklet and any other of the state).
  for (const Node* n : st.nodes())
    if (auto* m = n->as<MapEntry>())
      for (const auto& p : m->map->params) types[p] = ScalarType::Int64;
  auto connector = [&](const std::string& conn, const Memlet& m, const ConnectorMap& declared) {
    if (conn.empty()) return;
    auto d = declared.find(conn);
    if (d != declared.end() && d->second && d->second->raw_json.empty()) {
      types[conn] = d->second->base;
    } else if (!m.is_empty() && sdfg.has_data(m.data)) {
      types[conn] = sdfg.data(m.data).dtype.base;
    }
  };
  for (EdgeId id : st.in_edges(t.id())) connector(st.edge(id).dst_conn, st.edge(id).memlet, t.in_connectors);
  for (EdgeId id : st.out_edges(t.id()))
    connector(st.edge(id).src_conn, st.edge(id).memlet, t.out_connectors);
  return types;
}

long long tasklet_flops(const Tasklet& t, const TaskletNameTypes& types) {
  if (t.code.language != Language::Python) return 0;
  try {
    auto code = t.code.parsed();
    return code ? FlopCounter(types).statements(code->body()) : 0;
  } catch (const weir::Error&) {
    return 0;  // unparsable code is validation's to report
  }
}

}  // namespace weir::transforms
