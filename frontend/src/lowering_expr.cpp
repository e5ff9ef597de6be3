// Lowering of field-operator expressions and statements to the code of one tasklet: operator
// calls are inlined, shifts become reads at offsets of the map point, intermediate values
// become scalar temporaries (`__t3 = (__in_u_0 - __in_u_1)`).
#include <cmath>
#include <cstdio>
#include <sstream>

#include "lowering_internal.h"

namespace weir::frontend::lowering {

void unsupported(const SourceLocation& loc, const std::string& what) {
  throw FrontendError(loc, "not supported yet by the SDFG lowering: " + what);
}

ScalarType to_sdfg_type(ScalarKind k) {
  switch (k) {
    case ScalarKind::Bool: return ScalarType::Bool;
    case ScalarKind::Int8: return ScalarType::Int8;
    case ScalarKind::Int16: return ScalarType::Int16;
    case ScalarKind::Int32: return ScalarType::Int32;
    case ScalarKind::Int64: return ScalarType::Int64;
    case ScalarKind::UInt8: return ScalarType::UInt8;
    case ScalarKind::UInt16: return ScalarType::UInt16;
    case ScalarKind::UInt32: return ScalarType::UInt32;
    case ScalarKind::UInt64: return ScalarType::UInt64;
    case ScalarKind::Float32: return ScalarType::Float32;
    case ScalarKind::Float64: return ScalarType::Float64;
  }
  return ScalarType::Float64;
}

EnvPtr bind_name(EnvPtr env, std::string name, ValuePtr value) {
  auto e = std::make_shared<Env>();
  e->parent = std::move(env);
  e->name = std::move(name);
  e->value = std::move(value);
  return e;
}

ValuePtr lookup(const EnvPtr& env, const std::string& name) {
  for (const Env* e = env.get(); e; e = e->parent.get())
    if (e->name == name) return e->value;
  return nullptr;
}

ValuePtr lazy(TExprPtr expr, EnvPtr env) {
  auto v = std::make_shared<Val>();
  v->kind = Val::Kind::Lazy;
  v->expr = std::move(expr);
  v->env = std::move(env);
  return v;
}

namespace {

ValuePtr elem(ValuePtr base, std::size_t i) {
  auto v = std::make_shared<Val>();
  v->kind = Val::Kind::Elem;
  v->elems = {std::move(base)};
  v->index = i;
  return v;
}

bool is_atom(const std::string& s) {
  if (s.empty()) return true;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  return true;
}

std::string float_text(double d) {
  if (std::isnan(d)) return "math.nan";
  if (std::isinf(d)) return d > 0 ? "math.inf" : "(-math.inf)";
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

std::string literal_text(const ConstantValue& c, ScalarKind dtype) {
  std::string t;
  switch (c.kind) {
    case ConstantValue::Kind::Int:
      t = is_floating(dtype) ? float_text(static_cast<double>(c.int_value)) : std::to_string(c.int_value);
      break;
    case ConstantValue::Kind::Float: t = float_text(c.float_value); break;
    case ConstantValue::Kind::Bool: t = c.bool_value ? "True" : "False"; break;
    case ConstantValue::Kind::String: t = c.str_value; break;
  }
  if (t[0] == '-') t = "(" + t + ")";
  if (dtype == ScalarKind::Float32) t = "dace.float32(" + t + ")";
  return t;
}

Code zip(const std::vector<Code>& parts, const std::string& what,
         const std::function<std::string(const std::vector<std::string>&)>& f) {
  bool any_tuple = false;
  std::size_t n = 0;
  for (const Code& c : parts)
    if (c.tuple) {
      any_tuple = true;
      n = c.elems.size();
    }
  if (!any_tuple) {
    std::vector<std::string> texts;
    for (const Code& c : parts) texts.push_back(c.text);
    return Code::scalar(f(texts));
  }
  Code out;
  out.tuple = true;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<Code> sub;
    for (const Code& c : parts) {
      if (!c.tuple) sub.push_back(c);
      else if (c.elems.size() != n) throw Error("tuple size mismatch in " + what);
      else sub.push_back(c.elems[i]);
    }
    out.elems.push_back(zip(sub, what, f));
  }
  return out;
}

Code KernelBuilder::temp(Code c) {
  if (c.tuple) {
    for (Code& e : c.elems) e = temp(std::move(e));
    return c;
  }
  if (is_atom(c.text)) return c;
  std::string name = "__t" + std::to_string(temps_++);
  lines_.push_back(name + " = " + c.text);
  return Code::scalar(name);
}

std::string KernelBuilder::index_text(const Dimension& dim, const Shift& shift,
                                      const SourceLocation& loc) const {
  auto it = params_.find(dim.name);
  if (it == params_.end())
    unsupported(loc, "a value over dimension '" + dim.name + "', which is not a dimension of the output domain");
  auto s = shift.find(dim.name);
  std::int64_t off = s == shift.end() ? 0 : s->second;
  if (off == 0) return it->second;
  return "(" + it->second + (off > 0 ? " + " : " - ") + std::to_string(off > 0 ? off : -off) + ")";
}

std::string KernelBuilder::read(const std::string& container, const std::vector<Dimension>& dims,
                                const Shift& shift, const SourceLocation& loc) {
  Read r;
  r.container = container;
  std::string key = container + "[";
  if (dims.empty()) {
    r.index.push_back(sym::Expr(0));
    r.offsets.push_back(0);
  }
  for (const Dimension& d : dims) {
    if (d.kind == DimensionKind::Local) unsupported(loc, "fields with a local dimension ('" + d.name + "')");
    auto it = params_.find(d.name);
    if (it == params_.end())
      unsupported(loc, "reading field '" + container + "' over dimension '" + d.name +
                           "', which is not a dimension of the output domain");
    auto s = shift.find(d.name);
    std::int64_t off = s == shift.end() ? 0 : s->second;
    r.index.push_back(sym::Expr::symbol(it->second) + sym::Expr(off));
    r.offsets.push_back(off);
    key += std::to_string(off) + ",";
  }
  key += "]";
  auto found = read_conns_.find(key);
  if (found != read_conns_.end()) return found->second;
  int n = 0;
  for (const Read& x : reads_) n += x.container == container;
  r.conn = "__in_" + container + "_" + std::to_string(n);
  read_conns_[key] = r.conn;
  reads_.push_back(r);
  return r.conn;
}

Code KernelBuilder::eval_value(const ValuePtr& v, const Shift& shift) {
  switch (v->kind) {
    case Val::Kind::Field: return Code::scalar(read(v->name, v->dims, shift, where_));
    case Val::Kind::Scalar: return Code::scalar(read(v->name, {}, shift, where_));
    case Val::Kind::Symbol: return Code::scalar(v->name);
    case Val::Kind::Lazy: {
      auto key = std::make_tuple(static_cast<const void*>(v->expr.get()),
                                 static_cast<const void*>(v->env.get()), shift);
      auto it = memo_.find(key);
      if (it != memo_.end()) return it->second;
      Code c = temp(eval(*v->expr, v->env, shift));
      memo_.emplace(key, c);
      return c;
    }
    case Val::Kind::Elem: {
      Code b = eval_value(v->elems[0], shift);
      if (!b.tuple || v->index >= b.elems.size()) throw Error("lowering: element of a non-tuple");
      return b.elems[v->index];
    }
    case Val::Kind::Tuple: {
      Code c;
      c.tuple = true;
      for (const ValuePtr& e : v->elems) c.elems.push_back(eval_value(e, shift));
      return c;
    }
    case Val::Kind::Select: {
      Code cond = eval_value(v->elems[0], shift);
      Code a = eval_value(v->elems[1], shift);
      Code b = eval_value(v->elems[2], shift);
      return zip({cond, a, b}, "if", [](const std::vector<std::string>& t) {
        return "(" + t[1] + " if " + t[0] + " else " + t[2] + ")";
      });
    }
  }
  throw Error("lowering: bad value");
}

namespace {

std::string binop_text(BinaryOperator op) {
  switch (op) {
    case BinaryOperator::Add: return "+";
    case BinaryOperator::Sub: return "-";
    case BinaryOperator::Mult: return "*";
    case BinaryOperator::Div: return "/";
    case BinaryOperator::FloorDiv: return "//";
    case BinaryOperator::Mod: return "%";
    case BinaryOperator::Pow: return "**";
    case BinaryOperator::LShift: return "<<";
    case BinaryOperator::RShift: return ">>";
    case BinaryOperator::BitOr: return "|";
    case BinaryOperator::BitXor: return "^";
    case BinaryOperator::BitAnd: return "&";
    case BinaryOperator::MatMult: return "@";
  }
  return "?";
}

std::string cmp_text(CompareOperator op) {
  switch (op) {
    case CompareOperator::Eq: return "==";
    case CompareOperator::NotEq: return "!=";
    case CompareOperator::Lt: return "<";
    case CompareOperator::LtE: return "<=";
    case CompareOperator::Gt: return ">";
    case CompareOperator::GtE: return ">=";
    default: return "?";
  }
}

}  // namespace

Code KernelBuilder::eval(const TExpr& e, const EnvPtr& env, const Shift& shift) {
  switch (e.kind) {
    case TExprKind::Name: {
      ValuePtr v = lookup(env, e.name);
      if (!v) unsupported(e.loc, "the name '" + e.name + "' here (" + to_string(e.type) + ")");
      return eval_value(v, shift);
    }
    case TExprKind::Literal: return Code::scalar(literal_text(e.literal, e.type.dtype));
    case TExprKind::Tuple: {
      Code c;
      c.tuple = true;
      for (const TExprPtr& a : e.args) c.elems.push_back(eval(*a, env, shift));
      return c;
    }
    case TExprKind::TupleGet: {
      Code b = eval(*e.args[0], env, shift);
      if (!b.tuple || e.index >= b.elems.size()) throw Error("lowering: element of a non-tuple");
      return b.elems[e.index];
    }
    case TExprKind::Unary: {
      Code x = eval(*e.args[0], env, shift);
      std::string op = e.unary_op == UnaryOperator::USub  ? "-"
                       : e.unary_op == UnaryOperator::UAdd ? "+"
                       : e.unary_op == UnaryOperator::Not  ? "not "
                                                           : "~";
      if (e.unary_op == UnaryOperator::Invert && e.type.dtype == ScalarKind::Bool) op = "not ";
      return zip({x}, "unary", [&](const std::vector<std::string>& t) { return "(" + op + t[0] + ")"; });
    }
    case TExprKind::Binary: {
      Code a = eval(*e.args[0], env, shift), b = eval(*e.args[1], env, shift);
      std::string op = binop_text(e.binary_op);
      if (e.binary_op == BinaryOperator::MatMult) unsupported(e.loc, "operator '@'");
      return zip({a, b}, "binary", [&](const std::vector<std::string>& t) {
        return "(" + t[0] + " " + op + " " + t[1] + ")";
      });
    }
    case TExprKind::Compare: {
      Code a = eval(*e.args[0], env, shift), b = eval(*e.args[1], env, shift);
      std::string op = cmp_text(e.compare_op);
      return zip({a, b}, "comparison", [&](const std::vector<std::string>& t) {
        return "(" + t[0] + " " + op + " " + t[1] + ")";
      });
    }
    case TExprKind::Ternary: {
      Code c = eval(*e.args[0], env, shift);
      Code a = eval(*e.args[1], env, shift), b = eval(*e.args[2], env, shift);
      return zip({c, a, b}, "conditional expression", [](const std::vector<std::string>& t) {
        return "(" + t[1] + " if " + t[0] + " else " + t[2] + ")";
      });
    }
    case TExprKind::Shift: {
      Shift s = shift;
      for (const ShiftStep& st : e.shifts) {
        switch (st.kind) {
          case ShiftStep::Kind::Cartesian:
            if (!(st.offset.targets[0] == st.offset.source))
              unsupported(e.loc, "the Cartesian offset '" + st.offset.name +
                                     "' whose target differs from its source");
            s[st.offset.source.name] += st.amount;
            break;
          case ShiftStep::Kind::Neighbor:
          case ShiftStep::Kind::AllNeighbors:
            unsupported(e.loc, "unstructured shifts (by '" + st.offset.name + "')");
          case ShiftStep::Kind::Dynamic:
            unsupported(e.loc, "as_offset shifts");
        }
      }
      for (auto it = s.begin(); it != s.end();) it = it->second == 0 ? s.erase(it) : std::next(it);
      return eval(*e.args[0], env, s);
    }
    case TExprKind::Builtin: return builtin(e, env, shift);
    case TExprKind::Call: {
      if (!e.callee) throw Error("lowering: call without callee");
      if (e.callee->kind != DefinitionKind::FieldOperator)
        unsupported(e.loc, "calls of scan operators ('" + e.callee->name + "')");
      // Memoized like a named value: the call at the same point is inlined once.
      auto key = std::make_tuple(static_cast<const void*>(&e), static_cast<const void*>(env.get()), shift);
      auto it = memo_.find(key);
      if (it != memo_.end()) return it->second;
      std::vector<ValuePtr> args;
      for (const TExprPtr& a : e.args) args.push_back(lazy(a, env));
      Code c = temp(eval_value(inline_call(*e.callee, args, e.loc), shift));
      memo_.emplace(key, c);
      return c;
    }
    case TExprKind::LocalIndex: unsupported(e.loc, "local dimension indexing");
    case TExprKind::DomainCompare:
      unsupported(e.loc, "a domain condition outside concat_where");
  }
  throw Error("lowering: bad expression");
}

ValuePtr KernelBuilder::inline_call(const TypedDefinition& callee, const std::vector<ValuePtr>& args,
                                    const SourceLocation& loc) {
  if (callee.kind != DefinitionKind::FieldOperator)
    unsupported(loc, std::string(to_string(callee.kind)) + " '" + callee.name + "'");
  if (args.size() != callee.params.size()) throw Error("lowering: argument count mismatch");
  EnvPtr env;
  for (std::size_t i = 0; i < args.size(); ++i) env = bind_name(env, callee.params[i].name, args[i]);
  std::vector<const TStmt*> stmts;
  for (const TStmt& s : callee.body) stmts.push_back(&s);
  return exec(stmts, 0, env);
}

ValuePtr KernelBuilder::exec(const std::vector<const TStmt*>& stmts, std::size_t i, EnvPtr env) {
  for (; i < stmts.size(); ++i) {
    const TStmt& s = *stmts[i];
    switch (s.kind) {
      case TStmt::Kind::Return: return lazy(s.value, env);
      case TStmt::Kind::Assign: {
        ValuePtr v = lazy(s.value, env);
        if (!s.tuple_target) {
          env = bind_name(env, s.targets[0], v);
          break;
        }
        if (!s.value->type.is_tuple()) unsupported(s.loc, "unpacking a non-tuple");
        std::size_t total = s.value->type.elements.size(), n = s.targets.size();
        for (std::size_t k = 0; k < n; ++k) {
          if (static_cast<int>(k) == s.starred) {
            auto rest = std::make_shared<Val>();
            rest->kind = Val::Kind::Tuple;
            for (std::size_t j = k; j < k + (total - (n - 1)); ++j) rest->elems.push_back(elem(v, j));
            env = bind_name(env, s.targets[k], rest);
          } else {
            std::size_t j = (s.starred >= 0 && static_cast<int>(k) > s.starred) ? total - (n - k) : k;
            env = bind_name(env, s.targets[k], elem(v, j));
          }
        }
        break;
      }
      case TStmt::Kind::If: {
        std::vector<const TStmt*> a, b;
        for (const TStmt& x : s.body) a.push_back(&x);
        for (const TStmt& x : s.orelse) b.push_back(&x);
        for (std::size_t j = i + 1; j < stmts.size(); ++j) {
          a.push_back(stmts[j]);
          b.push_back(stmts[j]);
        }
        auto sel = std::make_shared<Val>();
        sel->kind = Val::Kind::Select;
        sel->elems = {lazy(s.value, env), exec(a, 0, env), exec(b, 0, env)};
        return sel;
      }
    }
  }
  throw Error("lowering: operator body without return");
}

}  // namespace weir::frontend::lowering
