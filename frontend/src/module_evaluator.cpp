// Evaluation of module-level expressions (annotations, dimensions, offsets, constants).
#include "literal_value.h"
#include "module_loader_internal.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "weir/pycode/int_ops.h"
#include "weir/pycode/unparse.h"

namespace weir::frontend {

namespace {

const std::set<std::string>& python_builtins() {
  static const std::set<std::string> s = {"float", "int", "bool", "tuple", "abs"};
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
        if (base.name == "DimensionKind" || base.name == "GridType")
          return Value::builtin(base.name + "." + a.attr);
        return Value::builtin(a.attr);
      case ValueKind::External: {
        std::string root = base.name.substr(0, base.name.find('.'));
        if ((root == "numpy" || root == "np") && scalar_kind_from_name(a.attr) && a.attr != "int" &&
            a.attr != "float")
          return Value::builtin(a.attr);
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
        if (dims.empty()) t = Type::scalar(dt.dtype);
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

  Value eval_call(const Call& c) {
    Value f = eval(*c.func);
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
  Value int_binop(const BinOp& b, std::int64_t x, std::int64_t y) {
    IntOpResult r;
    switch (b.op) {
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
      default: throw FrontendError(b.op_loc, "cannot evaluate '" + unparse(b) + "' at module level");
    }
    if (!r.ok()) throw FrontendError(b.op_loc, "cannot evaluate '" + unparse(b) + "': " + describe(r.fault));
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
    Value l = eval(*b.left);
    Value r = eval(*b.right);
    auto numeric = [](const Value& v) {
      return v.kind == ValueKind::Constant && v.constant.kind != ConstantValue::Kind::String;
    };
    if (!numeric(l) || !numeric(r))
      throw FrontendError(b.op_loc, "cannot evaluate '" + unparse(b) + "' at module level");
    bool ints =
        l.constant.kind != ConstantValue::Kind::Float && r.constant.kind != ConstantValue::Kind::Float;
    auto as_int = [](const ConstantValue& c) {
      return c.kind == ConstantValue::Kind::Bool ? std::int64_t(c.bool_value) : c.int_value;
    };
    double x = l.constant.as_double(), y = r.constant.as_double();
    if (ints && b.op != BinaryOperator::Div && !(b.op == BinaryOperator::Pow && as_int(r.constant) < 0))
      return int_binop(b, as_int(l.constant), as_int(r.constant));
    switch (b.op) {
      case BinaryOperator::Add: return make_float(x + y);
      case BinaryOperator::Sub: return make_float(x - y);
      case BinaryOperator::Mult: return make_float(x * y);
      case BinaryOperator::Div:
        if (y == 0.0) throw FrontendError(b.op_loc, "division by zero");
        return make_float(x / y);
      case BinaryOperator::FloorDiv:
      case BinaryOperator::Mod: {
        if (y == 0.0) throw FrontendError(b.op_loc, "division by zero");
        double q = std::floor(x / y);
        if (b.op == BinaryOperator::FloorDiv) return make_float(q);
        return make_float(x - q * y);
      }
      case BinaryOperator::Pow: return make_float(std::pow(x, y));
      default: break;
    }
    throw FrontendError(b.op_loc, "cannot evaluate '" + unparse(b) + "' at module level");
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
