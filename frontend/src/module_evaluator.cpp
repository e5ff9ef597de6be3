// Evaluation of module-level expressions (annotations, dimensions, offsets, constants).
#include "literal_value.h"
#include "module_loader_internal.h"
#include "python_math.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "weir/pycode/int_ops.h"
#include "weir/pycode/unparse.h"

namespace weir::frontend {

namespace {

const std::set<std::string>& python_builtins() {
  static const std::set<std::string> s = {"float", "int", "bool",  "tuple", "abs",
                                          "min",   "max", "round", "pow"};
  return s;
}

class Evaluator {
 public:
  Evaluator(const LoadedModule& m, const std::map<std::string, Value>* overlay)
      : module_(m), overlay_(overlay) {}

  Value eval(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Name: return eval_name(static_cast<const Name&>(e));
      case ExprKind::Constant: return eval_constant(static_cast<const Constant&>(e));
      case ExprKind::Attribute: return eval_attribute(static_cast<const Attribute&>(e));
      case ExprKind::Subscript: return eval_subscript(static_cast<const Subscript&>(e));
      case ExprKind::Call: return eval_call(static_cast<const Call&>(e));
      case ExprKind::Tuple:
      case ExprKind::List: {
        const ExprList& elts =
            e.kind == ExprKind::Tuple ? static_cast<const Tuple&>(e).elts : static_cast<const List&>(e).elts;
        Value v;
        v.kind = ValueKind::Sequence;
        for (const ExprPtr& x : elts) v.elements.push_back(eval(*x));
        return v;
      }
      case ExprKind::UnaryOp: return eval_unary(static_cast<const UnaryOp&>(e));
      case ExprKind::BinOp: return eval_binop(static_cast<const BinOp&>(e));
      case ExprKind::Compare: return eval_compare(static_cast<const Compare&>(e));
      case ExprKind::BoolOp: {
        // Python's `and` / `or` give the operand that decides, not a bool.
        auto& b = static_cast<const BoolOp&>(e);
        Value v;
        for (const ExprPtr& x : b.values) {
          v = eval(*x);
          if (truthy(v, x->loc) == (b.op == BoolOperator::Or)) break;
        }
        return v;
      }
      case ExprKind::IfExp: {
        auto& i = static_cast<const IfExp&>(e);
        return eval(truthy(eval(*i.test), i.test->loc) ? *i.body : *i.orelse);
      }
      default: break;
    }
    throw FrontendError(e.loc, "cannot evaluate '" + unparse(e) + "' at module level");
  }

 private:
  Value eval_name(const Name& n) {
    if (overlay_) {
      auto it = overlay_->find(n.id);
      if (it != overlay_->end()) return it->second;
    }
    auto it = module_.names.find(n.id);
    if (it != module_.names.end()) {
      check_usable(it->second, n.id, n.loc);
      return it->second;
    }
    if (python_builtins().count(n.id)) return Value::builtin(n.id);
    if (n.id == "True" || n.id == "False") {
      ConstantValue c;
      c.kind = ConstantValue::Kind::Bool;
      c.bool_value = n.id == "True";
      return make_constant(c);
    }
    throw FrontendError(n.loc, "unknown name '" + n.id + "'" + import_hint(n.id));
  }

  // " (from gt4py.next import where)" for a gt4py.next builtin not imported, and gt4py's name
  // for Python's max and min; "" for other names.
  static std::string import_hint(const std::string& id) {
    static const std::set<std::string> gt4py = {
        "where",   "concat_where", "neighbor_sum", "max_over", "min_over", "broadcast", "astype",
        "sqrt",    "exp",          "log",          "sin",      "cos",      "tan",       "arcsin",
        "arccos",  "arctan",       "sinh",         "cosh",     "tanh",     "arcsinh",   "arccosh",
        "arctanh", "cbrt",         "floor",        "ceil",     "trunc",    "abs",       "minimum",
        "maximum", "isfinite",     "isinf",        "isnan",    "fmod",     "power",     "Field",
        "Dims",    "Dimension",    "FieldOffset",  "float64",  "float32",  "int32",     "int64"};
    if (gt4py.count(id)) return " (a gt4py.next builtin: from gt4py.next import " + id + ")";
    if (id == "max" || id == "min")
      return std::string(" (element-wise on fields: gt4py.next's ") + (id == "max" ? "maximum" : "minimum") +
             ", from gt4py.next import " + (id == "max" ? "maximum" : "minimum") + ")";
    return "";
  }

  Value eval_constant(const Constant& c) {
    std::optional<ConstantValue> v = literal_value(c);
    if (!v) throw FrontendError(c.loc, "unsupported constant '" + c.text + "'");
    return make_constant(*v);
  }

  Value eval_attribute(const Attribute& a) {
    Value base = eval(*a.value);
    switch (base.kind) {
      case ValueKind::Module: {
        auto it = base.module->names.find(a.attr);
        if (it != base.module->names.end()) {
          check_usable(it->second, a.attr, a.attr_loc);
          return it->second;
        }
        auto sit = base.module->submodules.find(a.attr);
        if (sit != base.module->submodules.end()) {
          Value v;
          v.kind = ValueKind::Module;
          v.module = sit->second;
          return v;
        }
        throw FrontendError(a.attr_loc, "module '" + base.module->name + "' has no name '" + a.attr + "'");
      }
      case ValueKind::Builtin:
        if (auto v = stdlib_member(base.name, a.attr)) {
          if (v->kind == ValueKind::Failed) throw FrontendError(a.attr_loc, v->error);
          return *v;
        }
        if (base.name == "DimensionKind" || base.name == "GridType")
          return Value::builtin(base.name + "." + a.attr);
        return Value::builtin(a.attr);
      case ValueKind::External: {
        if (auto v = numpy_member(base.name, a.attr)) return *v;
        Value v = base;
        v.name += "." + a.attr;
        return v;
      }
      case ValueKind::Enum: {
        auto it = base.enum_class->members.find(a.attr);
        if (it == base.enum_class->members.end())
          throw FrontendError(a.attr_loc, std::string(base.enum_class->is_enum ? "enum '" : "class '") +
                                              base.enum_class->name + "' has no " +
                                              (base.enum_class->is_enum ? "member '" : "attribute '") +
                                              a.attr + "'");
        check_usable(it->second, base.enum_class->name + "." + a.attr, a.attr_loc);
        return it->second;
      }
      case ValueKind::Constant:
        if (a.attr == "value") return base;
        break;
      default: break;
    }
    throw FrontendError(a.attr_loc, base.describe() + " has no attribute '" + a.attr + "'");
  }

  std::vector<Dimension> dims_of(const Value& v, const Expr& where) {
    std::vector<Dimension> dims;
    if (v.kind == ValueKind::Dimension) return {v.dim};
    if (v.kind != ValueKind::Sequence)
      throw FrontendError(where.loc, "expected a list of dimensions, got " + v.describe());
    const Expr* elts_owner = &where;
    const ExprList* elts = nullptr;
    if (auto* t = dyn_cast<Tuple>(elts_owner)) elts = &t->elts;
    if (auto* l = dyn_cast<List>(elts_owner)) elts = &l->elts;
    for (std::size_t i = 0; i < v.elements.size(); ++i) {
      const Value& e = v.elements[i];
      const SourceLocation& loc = elts && i < elts->size() ? (*elts)[i]->loc : where.loc;
      if (e.kind != ValueKind::Dimension)
        throw FrontendError(loc, "expected a dimension, got " + e.describe());
      dims.push_back(e.dim);
    }
    return dims;
  }

  static const Expr* index_element(const Expr& index, std::size_t i) {
    if (auto* t = dyn_cast<Tuple>(&index)) return i < t->elts.size() ? t->elts[i].get() : nullptr;
    return i == 0 ? &index : nullptr;
  }

  static std::size_t index_count(const Expr& index) {
    if (auto* t = dyn_cast<Tuple>(&index)) return t->elts.size();
    return 1;
  }

  bool contains_typevar(const Value& v) {
    if (v.kind == ValueKind::TypeVar || v.kind == ValueKind::GenericAlias) return true;
    if (v.kind == ValueKind::Sequence)
      for (const Value& e : v.elements)
        if (contains_typevar(e)) return true;
    return false;
  }

  void collect_params(const Value& v, std::vector<std::string>& out) {
    auto add = [&](const std::string& n) {
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    };
    if (v.kind == ValueKind::TypeVar) add(v.name);
    if (v.kind == ValueKind::GenericAlias)
      for (const std::string& p : v.alias->params) add(p);
    if (v.kind == ValueKind::Sequence)
      for (const Value& e : v.elements) collect_params(e, out);
  }

  Value generic(const Subscript& s, const std::vector<Value>& parts) {
    Value v;
    v.kind = ValueKind::GenericAlias;
    v.alias = std::make_shared<GenericAlias>();
    v.alias->expr = &s;
    v.alias->module = &module_;
    for (const Value& p : parts) collect_params(p, v.alias->params);
    return v;
  }

  Value eval_subscript(const Subscript& s) {
    Value base = eval(*s.value);
    std::size_t n = index_count(*s.index);
    std::vector<Value> parts;
    for (std::size_t i = 0; i < n; ++i) parts.push_back(eval(*index_element(*s.index, i)));
    if (base.kind == ValueKind::GenericAlias) {
      if (parts.size() != base.alias->params.size())
        throw FrontendError(s.index->loc, "generic alias takes " + std::to_string(base.alias->params.size()) +
                                              " type argument(s), got " + std::to_string(parts.size()));
      std::map<std::string, Value> overlay;
      if (overlay_) overlay = *overlay_;
      for (std::size_t i = 0; i < parts.size(); ++i) overlay[base.alias->params[i]] = parts[i];
      return evaluate(*base.alias->expr, *base.alias->module, &overlay);
    }
    if (base.kind == ValueKind::Builtin) {
      if (base.name == "Field") {
        if (n != 2) throw FrontendError(s.index->loc, "Field takes [dimensions, dtype]");
        if (contains_typevar(parts[0]) || contains_typevar(parts[1])) return generic(s, parts);
        std::vector<Dimension> dims = dims_of(parts[0], *index_element(*s.index, 0));
        if (std::string clash = clashing_dimension_names(dims); !clash.empty())
          throw FrontendError(index_element(*s.index, 0)->loc,
                              "the dimensions of a field need distinct names: " + clash);
        Type dt = value_to_type(parts[1], index_element(*s.index, 1)->loc);
        if (!dt.is_scalar())
          throw FrontendError(index_element(*s.index, 1)->loc,
                              "the dtype of a Field must be a scalar type, got " + to_string(dt));
        Type t;
        t.kind = Type::Kind::Field;
        t.dtype = dt.dtype;
        t.dims = canonical_dims(dims);
        if (dims.empty()) {
          t = Type::scalar(dt.dtype);
          t.zero_dim = true;
        }
        return make_type(t);
      }
      if (base.name == "Dims") {
        Value v;
        v.kind = ValueKind::Sequence;
        for (std::size_t i = 0; i < n; ++i) {
          if (parts[i].kind != ValueKind::Dimension)
            throw FrontendError(index_element(*s.index, i)->loc,
                                "expected a dimension, got " + parts[i].describe());
          v.elements.push_back(parts[i]);
        }
        return v;
      }
      if (base.name == "tuple" || base.name == "Tuple") {
        for (const Value& p : parts)
          if (contains_typevar(p)) return generic(s, parts);
        std::vector<Type> elts;
        for (std::size_t i = 0; i < n; ++i)
          elts.push_back(value_to_type(parts[i], index_element(*s.index, i)->loc));
        return make_type(Type::tuple(std::move(elts)));
      }
      if (base.name == "Final" || base.name == "Annotated") return parts[0];
    }
    throw FrontendError(s.loc, "cannot subscript " + base.describe() + " at module level");
  }

  // The function a call names: as eval, but a plain function is returned to be called (used as
  // a value, it is an error).
  Value callee(const Expr& e) {
    const std::map<std::string, Value>* ns = nullptr;
    std::string key;
    if (auto* n = dyn_cast<Name>(&e)) {
      key = n->id;
      if (overlay_ && overlay_->count(key))
        ns = overlay_;
      else if (module_.names.count(key))
        ns = &module_.names;
    } else if (auto* a = dyn_cast<Attribute>(&e)) {
      Value base = eval(*a->value);
      key = a->attr;
      if (base.kind == ValueKind::Module && base.module->names.count(key)) ns = &base.module->names;
    }
    if (ns) {
      const Value& v = ns->at(key);
      if (v.kind == ValueKind::Failed && v.plain_function) return v;
    }
    return eval(e);
  }

  std::vector<Value> positional(const Call& c) {
    std::vector<Value> args;
    for (const ExprPtr& a : c.args) {
      if (isa<Starred>(a.get()))
        throw FrontendError(a->loc, "cannot evaluate '" + unparse(c) + "' at module level: *arguments");
      args.push_back(eval(*a));
    }
    return args;
  }

  // A numeric constant argument of a math function or numeric builtin.
  static const ConstantValue& number(const Value& v, const Expr& where, const Call& c) {
    if (v.kind != ValueKind::Constant || v.constant.kind == ConstantValue::Kind::String)
      throw FrontendError(where.loc, "cannot evaluate '" + unparse(c) + "' at module level: " + v.describe() +
                                         " is no number");
    return v.constant;
  }

  // `math.NAME(args)` as CPython computes it, or its exception as a located error.
  Value call_math(const std::string& name, const Call& c) {
    if (!c.keywords.empty())
      throw FrontendError(c.keywords[0].loc, "math." + name + " takes no keyword arguments");
    std::vector<Value> args = positional(c);
    std::vector<ConstantValue> numbers;
    for (std::size_t i = 0; i < args.size(); ++i) numbers.push_back(number(args[i], *c.args[i], c));
    std::optional<pymath::Result> r = pymath::call(name, numbers);
    if (!r)
      throw FrontendError(c.loc,
                          "cannot evaluate '" + unparse(c) + "' at module level: weir evaluates math's " +
                              "number functions (exp, log, sqrt, gamma, ...), not 'math." + name + "'");
    if (!r->error.empty()) throw FrontendError(c.loc, "cannot evaluate '" + unparse(c) + "': " + r->error);
    return make_constant(r->value);
  }

  // Python's abs, min, max, round and pow on numbers.
  Value call_numeric_builtin(const std::string& name, const Call& c) {
    if (!c.keywords.empty())
      throw FrontendError(c.keywords[0].loc,
                          "cannot evaluate '" + unparse(c) + "' at module level: keyword arguments");
    std::vector<Value> args = positional(c);
    std::vector<const Expr*> where;
    for (const ExprPtr& a : c.args) where.push_back(a.get());
    if ((name == "min" || name == "max") && args.size() == 1 && args[0].kind == ValueKind::Sequence) {
      Value seq = args[0];
      args = seq.elements;
      where.assign(args.size(), c.args[0].get());
    }
    auto count = [&](std::size_t lo, std::size_t hi) {
      if (args.size() < lo || args.size() > hi)
        throw FrontendError(
            c.loc, "cannot evaluate '" + unparse(c) + "': " + name + " takes " +
                       (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                       " argument(s), got " + std::to_string(args.size()));
    };
    if (name == "pow") {
      count(2, 2);
      return arith(BinaryOperator::Pow, args[0], args[1], c.loc, unparse(c));
    }
    if (name == "min" || name == "max") {
      if (args.empty())
        throw FrontendError(c.loc, "cannot evaluate '" + unparse(c) + "': " + name + " of nothing");
      std::size_t best = 0;
      for (std::size_t i = 0; i < args.size(); ++i) {
        long double x = exact(number(args[i], *where[i], c)), b = exact(number(args[best], *where[best], c));
        if (name == "min" ? x < b : x > b) best = i;  // the first of equals, as Python
      }
      return args[best];
    }
    count(1, name == "round" ? 2 : 1);
    ConstantValue x = number(args[0], *where[0], c);
    if (x.kind == ConstantValue::Kind::Bool) x = pymath::int_value(x.bool_value);
    if (name == "abs") {
      if (x.kind == ConstantValue::Kind::Float) return make_float(std::fabs(x.float_value));
      IntOpResult r = x.int_value < 0 ? int_neg(x.int_value) : IntOpResult{x.int_value, IntOpFault::None};
      if (!r.ok()) throw FrontendError(c.loc, "cannot evaluate '" + unparse(c) + "': " + describe(r.fault));
      return make_int(r.value);
    }
    // round
    if (args.size() == 2)
      throw FrontendError(c.args[1]->loc,
                          "cannot evaluate '" + unparse(c) +
                              "' at module level: weir evaluates round(x), not round(x, ndigits)");
    if (x.kind == ConstantValue::Kind::Int) return make_int(x.int_value);
    return make_int(float_to_int(std::nearbyint(x.float_value), c.loc));  // half to even, as Python
  }

  // gt4py.next.common's `flip_staggered(D)` (`as_non_staggered(D)`): the staggered partner of a
  // dimension, named `_Staggered` + its name (the name without that prefix), of the same kind.
  Value staggered_partner(const std::string& fn, const Call& c) {
    if (c.args.size() != 1 || !c.keywords.empty())
      throw FrontendError(c.loc, fn + " takes one dimension, e.g. " + fn + "(IDim)");
    Value d = eval(*c.args[0]);
    if (d.kind != ValueKind::Dimension)
      throw FrontendError(c.args[0]->loc, fn + " takes a dimension, got " + d.describe());
    if (fn == "flip_staggered" || is_staggered(d.dim)) d.dim = flip_staggered(d.dim);
    return d;
  }

  // gt4py.eve.utils' `FrozenNamespace(PI=3.14, E=...)`: a namespace of the keywords' values,
  // read as `ns.PI`, as a class's attributes.
  Value frozen_namespace(const std::string& fn, const Call& c) {
    if (!c.args.empty())
      throw FrontendError(c.args[0]->loc, "cannot evaluate '" + unparse(c) + "' at module level: " + fn +
                                              " takes its names as keywords, " + fn + "(PI=3.14)");
    auto ns = std::make_shared<EnumClass>();
    ns->name = fn;
    ns->is_enum = false;
    for (const Keyword& k : c.keywords) {
      if (k.arg.empty())
        throw FrontendError(k.loc, "cannot evaluate '" + unparse(c) + "' at module level: **arguments");
      ns->members[k.arg] = eval(*k.value);
    }
    Value v;
    v.kind = ValueKind::Enum;
    v.enum_class = std::move(ns);
    return v;
  }

  Value eval_call(const Call& c) {
    Value f = callee(*c.func);
    if (f.kind == ValueKind::Failed && f.plain_function) {
      std::vector<std::pair<std::string, Value>> keywords;
      for (const Keyword& k : c.keywords) {
        if (k.arg.empty())
          throw FrontendError(k.loc, "cannot evaluate '" + unparse(c) + "' at module level: **arguments");
        keywords.emplace_back(k.arg, eval(*k.value));
      }
      return call_plain_function(f, positional(c), keywords, c);
    }
    if (f.kind == ValueKind::Builtin && f.name.rfind("math.", 0) == 0) return call_math(f.name.substr(5), c);
    if (f.kind == ValueKind::Builtin &&
        (f.name == "abs" || f.name == "min" || f.name == "max" || f.name == "round" || f.name == "pow"))
      return call_numeric_builtin(f.name, c);
    auto keyword = [&](const std::string& name) -> const Expr* {
      for (const Keyword& k : c.keywords)
        if (k.arg == name) return k.value.get();
      return nullptr;
    };
    if (f.kind == ValueKind::Builtin) {
      if (f.name == "Dimension") {
        if (c.args.empty()) throw FrontendError(c.loc, "Dimension needs a name");
        Value name = eval(*c.args[0]);
        if (name.kind != ValueKind::Constant || name.constant.kind != ConstantValue::Kind::String)
          throw FrontendError(c.args[0]->loc, "the name of a Dimension must be a string");
        Value v;
        v.kind = ValueKind::Dimension;
        v.dim.name = name.constant.str_value;
        const Expr* kind = c.args.size() > 1 ? c.args[1].get() : keyword("kind");
        if (kind) {
          Value k = eval(*kind);
          if (k.kind == ValueKind::Builtin && k.name == "DimensionKind.HORIZONTAL")
            v.dim.kind = DimensionKind::Horizontal;
          else if (k.kind == ValueKind::Builtin && k.name == "DimensionKind.VERTICAL")
            v.dim.kind = DimensionKind::Vertical;
          else if (k.kind == ValueKind::Builtin && k.name == "DimensionKind.LOCAL")
            v.dim.kind = DimensionKind::Local;
          else
            throw FrontendError(
                kind->loc, "unknown dimension kind '" + unparse(*kind) + "' (HORIZONTAL, VERTICAL or LOCAL)");
        }
        return v;
      }
      if (f.name == "FieldOffset") {
        if (c.args.empty()) throw FrontendError(c.loc, "FieldOffset needs a name");
        Value name = eval(*c.args[0]);
        if (name.kind != ValueKind::Constant || name.constant.kind != ConstantValue::Kind::String)
          throw FrontendError(c.args[0]->loc, "the name of a FieldOffset must be a string");
        const Expr* src = c.args.size() > 1 ? c.args[1].get() : keyword("source");
        const Expr* tgt = c.args.size() > 2 ? c.args[2].get() : keyword("target");
        if (!src || !tgt) throw FrontendError(c.loc, "FieldOffset needs source= and target=");
        Value s = eval(*src);
        if (s.kind != ValueKind::Dimension)
          throw FrontendError(src->loc,
                              "the source of a FieldOffset must be a dimension, got " + s.describe());
        Value t = eval(*tgt);
        Value v;
        v.kind = ValueKind::Offset;
        v.offset.name = name.constant.str_value;
        v.offset.source = s.dim;
        v.offset.targets = dims_of(t, *tgt);
        if (v.offset.targets.empty() || v.offset.targets.size() > 2)
          throw FrontendError(tgt->loc, "the target of a FieldOffset must be one or two dimensions");
        if (v.offset.targets.size() == 2 && v.offset.targets[1].kind != DimensionKind::Local)
          throw FrontendError(tgt->loc, "the second target of a FieldOffset must be a LOCAL dimension");
        return v;
      }
      if (f.name == "flip_staggered" || f.name == "as_non_staggered") return staggered_partner(f.name, c);
      if (f.name == "FrozenNamespace") return frozen_namespace(f.name, c);
      if (f.name == "TypeVar") {
        if (c.args.empty()) throw FrontendError(c.loc, "TypeVar needs a name");
        Value name = eval(*c.args[0]);
        Value v;
        v.kind = ValueKind::TypeVar;
        v.name = name.constant.str_value;
        return v;
      }
      if (auto k = scalar_kind_from_name(f.name); k && c.args.size() == 1) {
        Value a = eval(*c.args[0]);
        if (a.kind == ValueKind::Constant) {
          ConstantValue r = a.constant;
          if (r.kind == ConstantValue::Kind::String) {
            try {
              r.float_value = std::stod(r.str_value);
            } catch (const std::exception&) {
              throw FrontendError(c.args[0]->loc, "not a number: " + r.str());
            }
            r.kind = ConstantValue::Kind::Float;
          }
          if (is_floating(*k)) return make_float(r.as_double());
          if (*k == ScalarKind::Bool) {
            ConstantValue b;
            b.kind = ConstantValue::Kind::Bool;
            b.bool_value = r.as_double() != 0.0;
            return make_constant(b);
          }
          if (r.kind == ConstantValue::Kind::Int) return make_int(r.int_value);
          return make_int(float_to_int(r.as_double(), c.args[0]->loc));
        }
      }
    }
    if (f.kind == ValueKind::Type && f.type.is_scalar() && c.args.size() == 1) {
      Value a = eval(*c.args[0]);
      if (a.kind == ValueKind::Constant) {
        double d = a.constant.kind == ConstantValue::Kind::String ? std::stod(a.constant.str_value)
                                                                  : a.constant.as_double();
        if (is_floating(f.type.dtype)) return make_float(d);
        if (a.constant.kind == ConstantValue::Kind::Int) return make_int(a.constant.int_value);
        return make_int(float_to_int(d, c.args[0]->loc));
      }
    }
    throw FrontendError(c.loc, "cannot evaluate the call '" + unparse(c) + "' at module level");
  }

  Value eval_unary(const UnaryOp& u) {
    Value v = eval(*u.operand);
    if (v.kind == ValueKind::Constant && v.constant.kind != ConstantValue::Kind::String) {
      ConstantValue c = v.constant;
      if (c.kind == ConstantValue::Kind::Bool && u.op != UnaryOperator::Not) {
        c.kind = ConstantValue::Kind::Int;
        c.int_value = c.bool_value;
      }
      switch (u.op) {
        case UnaryOperator::UAdd: return make_constant(c);
        case UnaryOperator::USub:
          if (c.kind == ConstantValue::Kind::Int) {
            IntOpResult r = int_neg(c.int_value);
            if (!r.ok())
              throw FrontendError(u.loc, "cannot evaluate '" + unparse(u) + "': " + describe(r.fault));
            return make_int(r.value);
          }
          return make_float(-c.float_value);
        case UnaryOperator::Invert:
          if (c.kind == ConstantValue::Kind::Int) return make_int(~c.int_value);
          break;
        case UnaryOperator::Not: {
          ConstantValue b;
          b.kind = ConstantValue::Kind::Bool;
          b.bool_value = c.as_double() == 0.0;
          return make_constant(b);
        }
      }
    }
    throw FrontendError(u.loc, "cannot evaluate '" + unparse(u) + "' at module level");
  }

  /// `a op b` on Python ints, exactly: a result outside int64 is refused at the operator
  /// (Python's value would be a larger int; weir's constants are 64 bits).
  Value int_binop(BinaryOperator op, std::int64_t x, std::int64_t y, const SourceLocation& loc,
                  const std::string& text) {
    IntOpResult r;
    switch (op) {
      case BinaryOperator::Add: r = int_add(x, y); break;
      case BinaryOperator::Sub: r = int_sub(x, y); break;
      case BinaryOperator::Mult: r = int_mul(x, y); break;
      case BinaryOperator::FloorDiv: r = int_floordiv(x, y); break;
      case BinaryOperator::Mod: r = int_mod(x, y); break;
      case BinaryOperator::Pow: r = int_pow(x, y); break;
      case BinaryOperator::LShift: r = int_lshift(x, y); break;
      case BinaryOperator::RShift: r = int_rshift(x, y); break;
      case BinaryOperator::BitAnd: return make_int(x & y);
      case BinaryOperator::BitOr: return make_int(x | y);
      case BinaryOperator::BitXor: return make_int(x ^ y);
      default: throw FrontendError(loc, "cannot evaluate '" + text + "' at module level");
    }
    if (!r.ok()) throw FrontendError(loc, "cannot evaluate '" + text + "': " + describe(r.fault));
    return make_int(r.value);
  }

  /// A float converted to an int as Python's int() does (toward zero), refused where Python's
  /// int would not be an int64 (or raises: NaN, infinity).
  static std::int64_t float_to_int(double d, const SourceLocation& loc) {
    if (!(d > -9223372036854775809.0 && d < 9223372036854775808.0))
      throw FrontendError(
          loc, "cannot convert " + std::to_string(d) + " to an integer: " + describe(IntOpFault::Overflow));
    return static_cast<std::int64_t>(d);
  }

  Value eval_binop(const BinOp& b) {
    return arith(b.op, eval(*b.left), eval(*b.right), b.op_loc, unparse(b));
  }

  /// `l op r` on Python numbers (`text` is the expression, for messages): ints exactly (or
  /// refused outside int64), floats as CPython's float type computes them.
  Value arith(BinaryOperator op, const Value& l, const Value& r, const SourceLocation& loc,
              const std::string& text) {
    auto numeric = [](const Value& v) {
      return v.kind == ValueKind::Constant && v.constant.kind != ConstantValue::Kind::String;
    };
    if (!numeric(l) || !numeric(r))
      throw FrontendError(loc, "cannot evaluate '" + text + "' at module level");
    bool ints =
        l.constant.kind != ConstantValue::Kind::Float && r.constant.kind != ConstantValue::Kind::Float;
    auto as_int = [](const ConstantValue& c) {
      return c.kind == ConstantValue::Kind::Bool ? std::int64_t(c.bool_value) : c.int_value;
    };
    if (ints && op != BinaryOperator::Div && !(op == BinaryOperator::Pow && as_int(r.constant) < 0))
      return int_binop(op, as_int(l.constant), as_int(r.constant), loc, text);
    if (ints) {
      // int / int and int ** -n are floats: exact ints as doubles first, as CPython does up to 2**53.
      constexpr std::int64_t k53 = std::int64_t(1) << 53;
      for (std::int64_t v : {as_int(l.constant), as_int(r.constant)})
        if (v > k53 || v < -k53)
          throw FrontendError(
              loc, "cannot evaluate '" + text +
                       "' at module level: an int beyond 2**53 in a float operation (weir does not "
                       "round it as Python does)");
      if (op == BinaryOperator::Div && as_int(r.constant) == 0)
        throw FrontendError(loc, "cannot evaluate '" + text + "': ZeroDivisionError: division by zero");
    }
    double x = l.constant.as_double(), y = r.constant.as_double();
    pymath::Result res;
    switch (op) {
      case BinaryOperator::Add: return make_float(x + y);
      case BinaryOperator::Sub: return make_float(x - y);
      case BinaryOperator::Mult: return make_float(x * y);
      case BinaryOperator::Div: res = pymath::float_div(x, y); break;
      case BinaryOperator::FloorDiv: res = pymath::float_floordiv(x, y); break;
      case BinaryOperator::Mod: res = pymath::float_mod(x, y); break;
      case BinaryOperator::Pow: res = pymath::float_pow(x, y); break;
      default: throw FrontendError(loc, "cannot evaluate '" + text + "' at module level");
    }
    if (!res.error.empty()) throw FrontendError(loc, "cannot evaluate '" + text + "': " + res.error);
    return make_constant(res.value);
  }

  Value eval_compare(const Compare& c) {
    Value left = eval(*c.left);
    for (std::size_t i = 0; i < c.ops.size(); ++i) {
      Value right = eval(*c.comparators[i]);
      if (!compare(c.ops[i], left, right, c.op_locs[i], c)) return make_constant(pymath_bool(false));
      left = std::move(right);
    }
    return make_constant(pymath_bool(true));
  }

  static ConstantValue pymath_bool(bool b) {
    ConstantValue v;
    v.kind = ConstantValue::Kind::Bool;
    v.bool_value = b;
    return v;
  }

  static bool compare(CompareOperator op, const Value& l, const Value& r, const SourceLocation& loc,
                      const Compare& c) {
    auto refuse = [&]() -> bool {
      throw FrontendError(loc, "cannot evaluate '" + unparse(c) + "' at module level: " + l.describe() + " " +
                                   std::string(to_string(op)) + " " + r.describe());
    };
    switch (op) {
      case CompareOperator::Eq:
      case CompareOperator::NotEq: {
        std::optional<bool> eq = values_equal(l, r);
        if (!eq) return refuse();
        return *eq == (op == CompareOperator::Eq);
      }
      case CompareOperator::Is:
      case CompareOperator::IsNot: {
        // Identity of what Python keeps one object of: dimensions, classes, modules, True/False.
        bool same_object = l.kind == r.kind && l.kind != ValueKind::Sequence &&
                           (l.kind != ValueKind::Constant || l.constant.kind == ConstantValue::Kind::Bool);
        if (!same_object && l.kind == r.kind) return refuse();
        std::optional<bool> eq = same_object ? values_equal(l, r) : std::optional<bool>(false);
        if (!eq) return refuse();
        return *eq == (op == CompareOperator::Is);
      }
      case CompareOperator::In:
      case CompareOperator::NotIn: {
        if (r.kind != ValueKind::Sequence) return refuse();
        bool found = false;
        for (const Value& e : r.elements) {
          std::optional<bool> eq = values_equal(l, e);
          if (!eq) return refuse();
          found = found || *eq;
        }
        return found == (op == CompareOperator::In);
      }
      default: break;
    }
    bool numbers = l.kind == ValueKind::Constant && r.kind == ValueKind::Constant &&
                   l.constant.kind != ConstantValue::Kind::String &&
                   r.constant.kind != ConstantValue::Kind::String;
    bool strings = l.kind == ValueKind::Constant && r.kind == ValueKind::Constant &&
                   l.constant.kind == ConstantValue::Kind::String &&
                   r.constant.kind == ConstantValue::Kind::String;
    if (!numbers && !strings) return refuse();
    int order = 0;
    if (strings) {
      order = l.constant.str_value.compare(r.constant.str_value);
    } else {
      long double x = exact(l.constant), y = exact(r.constant);
      if (std::isnan(x) || std::isnan(y)) return false;  // every ordering with NaN is false
      order = x < y ? -1 : x > y ? 1 : 0;
    }
    switch (op) {
      case CompareOperator::Lt: return order < 0;
      case CompareOperator::LtE: return order <= 0;
      case CompareOperator::Gt: return order > 0;
      default: return order >= 0;
    }
  }

  const LoadedModule& module_;
  const std::map<std::string, Value>* overlay_;
};

}  // namespace

Value evaluate(const Expr& expr, const LoadedModule& module, const std::map<std::string, Value>* overlay) {
  return Evaluator(module, overlay).eval(expr);
}

Type value_to_type(const Value& v, const SourceLocation& where) {
  if (v.kind == ValueKind::Type) return v.type;
  if (v.kind == ValueKind::Builtin) {
    if (auto k = scalar_kind_from_name(v.name)) return Type::scalar(*k);
  }
  if (v.kind == ValueKind::Constant && v.constant.kind == ConstantValue::Kind::String) {
    if (auto k = scalar_kind_from_name(v.constant.str_value)) return Type::scalar(*k);
    throw FrontendError(where, "unknown dtype " + v.constant.str());
  }
  if (v.kind == ValueKind::GenericAlias)
    throw FrontendError(where, "generic type alias used without type arguments");
  if (v.kind == ValueKind::External) throw FrontendError(where, external_message(v));
  throw FrontendError(where, "expected a type, got " + v.describe());
}

}  // namespace weir::frontend
