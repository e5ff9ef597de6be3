// Type deduction of field operators, scan operators and programs.
#include "weir/frontend/type_checker.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <set>

#include "out_hazards.h"
#include "weir/pycode/unparse.h"

namespace weir::frontend {

std::string signature(const TypedDefinition& def) {
  std::string s = std::string(to_string(def.kind)) + " " + def.name;
  if (def.kind == DefinitionKind::ScanOperator)
    s += "[axis=" + def.axis.name + ", forward=" + (def.forward ? "True" : "False") + "]";
  s += "(";
  for (std::size_t i = 0; i < def.params.size(); ++i) {
    if (i) s += ", ";
    s += def.params[i].name + ": " + to_string(def.params[i].type);
  }
  s += ")";
  if (def.kind != DefinitionKind::Program) s += " -> " + to_string(def.returns);
  return s;
}

namespace {

using Scope = std::map<std::string, Type>;

TExprPtr mk(TExprKind k, Type t, SourceLocation loc) {
  auto e = std::make_shared<TExpr>();
  e->kind = k;
  e->type = std::move(t);
  e->loc = std::move(loc);
  return e;
}

std::string_view verb(BinaryOperator op) {
  switch (op) {
    case BinaryOperator::Add: return "add";
    case BinaryOperator::Sub: return "subtract";
    case BinaryOperator::Mult: return "multiply";
    case BinaryOperator::Div: return "divide";
    case BinaryOperator::FloorDiv: return "floor-divide";
    case BinaryOperator::Mod: return "take the remainder of";
    case BinaryOperator::Pow: return "raise to a power";
    case BinaryOperator::BitAnd: return "apply '&' to";
    case BinaryOperator::BitOr: return "apply '|' to";
    case BinaryOperator::BitXor: return "apply '^' to";
    default: return "combine";
  }
}

const std::set<std::string>& float_math() {
  static const std::set<std::string> s = {"sqrt",    "exp",    "log",  "sin",   "cos",  "tan",     "arcsin",
                                          "arccos",  "arctan", "sinh", "cosh",  "tanh", "arcsinh", "arccosh",
                                          "arctanh", "gamma",  "cbrt", "floor", "ceil", "trunc"};
  return s;
}

// The type with every named collection turned into a plain tuple.
Type unnamed(const Type& t) {
  if (!t.is_tuple()) return t;
  std::vector<Type> e;
  for (const Type& x : t.elements) e.push_back(unnamed(x));
  return Type::tuple(std::move(e));
}

Type map_leaves(const Type& t, ScalarKind dtype) {
  if (t.is_tuple()) {
    std::vector<Type> e;
    for (const Type& x : t.elements) e.push_back(map_leaves(x, dtype));
    return Type::tuple(std::move(e));
  }
  Type r = t;
  r.dtype = dtype;
  return r;
}

}  // namespace

class FunctionChecker {
 public:
  FunctionChecker(TypeChecker& tc, const Definition& def, TypedDefinition& out)
      : tc_(tc), def_(def), out_(out), module_(*def.module) {}

  void run() {
    const FunctionDef& f = *def_.def;
    if (!def_.error.empty()) throw FrontendError(def_.error_loc, def_.error);
    out_.kind = def_.kind;
    out_.name = def_.name;
    out_.source = &def_;
    out_.loc = f.loc;
    for (const Parameter& p : f.params) {
      if (p.kind != ParamKind::Normal && p.kind != ParamKind::PositionalOnly &&
          p.kind != ParamKind::KeywordOnly)
        throw FrontendError(
            p.loc, "variadic parameters are not supported in a " + std::string(to_string(def_.kind)));
      if (!p.annotation)
        throw FrontendError(p.loc, "parameter '" + p.name + "' of " + std::string(to_string(def_.kind)) +
                                       " '" + f.name + "' needs a type annotation");
      Type t = annotation_type(*p.annotation);
      if (!t.is_value())
        throw FrontendError(p.annotation->loc, "parameter '" + p.name + "' has type " + to_string(t) +
                                                   ", which is not a field, scalar or tuple");
      out_.params.push_back({p.name, t, p.loc});
      scope_[p.name] = t;
    }
    if (def_.kind == DefinitionKind::Program) {
      if (f.returns && !(isa<Constant>(f.returns.get()) &&
                         static_cast<const Constant&>(*f.returns).value_kind == ConstantKind::None))
        throw FrontendError(f.returns->loc, "a program does not return a value (use out=)");
      out_.returns = Type::none();
      check_program(f);
      return;
    }
    if (f.returns) {
      declared_return_ = annotation_type(*f.returns);
      has_declared_return_ = true;
    }
    if (def_.kind == DefinitionKind::ScanOperator) check_scan_header(f);
    bool returns = block(f.body, out_.body, scope_);
    if (!returns)
      throw FrontendError(
          f.loc, std::string(to_string(def_.kind)) + " '" + f.name + "' must end with a return statement");
    out_.returns = has_declared_return_ ? declared_return_ : deduced_return_;
    if (def_.kind == DefinitionKind::ScanOperator) {
      const TParam& carry = out_.params[0];
      if (!(carry.type == out_.returns))
        throw FrontendError(carry.loc, "the carry '" + carry.name + "' of scan operator '" + f.name +
                                           "' has type " + to_string(carry.type) +
                                           " but the operator returns " + to_string(out_.returns));
    }
  }

 private:
  // ------------------------------------------------------------------------------- helpers

  Type annotation_type(const Expr& e) { return value_to_type(evaluate(e, module_), e.loc); }

  Value global(const Expr& e) { return evaluate(e, module_); }

  bool is_local(const Expr& e) const {
    auto* n = dyn_cast<Name>(&e);
    return n && scope_.count(n->id);
  }

  static std::string name_of(const Expr& e) { return unparse(e); }

  TExprPtr literal(const ConstantValue& c, const SourceLocation& loc) {
    Type t;
    switch (c.kind) {
      case ConstantValue::Kind::Int:
        t = Type::scalar(c.int_value >= std::numeric_limits<std::int32_t>::min() &&
                                 c.int_value <= std::numeric_limits<std::int32_t>::max()
                             ? ScalarKind::Int32
                             : ScalarKind::Int64);
        break;
      case ConstantValue::Kind::Float: t = Type::scalar(ScalarKind::Float64); break;
      case ConstantValue::Kind::Bool: t = Type::scalar(ScalarKind::Bool); break;
      case ConstantValue::Kind::String: throw FrontendError(loc, "a string cannot be used as a value here");
    }
    auto e = mk(TExprKind::Literal, t, loc);
    e->literal = c;
    return e;
  }

  TExprPtr value_expr(const Value& v, const Expr& e) {
    switch (v.kind) {
      case ValueKind::Constant: return literal(v.constant, e.loc);
      case ValueKind::Dimension: {
        auto r = mk(TExprKind::Name, Type::dimension(v.dim), e.loc);
        r->name = v.dim.name;
        return r;
      }
      case ValueKind::Offset: {
        auto r = mk(TExprKind::Name, Type::offset_type(v.offset), e.loc);
        r->name = v.offset.name;
        return r;
      }
      case ValueKind::External: throw FrontendError(e.loc, external_message(v));
      default: break;
    }
    throw FrontendError(e.loc, "'" + name_of(e) + "' is a " + v.describe() + ", not a value");
  }

  static bool is_int_literal(const TExprPtr& e) {
    return e->kind == TExprKind::Literal && e->literal.kind == ConstantValue::Kind::Int;
  }

  // Element-wise result of two data types, or an error "cannot add float64 and float32".
  Type promote(const Type& a, const Type& b, std::string_view what, const SourceLocation& loc) {
    if (!a.is_data() || !b.is_data() || a.dtype != b.dtype)
      throw FrontendError(loc, "cannot " + std::string(what) + " " + to_string(a) + " and " + to_string(b));
    return Type::field(union_dims(a.dims, b.dims), a.dtype);
  }

  // ------------------------------------------------------------------------------- statements

  bool block(const StmtList& stmts, std::vector<TStmt>& out, Scope& scope) {
    bool returned = false;
    for (const StmtPtr& s : stmts) {
      if (returned) throw FrontendError(s->loc, "unreachable code after return");
      returned = stmt(*s, out, scope);
    }
    return returned;
  }

  void bind(const Expr& target, const TExprPtr& value, TStmt& st, Scope& scope) {
    if (auto* n = dyn_cast<Name>(&target)) {
      st.targets.push_back(n->id);
      st.target_types.push_back(value->type);
      scope[n->id] = value->type;
      return;
    }
    const ExprList* elts = nullptr;
    if (auto* t = dyn_cast<Tuple>(&target)) elts = &t->elts;
    if (auto* l = dyn_cast<List>(&target)) elts = &l->elts;
    if (!elts) throw FrontendError(target.loc, "cannot assign to '" + unparse(target) + "'");
    st.tuple_target = true;
    if (!value->type.is_tuple())
      throw FrontendError(value->loc, "cannot unpack " + to_string(value->type) + " (not a tuple) into " +
                                          std::to_string(elts->size()) + " targets");
    const auto& vt = value->type.elements;
    int star = -1;
    for (std::size_t i = 0; i < elts->size(); ++i) {
      if (isa<Starred>((*elts)[i].get())) {
        if (star >= 0) throw FrontendError((*elts)[i]->loc, "only one starred target is allowed");
        star = static_cast<int>(i);
      }
    }
    std::size_t n = elts->size();
    if ((star < 0 && vt.size() != n) || (star >= 0 && vt.size() < n - 1))
      throw FrontendError(target.loc, "cannot unpack a tuple of " + std::to_string(vt.size()) +
                                          " elements into " + std::to_string(n) + " targets");
    st.starred = star;
    std::size_t vi = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Expr* e = (*elts)[i].get();
      Type t;
      if (static_cast<int>(i) == star) {
        e = static_cast<const Starred*>(e)->value.get();
        std::size_t count = vt.size() - (n - 1);
        t = Type::tuple(std::vector<Type>(vt.begin() + static_cast<long>(vi),
                                          vt.begin() + static_cast<long>(vi + count)));
        vi += count;
      } else {
        t = vt[vi++];
      }
      auto* nm = dyn_cast<Name>(e);
      if (!nm) throw FrontendError(e->loc, "nested targets are not supported; use names");
      st.targets.push_back(nm->id);
      st.target_types.push_back(t);
      scope[nm->id] = t;
    }
  }

  bool stmt(const Stmt& s, std::vector<TStmt>& out, Scope& scope) {
    switch (s.kind) {
      case StmtKind::Assign: {
        auto& a = static_cast<const Assign&>(s);
        if (a.targets.size() != 1)
          throw FrontendError(a.targets[1]->loc, "chained assignments are not supported");
        TStmt st;
        st.loc = s.loc;
        st.value = expr(*a.value, scope);
        bind(*a.targets[0], st.value, st, scope);
        out.push_back(std::move(st));
        return false;
      }
      case StmtKind::AnnAssign: {
        auto& a = static_cast<const AnnAssign&>(s);
        if (!a.value) throw FrontendError(s.loc, "an annotated declaration needs a value");
        auto* n = dyn_cast<Name>(a.target.get());
        if (!n) throw FrontendError(a.target->loc, "only a name can be annotated");
        Type t = annotation_type(*a.annotation);
        TStmt st;
        st.loc = s.loc;
        st.value = expr(*a.value, scope);
        if (!(st.value->type == t))
          throw FrontendError(a.value->loc, "'" + n->id + "' is annotated as " + to_string(t) +
                                                " but the value has type " + to_string(st.value->type));
        bind(*a.target, st.value, st, scope);
        out.push_back(std::move(st));
        return false;
      }
      case StmtKind::AugAssign: {
        auto& a = static_cast<const AugAssign&>(s);
        auto* n = dyn_cast<Name>(a.target.get());
        if (!n) throw FrontendError(a.target->loc, "cannot assign to '" + unparse(*a.target) + "'");
        TStmt st;
        st.loc = s.loc;
        st.value = binary(a.op, expr(*a.target, scope), expr(*a.value, scope), a.loc);
        bind(*a.target, st.value, st, scope);
        out.push_back(std::move(st));
        return false;
      }
      case StmtKind::Return: {
        auto& r = static_cast<const Return&>(s);
        if (!r.value) throw FrontendError(s.loc, "a return statement needs a value");
        TStmt st;
        st.kind = TStmt::Kind::Return;
        st.loc = s.loc;
        st.value = expr(*r.value, scope);
        const Type& t = st.value->type;
        if (!t.is_value()) throw FrontendError(r.value->loc, "cannot return " + to_string(t));
        if (has_declared_return_ && !(t == declared_return_))
          throw FrontendError(r.value->loc, "'" + def_.name + "' returns " + to_string(t) +
                                                " but is annotated to return " + to_string(declared_return_));
        if (has_deduced_return_ && !(t == deduced_return_))
          throw FrontendError(r.value->loc, "'" + def_.name + "' returns " + to_string(t) + " here but " +
                                                to_string(deduced_return_) + " elsewhere");
        deduced_return_ = t;
        has_deduced_return_ = true;
        out.push_back(std::move(st));
        return true;
      }
      case StmtKind::If: {
        auto& i = static_cast<const If&>(s);
        TStmt st;
        st.kind = TStmt::Kind::If;
        st.loc = s.loc;
        st.value = expr(*i.test, scope);
        if (!(st.value->type == Type::scalar(ScalarKind::Bool)))
          throw FrontendError(i.test->loc,
                              "the condition of an if statement must be a scalar "
                              "bool, got " +
                                  to_string(st.value->type));
        Scope then_scope = scope, else_scope = scope;
        bool r1 = block(i.body, st.body, then_scope);
        bool r2 = block(i.orelse, st.orelse, else_scope);
        out.push_back(std::move(st));
        if (r1 && r2) return true;
        if (r1) {
          scope = else_scope;
          return false;
        }
        if (r2) {
          scope = then_scope;
          return false;
        }
        Scope merged;
        for (const auto& [name, t] : then_scope) {
          auto it = else_scope.find(name);
          if (it == else_scope.end()) continue;
          if (!(it->second == t))
            throw FrontendError(s.loc, "'" + name + "' has type " + to_string(t) + " in the if branch but " +
                                           to_string(it->second) + " in the else branch");
          merged[name] = t;
        }
        scope = merged;
        return false;
      }
      case StmtKind::Pass: return false;
      case StmtKind::Expr: {
        auto& e = static_cast<const ExprStmt&>(s);
        if (auto* c = dyn_cast<Constant>(e.value.get()); c && c->value_kind == ConstantKind::String)
          return false;  // docstring
        throw FrontendError(s.loc,
                            "expression statements have no effect in a " + std::string(to_string(def_.kind)));
      }
      default: break;
    }
    throw FrontendError(s.loc, std::string(to_string(s.kind)) + " statements are not supported in a " +
                                   std::string(to_string(def_.kind)));
  }

  // ------------------------------------------------------------------------------- expressions

  TExprPtr binary(BinaryOperator op, TExprPtr l, TExprPtr r, const SourceLocation& loc) {
    const Type& a = l->type;
    const Type& b = r->type;
    Type t;
    if (a.kind == Type::Kind::Domain && b.kind == Type::Kind::Domain &&
        (op == BinaryOperator::BitAnd || op == BinaryOperator::BitOr)) {
      t = Type::domain(union_dims(a.dims, b.dims));
    } else if (op == BinaryOperator::Pow && a.is_data() && b.is_scalar() && is_floating(a.dtype) &&
               is_integral(b.dtype)) {
      t = a;
    } else {
      if (op == BinaryOperator::MatMult || op == BinaryOperator::LShift || op == BinaryOperator::RShift)
        throw FrontendError(loc, "operator '" + std::string(to_string(op)) + "' is not supported");
      t = promote(a, b, verb(op), loc);
      bool logical =
          op == BinaryOperator::BitAnd || op == BinaryOperator::BitOr || op == BinaryOperator::BitXor;
      if (logical && is_floating(t.dtype))
        throw FrontendError(loc, "operator '" + std::string(to_string(op)) +
                                     "' needs bool or integer operands, got " + to_string(a) + " and " +
                                     to_string(b));
      if (!logical && t.dtype == ScalarKind::Bool)
        throw FrontendError(loc, "cannot " + std::string(verb(op)) + " " + to_string(a) + " and " +
                                     to_string(b) + " (arithmetic on bool)");
      // NumPy refuses integers to negative integer powers; a literal exponent is caught here,
      // located (a run-time exponent is refused by the embedded backend).
      if (op == BinaryOperator::Pow && is_integral(t.dtype) && r->kind == TExprKind::Literal &&
          r->literal.kind == ConstantValue::Kind::Int && r->literal.int_value < 0)
        throw FrontendError(loc, "integers to negative integer powers are not allowed (" + to_string(a) +
                                     " ** " + std::to_string(r->literal.int_value) + "); use a float base");
      if (op == BinaryOperator::Mod && !is_integral(t.dtype))
        throw FrontendError(loc, "operator '%' needs integer operands (use fmod), got " + to_string(a) +
                                     " and " + to_string(b));
    }
    auto e = mk(TExprKind::Binary, t, loc);
    e->binary_op = op;
    e->args = {std::move(l), std::move(r)};
    return e;
  }

  TExprPtr expr(const Expr& e, Scope& scope) {
    switch (e.kind) {
      case ExprKind::Name: {
        auto& n = static_cast<const Name&>(e);
        auto it = scope.find(n.id);
        if (it != scope.end()) {
          auto r = mk(TExprKind::Name, it->second, e.loc);
          r->name = n.id;
          return r;
        }
        return value_expr(global(e), e);
      }
      case ExprKind::Attribute: {
        auto& a = static_cast<const Attribute&>(e);
        if (rooted_in(*a.value, scope)) return element(a, expr(*a.value, scope));
        return value_expr(global(e), e);
      }
      case ExprKind::Constant: {
        auto& c = static_cast<const Constant&>(e);
        ConstantValue v;
        switch (c.value_kind) {
          case ConstantKind::Int:
            v.kind = ConstantValue::Kind::Int;
            v.int_value = c.int_value;
            break;
          case ConstantKind::Float:
            v.kind = ConstantValue::Kind::Float;
            v.float_value = c.float_value;
            break;
          case ConstantKind::Bool:
            v.kind = ConstantValue::Kind::Bool;
            v.bool_value = c.bool_value;
            break;
          default:
            throw FrontendError(
                e.loc, "literal " + c.text + " is not supported in a " + std::string(to_string(def_.kind)));
        }
        return literal(v, e.loc);
      }
      case ExprKind::Tuple: {
        auto& t = static_cast<const Tuple&>(e);
        auto r = mk(TExprKind::Tuple, Type{}, e.loc);
        std::vector<Type> types;
        for (const ExprPtr& x : t.elts) {
          if (isa<Starred>(x.get()))
            throw FrontendError(x->loc, "starred expressions are not supported here");
          r->args.push_back(expr(*x, scope));
          types.push_back(r->args.back()->type);
        }
        r->type = Type::tuple(std::move(types));
        return r;
      }
      case ExprKind::Subscript: return subscript(static_cast<const Subscript&>(e), scope);
      case ExprKind::UnaryOp: {
        auto& u = static_cast<const UnaryOp&>(e);
        TExprPtr x = expr(*u.operand, scope);
        if (u.op == UnaryOperator::USub && x->kind == TExprKind::Literal &&
            x->literal.kind != ConstantValue::Kind::Bool) {
          ConstantValue c = x->literal;
          if (c.kind == ConstantValue::Kind::Int)
            c.int_value = -c.int_value;
          else
            c.float_value = -c.float_value;
          return literal(c, e.loc);
        }
        const Type& t = x->type;
        bool ok = t.is_data();
        if (ok && (u.op == UnaryOperator::UAdd || u.op == UnaryOperator::USub)) ok = is_numeric(t.dtype);
        if (ok && u.op == UnaryOperator::Not) ok = t.dtype == ScalarKind::Bool;
        if (ok && u.op == UnaryOperator::Invert) ok = !is_floating(t.dtype);
        if (!ok)
          throw FrontendError(
              e.loc, "operator '" + std::string(to_string(u.op)) + "' cannot be applied to " + to_string(t));
        auto r = mk(TExprKind::Unary, t, e.loc);
        r->unary_op = u.op;
        r->args = {x};
        return r;
      }
      case ExprKind::BinOp: {
        auto& b = static_cast<const BinOp&>(e);
        TExprPtr l = expr(*b.left, scope);
        TExprPtr r = expr(*b.right, scope);
        if (l->type.kind == Type::Kind::Dimension)
          throw FrontendError(b.op_loc, "dimension arithmetic '" + unparse(b) +
                                            "' is only allowed as a shift argument: f(" + unparse(b) + ")");
        return binary(b.op, l, r, b.op_loc);
      }
      case ExprKind::BoolOp: {
        auto& b = static_cast<const BoolOp&>(e);
        throw FrontendError(e.loc, std::string("'") + std::string(to_string(b.op)) +
                                       "' is not supported in field operators; use & and |");
      }
      case ExprKind::Compare: return compare(static_cast<const Compare&>(e), scope);
      case ExprKind::IfExp: {
        auto& i = static_cast<const IfExp&>(e);
        TExprPtr c = expr(*i.test, scope);
        if (!(c->type == Type::scalar(ScalarKind::Bool)))
          throw FrontendError(i.test->loc,
                              "the condition of a conditional expression must be a "
                              "scalar bool, got " +
                                  to_string(c->type) + " (use where)");
        TExprPtr a = expr(*i.body, scope);
        TExprPtr b = expr(*i.orelse, scope);
        if (!(a->type == b->type))
          throw FrontendError(e.loc,
                              "the branches of a conditional expression have different "
                              "types: " +
                                  to_string(a->type) + " and " + to_string(b->type));
        auto r = mk(TExprKind::Ternary, a->type, e.loc);
        r->args = {c, a, b};
        return r;
      }
      case ExprKind::Call: return call(static_cast<const Call&>(e), scope);
      default: break;
    }
    throw FrontendError(e.loc, std::string(to_string(e.kind)) + " expressions are not supported in a " +
                                   std::string(to_string(def_.kind)));
  }

  // Whether `e` is (an attribute, subscript or call of) a local name.
  static bool rooted_in(const Expr& e, const Scope& scope) {
    if (auto* n = dyn_cast<Name>(&e)) return scope.count(n->id) > 0;
    if (auto* a = dyn_cast<Attribute>(&e)) return rooted_in(*a->value, scope);
    if (auto* s = dyn_cast<Subscript>(&e)) return rooted_in(*s->value, scope);
    return false;
  }

  // `state.u`: the element `u` of a named collection.
  TExprPtr element(const Attribute& a, TExprPtr base) {
    const Type& t = base->type;
    auto it = std::find(t.names.begin(), t.names.end(), a.attr);
    if (!t.is_tuple() || it == t.names.end())
      throw FrontendError(a.attr_loc, to_string(t) + " has no attribute '" + a.attr + "'");
    std::size_t i = static_cast<std::size_t>(it - t.names.begin());
    auto r = mk(TExprKind::TupleGet, t.elements[i], a.loc);
    r->index = i;
    r->args = {std::move(base)};
    return r;
  }

  // `State(u, v=x)`: a named collection built from its elements (positional, then by name),
  // each `arg(expr)` of the element's type.
  TExprPtr collection(const Call& c, const Type& t, const std::function<TExprPtr(const Expr&)>& arg) {
    std::vector<TExprPtr> elts(t.elements.size());
    if (c.args.size() > elts.size())
      throw FrontendError(c.loc, "'" + t.collection + "' has " + std::to_string(elts.size()) +
                                     " elements, got " + std::to_string(c.args.size()) + " arguments");
    for (std::size_t i = 0; i < c.args.size(); ++i) {
      if (isa<Starred>(c.args[i].get()))
        throw FrontendError(c.args[i]->loc, "starred arguments are not supported");
      elts[i] = arg(*c.args[i]);
    }
    for (const Keyword& k : c.keywords) {
      auto it = std::find(t.names.begin(), t.names.end(), k.arg);
      if (it == t.names.end())
        throw FrontendError(k.loc, "'" + t.collection + "' has no element '" + k.arg + "'");
      std::size_t i = static_cast<std::size_t>(it - t.names.begin());
      if (elts[i]) throw FrontendError(k.loc, "element '" + k.arg + "' given twice");
      elts[i] = arg(*k.value);
    }
    auto r = mk(TExprKind::Tuple, t, c.loc);
    for (std::size_t i = 0; i < elts.size(); ++i) {
      if (!elts[i])
        throw FrontendError(c.loc, "missing element '" + t.names[i] + "' of '" + t.collection + "'");
      if (!(elts[i]->type == t.elements[i]))
        throw FrontendError(elts[i]->loc, "element '" + t.names[i] + "' of '" + t.collection + "' must be " +
                                              to_string(t.elements[i]) + ", got " + to_string(elts[i]->type));
    }
    r->args = std::move(elts);
    return r;
  }

  TExprPtr subscript(const Subscript& s, Scope& scope) {
    TExprPtr base = expr(*s.value, scope);
    if (base->type.is_tuple()) {
      TExprPtr idx = expr(*s.index, scope);
      if (!is_int_literal(idx)) throw FrontendError(s.index->loc, "a tuple index must be an integer literal");
      std::int64_t i = idx->literal.int_value;
      std::int64_t n = static_cast<std::int64_t>(base->type.elements.size());
      if (i < 0) i += n;
      if (i < 0 || i >= n)
        throw FrontendError(s.index->loc, "tuple index " + std::to_string(idx->literal.int_value) +
                                              " out of range for " + to_string(base->type));
      auto r = mk(TExprKind::TupleGet, base->type.elements[static_cast<std::size_t>(i)], s.loc);
      r->index = static_cast<std::size_t>(i);
      r->args = {base};
      return r;
    }
    if (base->type.is_field()) {
      auto* c = dyn_cast<Call>(s.index.get());
      Value dv;
      if (c && c->args.size() == 1 && !is_local(*c->func)) dv = global(*c->func);
      if (!c || dv.kind != ValueKind::Dimension)
        throw FrontendError(s.index->loc,
                            "a field can only be indexed by a local dimension "
                            "entry such as f[E2VDim(0)]");
      if (dv.dim.kind != DimensionKind::Local)
        throw FrontendError(s.index->loc, "'" + dv.dim.name + "' is not a LOCAL dimension");
      if (!base->type.has_dim(dv.dim))
        throw FrontendError(s.index->loc, to_string(base->type) + " has no dimension '" + dv.dim.name + "'");
      TExprPtr idx = expr(*c->args[0], scope);
      if (!is_int_literal(idx) || idx->literal.int_value < 0)
        throw FrontendError(c->args[0]->loc, "a local index must be a non-negative integer literal");
      std::vector<Dimension> dims;
      for (const Dimension& d : base->type.dims)
        if (!(d == dv.dim)) dims.push_back(d);
      auto r = mk(TExprKind::LocalIndex, Type::field(dims, base->type.dtype), s.loc);
      r->dim = dv.dim;
      r->index = static_cast<std::size_t>(idx->literal.int_value);
      r->args = {base};
      return r;
    }
    throw FrontendError(s.loc, "cannot subscript " + to_string(base->type));
  }

  TExprPtr compare(const Compare& c, Scope& scope) {
    if (c.ops.size() > 1)
      throw FrontendError(c.op_locs[1],
                          "comparison chains are not supported; combine "
                          "comparisons with & and |");
    CompareOperator op = c.ops[0];
    if (op == CompareOperator::Is || op == CompareOperator::IsNot || op == CompareOperator::In ||
        op == CompareOperator::NotIn)
      throw FrontendError(c.op_locs[0], "operator '" + std::string(to_string(op)) + "' is not supported");
    TExprPtr l = expr(*c.left, scope);
    TExprPtr r = expr(*c.comparators[0], scope);
    bool ldim = l->type.kind == Type::Kind::Dimension, rdim = r->type.kind == Type::Kind::Dimension;
    if (ldim || rdim) {
      if (ldim && rdim) throw FrontendError(c.op_locs[0], "cannot compare two dimensions");
      if (rdim) {
        std::swap(l, r);
        switch (op) {
          case CompareOperator::Lt: op = CompareOperator::Gt; break;
          case CompareOperator::LtE: op = CompareOperator::GtE; break;
          case CompareOperator::Gt: op = CompareOperator::Lt; break;
          case CompareOperator::GtE: op = CompareOperator::LtE; break;
          default: break;
        }
      }
      if (!r->type.is_scalar() || !is_integral(r->type.dtype))
        throw FrontendError(
            r->loc, "a dimension can only be compared with a scalar integer, got " + to_string(r->type));
      auto d = mk(TExprKind::DomainCompare, Type::domain(l->type.dims), c.loc);
      d->dim = l->type.dims[0];
      d->compare_op = op;
      d->args = {r};
      return d;
    }
    Type t = promote(l->type, r->type, "compare", c.op_locs[0]);
    auto e = mk(TExprKind::Compare, Type::field(t.dims, ScalarKind::Bool), c.loc);
    e->compare_op = op;
    e->args = {l, r};
    return e;
  }

  // ------------------------------------------------------------------------------- calls

  const Expr* keyword(const Call& c, const std::string& name) {
    for (const Keyword& k : c.keywords)
      if (k.arg == name) return k.value.get();
    return nullptr;
  }

  void expect_args(const Call& c, const std::string& fn, std::size_t n,
                   const std::set<std::string>& keywords = {}) {
    if (c.args.size() != n)
      throw FrontendError(c.loc, "'" + fn + "' takes " + std::to_string(n) + " positional argument" +
                                     (n == 1 ? "" : "s") + ", got " + std::to_string(c.args.size()));
    for (const Keyword& k : c.keywords)
      if (!keywords.count(k.arg))
        throw FrontendError(k.loc, "'" + fn + "' has no keyword argument '" + k.arg + "'");
    for (const ExprPtr& a : c.args)
      if (isa<Starred>(a.get())) throw FrontendError(a->loc, "starred arguments are not supported");
  }

  TExprPtr call(const Call& c, Scope& scope) {
    // A local field, or any other expression yielding one (`a(E2C[0])(Koff[1])`,
    // `(a + b)(I + 1)`, `t[0](E2V[1])`, `state.u(E2V[1])`), is shifted; names of the module
    // are called.
    if (is_local(*c.func) || rooted_in(*c.func, scope) ||
        !(isa<Name>(c.func.get()) || isa<Attribute>(c.func.get())))
      return shift(c, expr(*c.func, scope), scope);
    Value f = global(*c.func);
    std::string fn = unparse(*c.func);
    if (f.kind == ValueKind::Definition) return operator_call(c, *f.definition, scope);
    if (f.kind == ValueKind::Builtin) {
      if (auto k = scalar_kind_from_name(f.name)) return constructor(c, *k, fn, scope);
      return builtin(c, f.name, fn, scope);
    }
    if (f.kind == ValueKind::Type && f.type.is_scalar()) return constructor(c, f.type.dtype, fn, scope);
    if (f.kind == ValueKind::Type && !f.type.collection.empty())
      return collection(c, f.type, [&](const Expr& x) { return expr(x, scope); });
    if (f.kind == ValueKind::External) throw FrontendError(c.func->loc, external_message(f));
    throw FrontendError(c.func->loc, "'" + fn + "' (" + f.describe() + ") is not callable here");
  }

  TExprPtr constructor(const Call& c, ScalarKind k, const std::string& fn, Scope& scope) {
    expect_args(c, fn, 1);
    const Expr* a = c.args[0].get();
    const Expr* lit = a;
    bool neg = false;
    if (auto* u = dyn_cast<UnaryOp>(a); u && u->op == UnaryOperator::USub) {
      lit = u->operand.get();
      neg = true;
    }
    auto* cst = dyn_cast<Constant>(lit);
    if (!cst && (isa<Name>(lit) || isa<Attribute>(lit)) && !is_local(*lit)) {
      // a module-level constant: `float64(N)`
      Value v = global(*lit);
      if (v.kind == ValueKind::Constant && v.constant.kind != ConstantValue::Kind::String) {
        double d = v.constant.as_double();
        if (neg) d = -d;
        return typed_constant(k, d, c.loc);
      }
    }
    if (!cst || !(cst->value_kind == ConstantKind::Int || cst->value_kind == ConstantKind::Float ||
                  cst->value_kind == ConstantKind::Bool || cst->value_kind == ConstantKind::String))
      throw FrontendError(a->loc, "type constructor '" + fn +
                                      "' takes only a literal (use astype "
                                      "to convert values)");
    double d = 0;
    if (cst->value_kind == ConstantKind::String) {
      try {
        std::size_t used = 0;
        d = std::stod(cst->str_value, &used);
        if (used != cst->str_value.size()) throw std::invalid_argument("x");
      } catch (const std::exception&) {
        throw FrontendError(a->loc, "'" + cst->str_value + "' is not a number");
      }
    } else if (cst->value_kind == ConstantKind::Int) {
      d = static_cast<double>(cst->int_value);
    } else if (cst->value_kind == ConstantKind::Float) {
      d = cst->float_value;
    } else {
      d = cst->bool_value;
    }
    if (neg) d = -d;
    return typed_constant(k, d, c.loc);
  }

  TExprPtr typed_constant(ScalarKind k, double d, const SourceLocation& loc) {
    ConstantValue v;
    if (is_floating(k)) {
      v.kind = ConstantValue::Kind::Float;
      v.float_value = d;
    } else if (k == ScalarKind::Bool) {
      v.kind = ConstantValue::Kind::Bool;
      v.bool_value = d != 0;
    } else {
      v.kind = ConstantValue::Kind::Int;
      v.int_value = static_cast<std::int64_t>(d);
    }
    auto e = mk(TExprKind::Literal, Type::scalar(k), loc);
    e->literal = v;
    return e;
  }

  ShiftStep shift_step(const Expr& a, const Type& field, std::vector<Dimension>& dims, Scope& scope) {
    ShiftStep st;
    auto need = [&](const Dimension& d, const std::string& why) {
      if (std::find(dims.begin(), dims.end(), d) == dims.end())
        throw FrontendError(a.loc, "cannot shift " + to_string(Type::field(dims, field.dtype)) + why +
                                       ": it has no dimension '" + d.name + "'");
    };
    if (auto* b = dyn_cast<BinOp>(&a); b && (b->op == BinaryOperator::Add || b->op == BinaryOperator::Sub)) {
      TExprPtr l = expr(*b->left, scope);
      if (l->type.kind == Type::Kind::Dimension) {
        TExprPtr r = expr(*b->right, scope);
        if (!is_int_literal(r))
          throw FrontendError(b->right->loc, "a shift amount must be an integer literal");
        const Dimension& d = l->type.dims[0];
        if (d.kind == DimensionKind::Local)
          throw FrontendError(b->left->loc, "cannot shift along the LOCAL dimension '" + d.name + "'");
        need(d, " along '" + d.name + "'");
        st.kind = ShiftStep::Kind::Cartesian;
        st.offset = FieldOffset{d.name, d, {d}};
        st.amount = b->op == BinaryOperator::Add ? r->literal.int_value : -r->literal.int_value;
        return st;
      }
    }
    if (auto* s = dyn_cast<Subscript>(&a)) {
      TExprPtr o = expr(*s->value, scope);
      if (o->type.kind == Type::Kind::Offset) {
        const FieldOffset& off = o->type.offset;
        TExprPtr i = expr(*s->index, scope);
        if (!is_int_literal(i))
          throw FrontendError(s->index->loc, "an offset index must be an integer literal");
        need(off.source, " by '" + off.name + "'");
        st.offset = off;
        st.amount = i->literal.int_value;
        if (off.cartesian()) {
          st.kind = ShiftStep::Kind::Cartesian;
          std::replace(dims.begin(), dims.end(), off.source, off.targets[0]);
        } else {
          if (st.amount < 0) throw FrontendError(s->index->loc, "a neighbour index must not be negative");
          st.kind = ShiftStep::Kind::Neighbor;
          std::replace(dims.begin(), dims.end(), off.source, off.targets[0]);
        }
        dims = canonical_dims(dims);
        return st;
      }
    }
    if (auto* c = dyn_cast<Call>(&a); c && !is_local(*c->func)) {
      Value f = global(*c->func);
      if (f.kind == ValueKind::Builtin && f.name == "as_offset") {
        expect_args(*c, "as_offset", 2);
        TExprPtr o = expr(*c->args[0], scope);
        if (o->type.kind != Type::Kind::Offset || !o->type.offset.cartesian())
          throw FrontendError(c->args[0]->loc,
                              "the first argument of as_offset must be a "
                              "Cartesian FieldOffset");
        TExprPtr idx = expr(*c->args[1], scope);
        if (!idx->type.is_data() || !is_integral(idx->type.dtype))
          throw FrontendError(c->args[1]->loc,
                              "the offsets of as_offset must be an integer field, "
                              "got " +
                                  to_string(idx->type));
        need(o->type.offset.source, " by '" + o->type.offset.name + "'");
        st.kind = ShiftStep::Kind::Dynamic;
        st.offset = o->type.offset;
        st.index_field = idx;
        return st;
      }
    }
    TExprPtr o = expr(a, scope);
    if (o->type.kind == Type::Kind::Offset) {
      const FieldOffset& off = o->type.offset;
      if (off.cartesian())
        throw FrontendError(
            a.loc, "the Cartesian offset '" + off.name + "' needs an index, e.g. " + unparse(a) + "[1]");
      need(off.source, " by '" + off.name + "'");
      st.kind = ShiftStep::Kind::AllNeighbors;
      st.offset = off;
      std::replace(dims.begin(), dims.end(), off.source, off.targets[0]);
      dims.push_back(off.targets[1]);
      dims = canonical_dims(dims);
      return st;
    }
    throw FrontendError(a.loc, "'" + unparse(a) +
                                   "' is not a shift (use IDim + 1, Koff[1], "
                                   "E2V[0], E2V or as_offset)");
  }

  TExprPtr shift(const Call& c, TExprPtr field, Scope& scope) {
    if (!field->type.is_field())
      throw FrontendError(c.loc, "'" + unparse(*c.func) + "' has type " + to_string(field->type) +
                                     "; only fields can be shifted");
    if (c.args.empty() || !c.keywords.empty())
      throw FrontendError(c.loc, "a shift needs one or more offsets: f(IDim + 1)");
    std::vector<Dimension> dims = field->type.dims;
    auto r = mk(TExprKind::Shift, Type{}, c.loc);
    for (const ExprPtr& a : c.args) r->shifts.push_back(shift_step(*a, field->type, dims, scope));
    r->type = Type::field(dims, field->type.dtype);
    r->args = {field};
    return r;
  }

  Type where_type(const Type& mask, const Type& a, const Type& b, const std::string& fn,
                  const SourceLocation& loc) {
    if (a.is_tuple() && b.is_tuple() && a.elements.size() == b.elements.size()) {
      std::vector<Type> e;
      for (std::size_t i = 0; i < a.elements.size(); ++i)
        e.push_back(where_type(mask, a.elements[i], b.elements[i], fn, loc));
      return Type::tuple(std::move(e));
    }
    if (!a.is_data() || !b.is_data() || a.dtype != b.dtype)
      throw FrontendError(loc, "'" + fn + "' cannot combine " + to_string(a) + " and " + to_string(b));
    // The values' dimension order first: a condition on J must not reorder a field over (I, J, K).
    return Type::field(union_dims(union_dims(a.dims, b.dims), mask.dims), a.dtype);
  }

  TExprPtr builtin(const Call& c, const std::string& name, const std::string& fn, Scope& scope) {
    auto r = mk(TExprKind::Builtin, Type{}, c.loc);
    r->name = name;
    if (name == "neighbor_sum" || name == "max_over" || name == "min_over") {
      expect_args(c, fn, 1, {"axis"});
      const Expr* axis = keyword(c, "axis");
      if (!axis) throw FrontendError(c.loc, "'" + fn + "' needs axis= (a LOCAL dimension)");
      TExprPtr a = expr(*axis, scope);
      if (a->type.kind != Type::Kind::Dimension)
        throw FrontendError(axis->loc,
                            "the axis of '" + fn + "' must be a dimension, got " + to_string(a->type));
      const Dimension& d = a->type.dims[0];
      if (d.kind != DimensionKind::Local)
        throw FrontendError(axis->loc, "the axis of '" + fn + "' must be a LOCAL dimension, '" + d.name +
                                           "' is " + std::string(to_string(d.kind)));
      TExprPtr x = expr(*c.args[0], scope);
      if (!x->type.is_field() || !x->type.has_dim(d))
        throw FrontendError(c.args[0]->loc, "'" + fn + "' over '" + d.name +
                                                "' needs a field with "
                                                "dimension '" +
                                                d.name + "', got " + to_string(x->type));
      if (!is_numeric(x->type.dtype))
        throw FrontendError(c.args[0]->loc, "'" + fn + "' needs numbers, got " + to_string(x->type));
      std::vector<Dimension> dims;
      for (const Dimension& e : x->type.dims)
        if (!(e == d)) dims.push_back(e);
      r->type = Type::field(dims, x->type.dtype);
      r->dim = d;
      r->args = {x};
      return r;
    }
    if (name == "where") {
      expect_args(c, fn, 3);
      TExprPtr m = expr(*c.args[0], scope);
      if (!m->type.is_data() || m->type.dtype != ScalarKind::Bool)
        throw FrontendError(c.args[0]->loc, "the mask of 'where' must be bool, got " + to_string(m->type));
      TExprPtr a = expr(*c.args[1], scope), b = expr(*c.args[2], scope);
      r->type = where_type(m->type, a->type, b->type, fn, c.loc);
      r->args = {m, a, b};
      return r;
    }
    if (name == "concat_where") {
      expect_args(c, fn, 3);
      TExprPtr m = expr(*c.args[0], scope);
      if (m->type.kind != Type::Kind::Domain)
        throw FrontendError(c.args[0]->loc,
                            "the condition of 'concat_where' must be a domain "
                            "condition such as KDim > 0, got " +
                                to_string(m->type));
      TExprPtr a = expr(*c.args[1], scope), b = expr(*c.args[2], scope);
      r->type = where_type(m->type, a->type, b->type, fn, c.loc);
      r->args = {m, a, b};
      return r;
    }
    if (name == "broadcast") {
      expect_args(c, fn, 2);
      TExprPtr x = expr(*c.args[0], scope);
      if (!x->type.is_data()) throw FrontendError(c.args[0]->loc, "cannot broadcast " + to_string(x->type));
      Value dv = global(*c.args[1]);
      std::vector<Dimension> dims;
      if (dv.kind == ValueKind::Dimension)
        dims.push_back(dv.dim);
      else if (dv.kind == ValueKind::Sequence) {
        for (const Value& v : dv.elements) {
          if (v.kind != ValueKind::Dimension)
            throw FrontendError(c.args[1]->loc, "broadcast needs a tuple of dimensions");
          dims.push_back(v.dim);
        }
      } else {
        throw FrontendError(c.args[1]->loc, "broadcast needs a tuple of dimensions");
      }
      for (const Dimension& d : x->type.dims)
        if (std::find(dims.begin(), dims.end(), d) == dims.end())
          throw FrontendError(c.args[1]->loc, "cannot broadcast " + to_string(x->type) + ": dimension '" +
                                                  d.name + "' is missing");
      r->type = Type::field(dims, x->type.dtype);
      r->dims = r->type.dims;
      r->args = {x};
      return r;
    }
    if (name == "astype") {
      expect_args(c, fn, 2);
      TExprPtr x = expr(*c.args[0], scope);
      Type t = value_to_type(global(*c.args[1]), c.args[1]->loc);
      if (!t.is_scalar())
        throw FrontendError(c.args[1]->loc, "astype needs a scalar dtype, got " + to_string(t));
      if (!x->type.is_value()) throw FrontendError(c.args[0]->loc, "cannot convert " + to_string(x->type));
      r->type = map_leaves(x->type, t.dtype);
      r->args = {x};
      return r;
    }
    if (name == "abs" || float_math().count(name) || name == "isfinite" || name == "isinf" ||
        name == "isnan") {
      expect_args(c, fn, 1);
      TExprPtr x = expr(*c.args[0], scope);
      bool ok = x->type.is_data() && (name == "abs" ? is_numeric(x->type.dtype) : is_floating(x->type.dtype));
      if (!ok) throw FrontendError(c.args[0]->loc, "'" + fn + "' cannot be applied to " + to_string(x->type));
      r->type = x->type;
      if (name.rfind("is", 0) == 0) r->type.dtype = ScalarKind::Bool;
      r->args = {x};
      return r;
    }
    if (name == "minimum" || name == "maximum" || name == "fmod" || name == "power") {
      expect_args(c, fn, 2);
      TExprPtr a = expr(*c.args[0], scope), b = expr(*c.args[1], scope);
      r->type = promote(a->type, b->type, "apply '" + fn + "' to", c.loc);
      if (!is_numeric(r->type.dtype))
        throw FrontendError(c.loc, "'" + fn + "' needs numbers, got " + to_string(r->type));
      r->args = {a, b};
      return r;
    }
    if (name == "as_offset")
      throw FrontendError(c.loc, "as_offset can only be used as a shift: f(as_offset(Koff, offsets))");
    throw FrontendError(c.func->loc,
                        "'" + fn + "' is not a supported builtin in a " + std::string(to_string(def_.kind)));
  }

  // Orders the call's arguments by the callee's parameters and checks their types.
  // Returns the call's result type.
  Type match_call(const Call& c, const TypedDefinition& callee, std::vector<TExprPtr>& args,
                  const std::vector<TExprPtr>& positional,
                  const std::vector<std::pair<const Keyword*, TExprPtr>>& keywords) {
    bool scan = callee.kind == DefinitionKind::ScanOperator;
    std::size_t first = scan ? 1 : 0;
    std::size_t n = callee.params.size() - first;
    args.assign(n, nullptr);
    if (positional.size() > n)
      throw FrontendError(c.loc, "'" + callee.name + "' takes " + std::to_string(n) + " argument" +
                                     (n == 1 ? "" : "s") + ", got " +
                                     std::to_string(positional.size() + keywords.size()));
    for (std::size_t i = 0; i < positional.size(); ++i) args[i] = positional[i];
    for (const auto& [k, v] : keywords) {
      std::size_t i = 0;
      while (i < n && callee.params[first + i].name != k->arg) ++i;
      if (i == n) throw FrontendError(k->loc, "'" + callee.name + "' has no parameter '" + k->arg + "'");
      if (args[i]) throw FrontendError(k->loc, "argument '" + k->arg + "' given twice");
      args[i] = v;
    }
    for (std::size_t i = 0; i < n; ++i)
      if (!args[i])
        throw FrontendError(c.loc, "missing argument '" + callee.params[first + i].name + "' in call to '" +
                                       callee.name + "'");
    std::vector<Dimension> dims;
    for (std::size_t i = 0; i < n; ++i) {
      const Type& want = callee.params[first + i].type;
      const Type& got = args[i]->type;
      bool ok = scan ? scan_compatible(got, want, dims) : got == want;
      if (!ok)
        throw FrontendError(args[i]->loc, "argument '" + callee.params[first + i].name + "' of '" +
                                              callee.name + "' must be " + to_string(want) +
                                              (scan ? " (or a field of it)" : "") + ", got " +
                                              to_string(got));
    }
    if (!scan) return callee.returns;
    dims = union_dims(dims, {callee.axis});
    return lift(callee.returns, dims);
  }

  static bool scan_compatible(const Type& got, const Type& want, std::vector<Dimension>& dims) {
    if (want.is_tuple()) {
      if (!got.is_tuple() || got.elements.size() != want.elements.size()) return false;
      for (std::size_t i = 0; i < want.elements.size(); ++i)
        if (!scan_compatible(got.elements[i], want.elements[i], dims)) return false;
      return true;
    }
    if (!got.is_data() || !want.is_data() || got.dtype != want.dtype) return false;
    if (want.is_field()) return got == want;
    dims = union_dims(dims, got.dims);
    return true;
  }

  static Type lift(const Type& t, const std::vector<Dimension>& dims) {
    if (t.is_tuple()) {
      std::vector<Type> e;
      for (const Type& x : t.elements) e.push_back(lift(x, dims));
      return Type::tuple(std::move(e));
    }
    return Type::field(union_dims(t.dims, dims), t.dtype);
  }

  const TypedDefinition& callee_of(const Definition& d, const SourceLocation& loc) {
    try {
      return tc_.check(d);
    } catch (const FrontendError& e) {
      if (e.message().rfind("recursive", 0) == 0) throw FrontendError(loc, e.message());
      throw;
    }
  }

  TExprPtr operator_call(const Call& c, const Definition& d, Scope& scope) {
    if (d.kind == DefinitionKind::Program)
      throw FrontendError(c.func->loc, "a program ('" + d.name + "') cannot be called from a " +
                                           std::string(to_string(def_.kind)));
    const TypedDefinition& callee = callee_of(d, c.func->loc);
    std::vector<TExprPtr> positional;
    std::vector<std::pair<const Keyword*, TExprPtr>> keywords;
    for (const ExprPtr& a : c.args) {
      if (isa<Starred>(a.get())) throw FrontendError(a->loc, "starred arguments are not supported");
      positional.push_back(expr(*a, scope));
    }
    for (const Keyword& k : c.keywords) {
      if (k.arg.empty()) throw FrontendError(k.loc, "**arguments are not supported");
      keywords.emplace_back(&k, expr(*k.value, scope));
    }
    auto r = mk(TExprKind::Call, Type{}, c.loc);
    r->type = match_call(c, callee, r->args, positional, keywords);
    r->callee = &callee;
    r->name = callee.name;
    return r;
  }

  // ------------------------------------------------------------------------------- scan, program

  void check_scan_header(const FunctionDef& f) {
    if (out_.params.empty())
      throw FrontendError(f.loc, "scan operator '" + f.name + "' needs a carry as first parameter");
    out_.axis = *def_.axis;
    out_.forward = def_.forward;
    const TParam& carry = out_.params[0];
    auto scalar_leaves = [](const Type& t, auto& self) -> bool {
      if (t.is_tuple()) {
        for (const Type& e : t.elements)
          if (!self(e, self)) return false;
        return true;
      }
      return t.is_scalar();
    };
    for (const TParam& p : out_.params)
      if (!scalar_leaves(p.type, scalar_leaves))
        throw FrontendError(p.loc,
                            "parameters of a scan operator are values at one level "
                            "(scalars or tuples of scalars), '" +
                                p.name + "' has type " + to_string(p.type));
    Scope empty;
    out_.init = expr(*def_.init, empty);
    if (!(out_.init->type == carry.type))
      throw FrontendError(def_.init->loc, "init of scan operator '" + f.name + "' has type " +
                                              to_string(out_.init->type) + " but the carry '" + carry.name +
                                              "' has type " + to_string(carry.type));
  }

  // A program argument: a parameter, a literal, a tuple of arguments, or a scalar expression
  // of parameters and literals (`vertical_end - 1`), computed where the program runs.
  TExprPtr program_arg(const Expr& e) {
    if (auto* t = dyn_cast<Tuple>(&e)) {
      auto r = mk(TExprKind::Tuple, Type{}, e.loc);
      std::vector<Type> types;
      for (const ExprPtr& x : t->elts) {
        r->args.push_back(program_arg(*x));
        types.push_back(r->args.back()->type);
      }
      r->type = Type::tuple(types);
      return r;
    }
    if (auto* c = dyn_cast<Call>(&e);
        c && (isa<Name>(c->func.get()) || isa<Attribute>(c->func.get())) && !is_local(*c->func)) {
      Value f = global(*c->func);
      if (f.kind == ValueKind::Type && !f.type.collection.empty())
        return collection(*c, f.type, [&](const Expr& x) { return program_arg(x); });
    }
    TExprPtr r = expr(e, scope_);
    if (r->kind == TExprKind::Name || r->kind == TExprKind::Literal) return r;
    std::function<void(const TExpr&)> scalar_only = [&](const TExpr& x) {
      bool ok = x.type.is_scalar() &&
                (x.kind == TExprKind::Name || x.kind == TExprKind::Literal || x.kind == TExprKind::Unary ||
                 x.kind == TExprKind::Binary || x.kind == TExprKind::Compare ||
                 x.kind == TExprKind::Ternary || x.kind == TExprKind::Builtin);
      if (!ok)
        throw FrontendError(e.loc,
                            "program arguments must be parameters, literals or scalar "
                            "expressions of them, got '" +
                                unparse(e) + "' (" + to_string(x.type) + ")");
      for (const TExprPtr& a : x.args) scalar_only(*a);
    };
    scalar_only(*r);
    return r;
  }

  std::optional<std::int64_t> slice_bound(const Expr* e) {
    if (!e) return std::nullopt;
    TExprPtr t = expr(*e, scope_);
    if (!is_int_literal(t)) throw FrontendError(e->loc, "slice bounds of out= must be integer literals");
    return t->literal.int_value;
  }

  void out_target(const Expr& e, ProgramCall& pc, std::vector<Type>& types) {
    if (auto* t = dyn_cast<Tuple>(&e)) {
      for (const ExprPtr& x : t->elts) out_target(*x, pc, types);
      return;
    }
    const Expr* base = &e;
    const Expr* index = nullptr;
    if (auto* s = dyn_cast<Subscript>(&e)) {
      base = s->value.get();
      index = s->index.get();
    }
    auto* n = dyn_cast<Name>(base);
    if (!n || !scope_.count(n->id))
      throw FrontendError(base->loc,
                          "out= must be a field parameter of the program (or a tuple "
                          "of them), got '" +
                              unparse(*base) + "'");
    const Type& t = scope_.at(n->id);
    if (!t.is_field())
      throw FrontendError(base->loc, "out= must be a field, '" + n->id + "' has type " + to_string(t));
    ProgramCall::Out o;
    o.name = n->id;
    o.type = t;
    if (index) {
      std::vector<const Expr*> parts;
      if (auto* tu = dyn_cast<Tuple>(index)) {
        for (const ExprPtr& x : tu->elts) parts.push_back(x.get());
      } else {
        parts.push_back(index);
      }
      if (parts.size() > t.dims.size())
        throw FrontendError(index->loc, "too many slices for " + to_string(t));
      for (const Expr* p : parts) {
        auto* sl = dyn_cast<Slice>(p);
        if (!sl) throw FrontendError(p->loc, "out= may only be sliced with ranges such as 1:-1");
        if (sl->step) throw FrontendError(sl->step->loc, "slice steps are not supported in out=");
        o.slices.emplace_back(slice_bound(sl->lower.get()), slice_bound(sl->upper.get()));
      }
    }
    types.push_back(t);
    pc.outs.push_back(std::move(o));
  }

  TExprPtr bound(const Expr& e) {
    TExprPtr t = expr(e, scope_);
    if (!t->type.is_scalar() || !is_integral(t->type.dtype))
      throw FrontendError(e.loc, "a domain bound must be a scalar integer, got " + to_string(t->type));
    return t;
  }

  // `{D: (lo, hi), ...}` for outputs of `types` (what `what` names in messages).
  std::vector<ProgramCall::Range> domain_ranges(const Expr& domain, const std::vector<Type>& types,
                                                const std::string& what) {
    auto* d = dyn_cast<Dict>(&domain);
    if (!d)
      throw FrontendError(domain.loc,
                          "domain= must be a dict {Dim: (lo, hi)} (or a tuple of them, one per output)");
    std::vector<ProgramCall::Range> out;
    for (std::size_t i = 0; i < d->keys.size(); ++i) {
      if (!d->keys[i]) throw FrontendError(d->values[i]->loc, "domain= must be a dict {Dim: (lo, hi)}");
      Value dv = global(*d->keys[i]);
      if (dv.kind != ValueKind::Dimension)
        throw FrontendError(d->keys[i]->loc, "domain keys must be dimensions, got " + dv.describe());
      bool found = false;
      for (const Type& t : types) found = found || t.has_dim(dv.dim);
      if (!found) throw FrontendError(d->keys[i]->loc, "'" + dv.dim.name + "' is not a dimension of " + what);
      auto* range = dyn_cast<Tuple>(d->values[i].get());
      if (!range || range->elts.size() != 2)
        throw FrontendError(d->values[i]->loc, "a domain range must be a pair (lo, hi)");
      out.push_back({dv.dim, bound(*range->elts[0]), bound(*range->elts[1])});
    }
    return out;
  }

  void check_program(const FunctionDef& f) {
    for (const StmtPtr& s : f.body) {
      if (s->kind == StmtKind::Pass) continue;
      auto* es = dyn_cast<ExprStmt>(s.get());
      if (es) {
        if (auto* c = dyn_cast<Constant>(es->value.get()); c && c->value_kind == ConstantKind::String)
          continue;
      }
      auto* c = es ? dyn_cast<Call>(es->value.get()) : nullptr;
      if (!c) throw FrontendError(s->loc, "a program may only call field operators and scan operators");
      Value fv = global(*c->func);
      if (fv.kind != ValueKind::Definition || fv.definition->kind == DefinitionKind::Program)
        throw FrontendError(c->func->loc, "'" + unparse(*c->func) + "' (" + fv.describe() +
                                              ") is not a field_operator or scan_operator");
      const TypedDefinition& callee = callee_of(*fv.definition, c->func->loc);
      ProgramCall pc;
      pc.callee = &callee;
      pc.loc = c->loc;
      std::vector<TExprPtr> positional;
      std::vector<std::pair<const Keyword*, TExprPtr>> keywords;
      const Expr* out = nullptr;
      const Expr* domain = nullptr;
      for (const ExprPtr& a : c->args) positional.push_back(program_arg(*a));
      for (const Keyword& k : c->keywords) {
        if (k.arg == "out")
          out = k.value.get();
        else if (k.arg == "domain")
          domain = k.value.get();
        else if (k.arg == "offset_provider")
          throw FrontendError(k.loc, "offset_provider is given when the program is run, not here");
        else
          keywords.emplace_back(&k, program_arg(*k.value));
      }
      if (!out) throw FrontendError(c->loc, "missing 'out=' in call to '" + callee.name + "'");
      Type result = match_call(*c, callee, pc.args, positional, keywords);
      std::vector<Type> types;
      out_target(*out, pc, types);
      Type out_type = isa<Tuple>(out) ? Type::tuple(types) : types[0];
      // A named collection result goes to a tuple of fields, element by element.
      if (!(out_type == unnamed(result)))
        throw FrontendError(out->loc, "out= has type " + to_string(out_type) + " but '" + callee.name +
                                          "' returns " + to_string(result));
      if (domain) {
        for (const auto& o : pc.outs)
          if (!o.slices.empty())
            throw FrontendError(domain->loc, "give either domain= or a sliced out=, not both");
        if (auto* t = dyn_cast<Tuple>(domain)) {
          // One domain per output, in the order (and nesting) of out=.
          std::vector<const Expr*> doms;
          std::function<void(const Expr&)> flat = [&](const Expr& x) {
            if (auto* tt = dyn_cast<Tuple>(&x))
              for (const ExprPtr& y : tt->elts) flat(*y);
            else
              doms.push_back(&x);
          };
          flat(*t);
          if (doms.size() != pc.outs.size())
            throw FrontendError(domain->loc, "domain= gives " + std::to_string(doms.size()) + " domain" +
                                                 (doms.size() == 1 ? "" : "s") + " for " +
                                                 std::to_string(pc.outs.size()) + " output field" +
                                                 (pc.outs.size() == 1 ? "" : "s"));
          for (std::size_t i = 0; i < doms.size(); ++i)
            pc.outs[i].domain =
                domain_ranges(*doms[i], {pc.outs[i].type}, "out= element '" + pc.outs[i].name + "'");
        } else {
          std::vector<Type> types;
          for (const auto& o : pc.outs) types.push_back(o.type);
          pc.domain = domain_ranges(*domain, types, "out=");
        }
      }
      check_out_hazards(pc);
      out_.calls.push_back(std::move(pc));
    }
  }

  TypeChecker& tc_;
  const Definition& def_;
  TypedDefinition& out_;
  const LoadedModule& module_;
  Scope scope_;
  Type declared_return_, deduced_return_;
  bool has_declared_return_ = false, has_deduced_return_ = false;
};

TypeChecker::TypeChecker() = default;
TypeChecker::~TypeChecker() = default;

const TypedDefinition& TypeChecker::check(const Definition& def) {
  auto it = done_.find(&def);
  if (it != done_.end()) return *it->second;
  if (auto f = failed_.find(&def); f != failed_.end()) throw f->second;
  if (std::find(in_progress_.begin(), in_progress_.end(), &def) != in_progress_.end())
    throw FrontendError(def.def->loc,
                        "recursive call of '" + def.name + "': field operators cannot be recursive");
  in_progress_.push_back(&def);
  auto typed = std::make_unique<TypedDefinition>();
  try {
    FunctionChecker(*this, def, *typed).run();
  } catch (const FrontendError& e) {
    in_progress_.pop_back();
    // A recursion error belongs to where the cycle closes, which depends on the caller.
    if (e.message().rfind("recursive", 0) != 0) failed_.emplace(&def, e);
    throw;
  } catch (...) {
    in_progress_.pop_back();
    throw;
  }
  in_progress_.pop_back();
  return *done_.emplace(&def, std::move(typed)).first->second;
}

std::vector<const TypedDefinition*> TypeChecker::check_module(const LoadedModule& module) {
  std::vector<const TypedDefinition*> out;
  for (const auto& d : module.definitions) out.push_back(&check(*d));
  return out;
}

ModuleCheck TypeChecker::check_all(const LoadedModule& module, std::size_t max_errors) {
  ModuleCheck r;
  std::set<std::string> seen;  // location + message of the errors reported
  auto one = [&](const Definition& d) {
    if (r.truncated) return;
    ++r.definitions;
    try {
      r.checked.push_back(&check(d));
    } catch (const FrontendError& e) {
      ++r.failed;
      if (!seen.insert(e.location().str() + "\n" + e.message()).second) return;
      if (r.errors.size() == max_errors) {
        r.truncated = true;
        return;
      }
      r.errors.push_back(e);
    }
  };
  for (const auto& d : module.definitions) one(*d);
  for (const auto& d : module.nested_definitions) {
    ++r.nested;
    one(*d);
  }
  return r;
}

}  // namespace weir::frontend
