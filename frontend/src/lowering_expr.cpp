// Lowering of field-operator expressions and statements to the code of one tasklet: operator
// calls are inlined, shifts become reads at offsets of the map point, intermediate values
// become scalar temporaries (`__t3 = (__in_u_0 - __in_u_1)`).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "lowering_internal.h"
#include "weir/sdfg/field_dims.h"

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

ScalarKind from_sdfg_type(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return ScalarKind::Bool;
    case ScalarType::Int8: return ScalarKind::Int8;
    case ScalarType::Int16: return ScalarKind::Int16;
    case ScalarType::Int32: return ScalarKind::Int32;
    case ScalarType::UInt8: return ScalarKind::UInt8;
    case ScalarType::UInt16: return ScalarKind::UInt16;
    case ScalarType::UInt32: return ScalarKind::UInt32;
    case ScalarType::UInt64: return ScalarKind::UInt64;
    case ScalarType::Float16:
    case ScalarType::Float32: return ScalarKind::Float32;
    case ScalarType::Float64:
    case ScalarType::Complex64:
    case ScalarType::Complex128: return ScalarKind::Float64;
    case ScalarType::Int64:
    case ScalarType::Void: return ScalarKind::Int64;
  }
  return ScalarKind::Int64;
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

std::string float_text(double d) {
  // DaCe's own spelling of NaN in a Python tasklet (what its frontend writes through astunparse):
  // the bare name `nan`, which DaCe's free-symbol scan skips and its cppunparse writes as C's NAN.
  // `math.nan` would become `dace::math::nan`, a typeless struct with few operators.
  if (std::isnan(d)) return "nan";
  // Python's infinity literal, which DaCe compiles (`math.inf` it does not; see lowering_builtins).
  if (std::isinf(d)) return d > 0 ? "1e309" : "(-1e309)";
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

Code literal_code(const ConstantValue& c, ScalarKind dtype) {
  Code code = Code::scalar(literal_text(c, dtype));
  const bool negative = (c.kind == ConstantValue::Kind::Int && c.int_value < 0) ||
                        (c.kind == ConstantValue::Kind::Float && std::signbit(c.float_value));
  code.atom = !negative && dtype != ScalarKind::Float32 && c.kind != ConstantValue::Kind::String;
  return code;
}

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
      if (!c.tuple)
        sub.push_back(c);
      else if (c.elems.size() != n)
        throw Error("tuple size mismatch in " + what);
      else
        sub.push_back(c.elems[i]);
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
  if (c.atom || c.text.empty()) return c;
  std::string name = "__t" + std::to_string(temps_++);
  lines_.push_back(name + " = " + c.text);
  return Code::atomic(name);
}

LoweringContext& KernelBuilder::ctx(const SourceLocation& loc) {
  if (!ctx_) unsupported(loc, "this construct outside a program lowering");
  return *ctx_;
}

std::string KernelBuilder::index_text(const Dimension& dim, const Shift& shift,
                                      const SourceLocation& loc) const {
  if (auto a = shift.at.find(dim.name); a != shift.at.end()) return a->second;
  auto it = params_.find(dim.name);
  if (it == params_.end())
    unsupported(loc,
                "a value over dimension '" + dim.name + "', which is not a dimension of the output domain");
  auto s = shift.off.find(dim.name);
  std::int64_t off = s == shift.off.end() ? 0 : s->second;
  if (off == 0) return it->second;
  return "(" + it->second + (off > 0 ? " + " : " - ") + std::to_string(off > 0 ? off : -off) + ")";
}

void record_dims(DataDescriptor& d, const std::vector<Dimension>& dims) {
  std::vector<std::string> names;
  for (const Dimension& dim : dims) names.push_back(dim.name);
  set_field_dims(d, names);
}

std::string debuginfo_json(const SourceLocation& loc) {
  std::string file = "\"";
  for (char c : loc.file.valid() ? loc.file.path() : std::string()) {
    if (c == '"' || c == '\\') file += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      file += buf;
    } else {
      file += c;
    }
  }
  file += '"';
  const std::string l = std::to_string(loc.line), c = std::to_string(loc.column);
  return "{\"type\": \"DebugInfo\", \"start_line\": " + l + ", \"end_line\": " + l +
         ", \"start_column\": " + c + ", \"end_column\": " + c + ", \"filename\": " + file + "}";
}

Code KernelBuilder::read(const std::string& container, const std::vector<Dimension>& dims, const Shift& shift,
                         const SourceLocation& loc) {
  Read r;
  r.container = container;
  std::string key = container + "[";
  if (dims.empty()) {
    r.index.push_back(sym::Expr(0));
    r.params.emplace_back();
    r.offsets.push_back(0);
  }
  std::vector<std::string> texts;  // per dimension, for a whole-container read
  for (const Dimension& d : dims) {
    if (d.kind == DimensionKind::Local) {
      auto l = shift.local.find(d.name);
      if (l == shift.local.end())
        unsupported(loc, "a value over the local dimension '" + d.name +
                             "' outside a neighbour reduction (reduce it with neighbor_sum/max_over/"
                             "min_over, or pick an entry with " +
                             d.name + "(i))");
      r.index.push_back(sym::Expr(l->second));
      r.params.emplace_back();
      r.offsets.push_back(l->second);
      texts.push_back(std::to_string(l->second));
      key += "#" + std::to_string(l->second) + ",";
      continue;
    }
    if (auto a = shift.at.find(d.name); a != shift.at.end()) {
      r.whole = true;
      texts.push_back(a->second);
      r.index.push_back(sym::Expr(0));
      r.params.emplace_back();
      r.offsets.push_back(0);
      continue;
    }
    auto it = params_.find(d.name);
    if (it == params_.end())
      unsupported(loc, "reading field '" + container + "' over dimension '" + d.name +
                           "', which is not a dimension of the output domain");
    auto s = shift.off.find(d.name);
    std::int64_t off = s == shift.off.end() ? 0 : s->second;
    if (guarded_ > 0 && off != 0) {
      // In a concat_where branch: read through a whole-container connector at the clamped
      // index, so the branch not taken never reads outside the container.
      r.whole = true;
      const std::string raw = index_text(d, shift, loc);
      texts.push_back(shift.guarded(
          raw, "min(max(" + raw + ", 0), " + ctx(loc).extent(container, texts.size()) + " - 1)"));
      r.index.push_back(sym::Expr(0));
      r.params.emplace_back();
      r.offsets.push_back(0);
      continue;
    }
    r.index.push_back(sym::Expr::symbol(it->second) + sym::Expr(off));
    r.params.push_back(it->second);
    r.offsets.push_back(off);
    texts.push_back(index_text(d, shift, loc));
    key += std::to_string(off) + ",";
  }
  key += "]";
  if (r.whole) {
    // One connector over the whole container, subscripted in the code.
    std::string conn = "__all_" + container;
    bool have = false;
    for (const Read& x : reads_) have = have || (x.whole && x.container == container);
    if (!have) {
      r.conn = conn;
      if (read_at_.known()) r.debuginfo = debuginfo_json(read_at_);
      reads_.push_back(r);
    }
    std::string t = conn + "[";
    for (std::size_t j = 0; j < texts.size(); ++j) t += (j ? ", " : "") + texts[j];
    return Code::scalar(t + "]");
  }
  auto found = read_conns_.find(key);
  if (found != read_conns_.end()) return Code::atomic(found->second);
  int n = 0;
  for (const Read& x : reads_) n += !x.whole && x.container == container;
  r.conn = "__in_" + container + "_" + std::to_string(n);
  // The read's memlet names the access in the source, for the bounds checks' errors.
  if (read_at_.known()) r.debuginfo = debuginfo_json(read_at_);
  read_conns_[key] = r.conn;
  reads_.push_back(r);
  return Code::atomic(r.conn);
}

std::pair<std::string, std::string> KernelBuilder::neighbour(const FieldOffset& o, std::int64_t k,
                                                             const Shift& shift, const SourceLocation& loc) {
  std::int64_t n = ctx(loc).table(o, loc);
  if (k < 0 || k >= n)
    throw FrontendError(loc, "neighbour " + std::to_string(k) + " of '" + o.name + "', which has " +
                                 std::to_string(n) + " neighbours");
  Shift ts;
  ts.local[o.targets[1].name] = k;
  const Dimension& from = o.targets[0];
  if (auto a = shift.at.find(from.name); a != shift.at.end()) ts.at[from.name] = a->second;
  if (auto f = shift.off.find(from.name); f != shift.off.end()) ts.off[from.name] = f->second;
  std::string key = o.name + "|" + index_text(from, shift, loc) + "|" + std::to_string(k);
  auto it = neighbours_.find(key);
  if (it != neighbours_.end()) return it->second;
  Code raw = temp(read(o.name, {from, o.targets[1]}, ts, loc));
  // The table entry's memlet names the shift, for the error of a -1 read directly (codegen's
  // index checks): DaCe's Memlet.debuginfo.
  for (Read& r : reads_)
    if (r.conn == raw.text && r.debuginfo.empty() && loc.known()) r.debuginfo = debuginfo_json(loc);
  // Where a reduction skips a missing neighbour (-1), it reads entry 0 instead: the value is
  // discarded, and no read leaves the field.
  Code clamped = temp(Code::scalar("max(" + raw.text + ", 0)"));
  return neighbours_[key] = {clamped.text, raw.text};
}

Shift KernelBuilder::shifted(const TExpr& e, const EnvPtr& env, const Shift& shift) {
  Shift s = shift;
  // `f(a)(b)` at p is f(a) at b(p): the last step moves the point first.
  for (auto st = e.shifts.rbegin(); st != e.shifts.rend(); ++st) {
    const FieldOffset& o = st->offset;
    switch (st->kind) {
      case ShiftStep::Kind::Cartesian: {
        if (!(o.targets[0] == o.source)) {
          // The field's dimension `source` read at the point's index along `target` plus the
          // amount (a staggered shift `I + 0.5`, or a FieldOffset whose target is another
          // dimension): an index expression, as a neighbour's.
          const std::string at = index_text(o.targets[0], s, e.loc);
          s.at[o.source.name] = "(" + at + (st->amount >= 0 ? " + " : " - ") +
                                std::to_string(st->amount >= 0 ? st->amount : -st->amount) + ")";
          s.off.erase(o.source.name);
          s.at.erase(o.targets[0].name);
          s.off.erase(o.targets[0].name);
          break;
        }
        const std::string& d = o.source.name;
        if (auto a = s.at.find(d); a != s.at.end()) {
          a->second = "(" + a->second + (st->amount >= 0 ? " + " : " - ") +
                      std::to_string(st->amount >= 0 ? st->amount : -st->amount) + ")";
        } else {
          s.off[d] += st->amount;
          if (s.off[d] == 0) s.off.erase(d);
        }
        break;
      }
      case ShiftStep::Kind::Neighbor:
      case ShiftStep::Kind::AllNeighbors: {
        if (o.targets.size() != 2 || o.targets[1].kind != DimensionKind::Local)
          unsupported(e.loc, "the offset '" + o.name +
                                 "' (an unstructured offset has targets (dimension, local dimension))");
        const std::string& local = o.targets[1].name;
        std::int64_t k = st->amount;
        if (st->kind == ShiftStep::Kind::AllNeighbors) {
          auto l = s.local.find(local);
          if (l == s.local.end())
            unsupported(e.loc,
                        "all neighbours through '" + o.name + "' outside a reduction over '" + local + "'");
          k = l->second;
        }
        // The raw entry where the value is used (a reduction uses entry k only where it is not
        // -1), so that a -1 read directly (`v(E2V[1])`, `v(E2V)[E2VDim(1)]`) is an index error
        // of the generated code's checks, never entry 0's value; clamped elsewhere (docs/adr/0014).
        auto [clamped, raw] = neighbour(o, k, s, e.loc);
        std::string idx = s.guarded(raw, clamped);
        s.local.erase(local);
        s.off.erase(o.targets[0].name);
        s.at.erase(o.targets[0].name);
        s.off.erase(o.source.name);
        s.at[o.source.name] = idx;
        break;
      }
      case ShiftStep::Kind::Dynamic: {
        // as_offset(Koff, o): at p, the field at p moved by o[p] along Koff's dimension.
        if (!st->index_field) throw Error("lowering: as_offset without offsets");
        Code idx = temp(eval(*st->index_field, env, s));
        if (idx.tuple) unsupported(e.loc, "as_offset with tuple offsets");
        const std::string& d = o.source.name;
        std::string base = index_text(o.source, s, e.loc);
        s.off.erase(d);
        s.at[d] = "(" + base + " + " + idx.text + ")";
        break;
      }
    }
  }
  return s;
}

Code KernelBuilder::eval_value(const ValuePtr& v, const Shift& shift) {
  switch (v->kind) {
    case Val::Kind::Field: return read(v->name, v->dims, shift, where_);
    case Val::Kind::Scalar: return read(v->name, {}, shift, where_);
    case Val::Kind::Symbol: return Code::atomic(v->name);
    case Val::Kind::Lazy: {
      auto key = std::make_tuple(static_cast<const void*>(v->expr.get()),
                                 static_cast<const void*>(v->env.get()), shift);
      auto it = memo_.find(key);
      if (it != memo_.end()) return it->second;
      alias_ = v->expr->kind == TExprKind::Name;
      Code c = temp(eval(*v->expr, v->env, shift));
      alias_ = false;
      memo_.emplace(key, c);
      keep_.push_back(v->env);  // the key's address must not be reused by a later scope
      return c;
    }
    case Val::Kind::Elem: return value_elem(v->elems[0], {v->index}, shift);
    case Val::Kind::Tuple: {
      Code c;
      c.tuple = true;
      for (const ValuePtr& e : v->elems) c.elems.push_back(eval_value(e, shift));
      return c;
    }
    case Val::Kind::Select: {
      // Memoized like a named value, so that a chain of `if`s stays linear in code size.
      auto key = std::make_tuple(static_cast<const void*>(v.get()), static_cast<const void*>(nullptr), shift);
      auto it = memo_.find(key);
      if (it != memo_.end()) return it->second;
      Code cond = eval_value(v->elems[0], shift);
      Code a = eval_value(v->elems[1], shift);
      Code b = eval_value(v->elems[2], shift);
      Code c = temp(zip({cond, a, b}, "if", [](const std::vector<std::string>& t) {
        return "(" + t[1] + " if " + t[0] + " else " + t[2] + ")";
      }));
      memo_.emplace(key, c);
      keep_.push_back(v);
      return c;
    }
  }
  throw Error("lowering: bad value");
}

Code KernelBuilder::eval(const TExpr& e, const EnvPtr& env, const Shift& shift) {
  switch (e.kind) {
    case TExprKind::Name: return eval_name(e, env, shift);
    case TExprKind::Literal: return literal_code(e.literal, e.type.dtype);
    case TExprKind::Tuple: return eval_tuple(e, env, shift);
    case TExprKind::TupleGet: return expr_elem(*e.args[0], env, {e.index}, shift);
    case TExprKind::Unary: return eval_unary(e, env, shift);
    case TExprKind::Binary:
    case TExprKind::Compare: return eval_binary(e, env, shift);
    case TExprKind::Ternary: return eval_ternary(e, env, shift);
    case TExprKind::Shift: {
      // The outermost shift's location, for errors about what it shifts (a scan's result).
      SourceLocation outer = shift_at_;
      if (!shift_at_.known()) shift_at_ = e.loc;
      Code c = eval(*e.args[0], env, shifted(e, env, shift));
      shift_at_ = outer;
      return c;
    }
    case TExprKind::Builtin: return builtin(e, env, shift);
    case TExprKind::Call: return eval_call(e, env, shift);
    case TExprKind::LocalIndex: return eval_local_index(e, env, shift);
    case TExprKind::DomainCompare: unsupported(e.loc, "a domain condition outside concat_where");
  }
  throw Error("lowering: bad expression");
}

Code KernelBuilder::eval_name(const TExpr& e, const EnvPtr& env, const Shift& shift) {
  ValuePtr v = lookup(env, e.name);
  if (!v) unsupported(e.loc, "the name '" + e.name + "' here (" + to_string(e.type) + ")");
  SourceLocation outer = read_at_;
  if (!alias_ || !read_at_.known()) read_at_ = e.loc;
  alias_ = false;
  Code c = eval_value(v, shift);
  read_at_ = outer;
  return c;
}

Code KernelBuilder::eval_tuple(const TExpr& e, const EnvPtr& env, const Shift& shift) {
  Code c;
  c.tuple = true;
  for (const TExprPtr& a : e.args) c.elems.push_back(eval(*a, env, shift));
  return c;
}

Code KernelBuilder::eval_unary(const TExpr& e, const EnvPtr& env, const Shift& shift) {
  return unary_code(e, eval(*e.args[0], env, shift));
}

Code KernelBuilder::unary_code(const TExpr& e, const Code& x) {
  std::string op = e.unary_op == UnaryOperator::USub   ? "-"
                   : e.unary_op == UnaryOperator::UAdd ? "+"
                   : e.unary_op == UnaryOperator::Not  ? "not "
                                                       : "~";
  if (e.unary_op == UnaryOperator::Invert && e.type.dtype == ScalarKind::Bool) op = "not ";
  return zip({x}, "unary", [&](const std::vector<std::string>& t) { return "(" + op + t[0] + ")"; });
}

// A binary operation or a comparison.
Code KernelBuilder::eval_binary(const TExpr& e, const EnvPtr& env, const Shift& shift) {
  Code a = eval(*e.args[0], env, shift);
  return binary_code(e, a, eval(*e.args[1], env, shift));
}

Code KernelBuilder::binary_code(const TExpr& e, const Code& a, const Code& b) {
  if (e.kind == TExprKind::Compare) {
    std::string op(to_string(e.compare_op));
    return zip({a, b}, "comparison",
               [&](const std::vector<std::string>& t) { return "(" + t[0] + " " + op + " " + t[1] + ")"; });
  }
  std::string op(to_string(e.binary_op));  // Python spelling (ast.h)
  if (e.binary_op == BinaryOperator::MatMult) unsupported(e.loc, "operator '@'");
  return zip({a, b}, "binary",
             [&](const std::vector<std::string>& t) { return "(" + t[0] + " " + op + " " + t[1] + ")"; });
}

Code KernelBuilder::eval_ternary(const TExpr& e, const EnvPtr& env, const Shift& shift) {
  Code c = eval(*e.args[0], env, shift);
  Code a = eval(*e.args[1], env, shift), b = eval(*e.args[2], env, shift);
  return zip({c, a, b}, "conditional expression", [](const std::vector<std::string>& t) {
    return "(" + t[1] + " if " + t[0] + " else " + t[2] + ")";
  });
}

Code KernelBuilder::eval_call(const TExpr& e, const EnvPtr& env, const Shift& shift) {
  if (!e.callee) throw Error("lowering: call without callee");
  if (e.callee->kind == DefinitionKind::ScanOperator) {
    if (!shift.empty())
      unsupported(shift_at_.known() ? shift_at_ : e.loc,
                  "a shifted use of the result of scan operator '" + e.callee->name + "'");
    return eval_value(ctx(e.loc).scan(e, env), shift);
  }
  if (e.callee->kind != DefinitionKind::FieldOperator)
    unsupported(e.loc, "calls of " + std::string(to_string(e.callee->kind)) + " '" + e.callee->name + "'");
  // (scope_key only for the expressions stored somewhere: it writes out the whole scope)
  if (store_exprs_.count(&e) && store_.count({static_cast<const void*>(&e), scope_key(env)}))
    return eval_value(ctx(e.loc).stored_call(e, env), shift);
  // Memoized like a named value: the call at the same point is inlined once.
  auto key = std::make_tuple(static_cast<const void*>(&e), static_cast<const void*>(env.get()), shift);
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  if (e.type.is_field()) {
    Shift point = shift;
    point.taken.clear();  // the same point, whatever the condition of its use
    call_points_[{&e, env.get()}].insert(point);
    call_scopes_[env.get()] = env;
  }
  std::vector<ValuePtr> args;
  for (const TExprPtr& a : e.args) args.push_back(lazy(a, env));
  Code c = temp(eval_value(inline_call(*e.callee, args, e.loc), shift));
  memo_.emplace(key, c);
  keep_.push_back(env);
  return c;
}

std::set<CallSite> KernelBuilder::stored_calls() const {
  std::set<CallSite> calls;
  for (const auto& [site, points] : call_points_) {
    if (points.size() <= kMaxRecomputedPoints) continue;
    bool neighbour = false, cartesian = false;
    for (const Shift& s : points) {
      neighbour = neighbour || !s.at.empty();
      for (const auto& [dim, off] : s.off) cartesian = cartesian || off != 0;
    }
    // Cartesian offsets would need the transient over a widened domain: inlined (ADR 0008).
    if (neighbour && !cartesian) calls.insert({site.first, scope_key(call_scopes_.at(site.second))});
  }
  return calls;
}

Code KernelBuilder::eval_local_index(const TExpr& e, const EnvPtr& env, const Shift& shift) {
  Shift s = shift;
  s.local[e.dim.name] = static_cast<std::int64_t>(e.index);
  return eval(*e.args[0], env, s);
}

namespace {

Code pick(Code c, const std::vector<std::size_t>& path) {
  for (std::size_t i : path) {
    if (!c.tuple || i >= c.elems.size()) throw Error("lowering: element of a non-tuple");
    Code e = std::move(c.elems[i]);
    c = std::move(e);
  }
  return c;
}

std::vector<std::size_t> tail(const std::vector<std::size_t>& path) {
  return std::vector<std::size_t>(path.begin() + 1, path.end());
}

}  // namespace

Code KernelBuilder::value_elem(const ValuePtr& v, std::vector<std::size_t> path, const Shift& shift) {
  if (path.empty()) return eval_value(v, shift);
  switch (v->kind) {
    case Val::Kind::Tuple:
      if (path[0] >= v->elems.size()) throw Error("lowering: element of a non-tuple");
      return value_elem(v->elems[path[0]], tail(path), shift);
    case Val::Kind::Elem:
      path.insert(path.begin(), v->index);
      return value_elem(v->elems[0], std::move(path), shift);
    case Val::Kind::Lazy: {
      auto key = std::make_tuple(static_cast<const void*>(v->expr.get()),
                                 static_cast<const void*>(v->env.get()), shift, path);
      if (auto it = elem_memo_.find(key); it != elem_memo_.end()) return it->second;
      Code c = temp(expr_elem(*v->expr, v->env, path, shift));
      elem_memo_.emplace(key, c);
      keep_.push_back(v->env);
      return c;
    }
    case Val::Kind::Select: {
      Code cond = eval_value(v->elems[0], shift);
      Code a = value_elem(v->elems[1], path, shift), b = value_elem(v->elems[2], path, shift);
      return temp(zip({cond, a, b}, "if", [](const std::vector<std::string>& t) {
        return "(" + t[1] + " if " + t[0] + " else " + t[2] + ")";
      }));
    }
    default: return pick(eval_value(v, shift), path);
  }
}

Code KernelBuilder::expr_elem(const TExpr& e, const EnvPtr& env, std::vector<std::size_t> path,
                              const Shift& shift) {
  if (path.empty()) return eval(e, env, shift);
  switch (e.kind) {
    case TExprKind::Tuple:
      if (path[0] >= e.args.size()) throw Error("lowering: element of a non-tuple");
      return expr_elem(*e.args[path[0]], env, tail(path), shift);
    case TExprKind::TupleGet:
      path.insert(path.begin(), e.index);
      return expr_elem(*e.args[0], env, std::move(path), shift);
    case TExprKind::Name: {
      ValuePtr v = lookup(env, e.name);
      if (!v) unsupported(e.loc, "the name '" + e.name + "' here (" + to_string(e.type) + ")");
      return value_elem(v, std::move(path), shift);
    }
    case TExprKind::Ternary: {
      Code c = eval(*e.args[0], env, shift);
      Code a = expr_elem(*e.args[1], env, path, shift), b = expr_elem(*e.args[2], env, path, shift);
      return zip({c, a, b}, "conditional expression", [](const std::vector<std::string>& t) {
        return "(" + t[1] + " if " + t[0] + " else " + t[2] + ")";
      });
    }
    case TExprKind::Builtin:
      if (e.name == "astype") {
        Code x = expr_elem(*e.args[0], env, path, shift);
        const Type* t = &e.type;
        while (t->is_tuple() && !t->elements.empty()) t = &t->elements[0];
        std::string fn = "dace." + dace_type_name(t->dtype);
        return zip({x}, "astype", [&](const std::vector<std::string>& s) { return fn + "(" + s[0] + ")"; });
      }
      if (e.name == "where") {
        Code m = eval(*e.args[0], env, shift);
        Code a = expr_elem(*e.args[1], env, path, shift), b = expr_elem(*e.args[2], env, path, shift);
        return zip({m, a, b}, "where", [](const std::vector<std::string>& t) {
          return "(" + t[1] + " if " + t[0] + " else " + t[2] + ")";
        });
      }
      break;
    case TExprKind::Call:
      if (e.callee && e.callee->kind == DefinitionKind::FieldOperator) {
        auto key = std::make_pair(static_cast<const void*>(&e), static_cast<const void*>(env.get()));
        auto it = inlined_.find(key);
        if (it == inlined_.end()) {
          std::vector<ValuePtr> args;
          for (const TExprPtr& a : e.args) args.push_back(lazy(a, env));
          it = inlined_.emplace(key, inline_call(*e.callee, args, e.loc)).first;
          keep_.push_back(env);
        }
        return value_elem(it->second, std::move(path), shift);
      }
      break;
    default: break;
  }
  return pick(eval(e, env, shift), path);
}

ValuePtr KernelBuilder::inline_call(const TypedDefinition& callee, const std::vector<ValuePtr>& args,
                                    const SourceLocation& loc) {
  if (callee.kind == DefinitionKind::Program)
    unsupported(loc, "calling program '" + callee.name + "' from an operator");
  if (args.size() != callee.params.size()) throw Error("lowering: argument count mismatch");
  EnvPtr env;
  for (std::size_t i = 0; i < args.size(); ++i) env = bind_name(env, callee.params[i].name, args[i]);
  Flow f = exec(callee.body, 0, env);
  if (!f.ret || f.when)
    throw FrontendError(callee.loc, "operator '" + callee.name + "' does not return on every path");
  return f.ret;
}

namespace {

ValuePtr select(ValuePtr c, ValuePtr a, ValuePtr b) {
  auto v = std::make_shared<Val>();
  v->kind = Val::Kind::Select;
  v->elems = {std::move(c), std::move(a), std::move(b)};
  return v;
}

ValuePtr bool_value(bool b) {
  auto e = std::make_shared<TExpr>();
  e->kind = TExprKind::Literal;
  e->type = Type::scalar(ScalarKind::Bool);
  e->literal.kind = ConstantValue::Kind::Bool;
  e->literal.bool_value = b;
  return lazy(e, nullptr);
}

/// Names bound in `env` since `base`, innermost first.
std::vector<std::string> bound_since(const EnvPtr& env, const EnvPtr& base) {
  std::vector<std::string> out;
  for (const Env* e = env.get(); e && e != base.get(); e = e->parent.get()) out.push_back(e->name);
  return out;
}

}  // namespace

KernelBuilder::Flow KernelBuilder::exec_if(const TStmt& s, const EnvPtr& env) {
  ValuePtr cond = lazy(s.value, env);
  Flow a = exec(s.body, 0, env), b = exec(s.orelse, 0, env);
  auto falls = [](const Flow& f) { return !f.ret || f.when; };
  auto when = [&](const Flow& f) { return !f.ret ? bool_value(false) : f.when ? f.when : bool_value(true); };
  Flow out;
  // Where both branches fall through, each variable either branch assigned becomes
  // `(a if cond else b)`: the statements after the `if` are lowered once.
  if (falls(a) && falls(b)) {
    out.env = env;
    std::vector<std::string> names = bound_since(a.env, env), nb = bound_since(b.env, env);
    names.insert(names.end(), nb.begin(), nb.end());
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (const std::string& n : names) {
      ValuePtr va = lookup(a.env, n), vb = lookup(b.env, n);
      if (va && vb && va != vb)
        out.env = bind_name(out.env, n, select(cond, va, vb));
      else
        out.env = bind_name(out.env, n, va ? va : vb);
    }
  } else {
    out.env = falls(a) ? a.env : b.env;
  }
  if (a.ret && b.ret)
    out.ret = select(cond, a.ret, b.ret);
  else
    out.ret = a.ret ? a.ret : b.ret;
  if (out.ret && (falls(a) || falls(b))) out.when = select(cond, when(a), when(b));
  return out;
}

KernelBuilder::Flow KernelBuilder::exec(const std::vector<TStmt>& stmts, std::size_t i, EnvPtr env) {
  for (; i < stmts.size(); ++i) {
    const TStmt& s = stmts[i];
    switch (s.kind) {
      case TStmt::Kind::Return: return Flow{env, lazy(s.value, env), nullptr};
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
        Flow f = exec_if(s, env);
        if (!f.ret) {
          env = f.env;
          break;
        }
        if (!f.when) return f;
        // Returns on some paths: the rest runs (once) where it does not.
        Flow rest = exec(stmts, i + 1, f.env);
        if (!rest.ret) {
          f.env = rest.env;
          return f;
        }
        Flow out{rest.env, select(f.when, f.ret, rest.ret), nullptr};
        if (rest.when) out.when = select(f.when, bool_value(true), rest.when);
        return out;
      }
    }
  }
  return Flow{env, nullptr, nullptr};
}

}  // namespace weir::frontend::lowering
