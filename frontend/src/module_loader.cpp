// ModuleLoader: imports on a search path, module-level evaluation, lazy errors.
#include "weir/frontend/module_loader.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include "weir/pycode/parser.h"
#include "weir/pycode/unparse.h"

namespace fs = std::filesystem;

namespace weir::frontend {

// ---------------------------------------------------------------------------------------------
// Values

double ConstantValue::as_double() const {
  switch (kind) {
    case Kind::Int: return static_cast<double>(int_value);
    case Kind::Float: return float_value;
    case Kind::Bool: return bool_value ? 1.0 : 0.0;
    case Kind::String: return 0.0;
  }
  return 0.0;
}

std::string ConstantValue::str() const {
  switch (kind) {
    case Kind::Int: return std::to_string(int_value);
    case Kind::Float: {
      std::ostringstream s;
      s.precision(17);
      s << float_value;
      std::string t = s.str();
      if (t.find_first_of(".eEn") == std::string::npos) t += ".0";
      return t;
    }
    case Kind::Bool: return bool_value ? "True" : "False";
    case Kind::String: return python_repr(str_value);
  }
  return "?";
}

Value Value::builtin(std::string name) {
  Value v;
  v.kind = ValueKind::Builtin;
  v.name = std::move(name);
  return v;
}

Value Value::failed(std::string error, SourceLocation where) {
  Value v;
  v.kind = ValueKind::Failed;
  v.error = std::move(error);
  v.defined_at = std::move(where);
  return v;
}

std::string Value::describe() const {
  switch (kind) {
    case ValueKind::Module: return "module '" + (module ? module->name : name) + "'";
    case ValueKind::Builtin: return "builtin '" + name + "'";
    case ValueKind::External:
      return "'" + name + "' (from a module not on the search path" + (error.empty() ? "" : ": " + error) +
             ")";
    case ValueKind::Dimension: return "dimension '" + dim.name + "'";
    case ValueKind::Offset: return "field offset '" + offset.name + "'";
    case ValueKind::Type: return "type " + to_string(type);
    case ValueKind::GenericAlias: return "generic type alias";
    case ValueKind::TypeVar: return "TypeVar '" + name + "'";
    case ValueKind::Constant: return "constant " + constant.str();
    case ValueKind::Enum: return (enum_class->is_enum ? "enum '" : "class '") + enum_class->name + "'";
    case ValueKind::Definition:
      return std::string(to_string(definition->kind)) + " '" + definition->name + "'";
    case ValueKind::Sequence: return "sequence";
    case ValueKind::Failed: return "failed value";
  }
  return "?";
}

std::string_view to_string(DefinitionKind kind) {
  switch (kind) {
    case DefinitionKind::FieldOperator: return "field_operator";
    case DefinitionKind::ScanOperator: return "scan_operator";
    case DefinitionKind::Program: return "program";
  }
  return "?";
}

std::string LoadedModule::package_dir() const {
  if (is_package) return fs::is_directory(path) ? path : fs::path(path).parent_path().string();
  return fs::path(path).parent_path().string();
}

std::string external_message(const Value& v) {
  std::string msg = "'" + v.name + "' comes from a module that is not on the search path";
  if (!v.error.empty()) msg += " (" + v.error + ")";
  return msg;
}

void check_usable(const Value& value, const std::string& name, const SourceLocation& where) {
  if (value.kind != ValueKind::Failed) return;
  std::string msg = "'" + name + "' cannot be used: " + value.error;
  if (value.defined_at.known()) msg += " (in its definition at " + value.defined_at.str() + ")";
  throw FrontendError(where, msg);
}

// ---------------------------------------------------------------------------------------------
// Evaluation

namespace {

bool is_builtin_module(const std::string& dotted) {
  std::string root = dotted.substr(0, dotted.find('.'));
  return root == "gt4py" || root == "typing" || root == "typing_extensions" || root == "enum" ||
         root == "__future__" || root == "builtins";
}

Value make_type(Type t) {
  Value v;
  v.kind = ValueKind::Type;
  v.type = std::move(t);
  return v;
}

Value make_constant(ConstantValue c) {
  Value v;
  v.kind = ValueKind::Constant;
  v.constant = std::move(c);
  return v;
}

Value make_int(std::int64_t i) {
  ConstantValue c;
  c.kind = ConstantValue::Kind::Int;
  c.int_value = i;
  return make_constant(c);
}

Value make_float(double d) {
  ConstantValue c;
  c.kind = ConstantValue::Kind::Float;
  c.float_value = d;
  return make_constant(c);
}

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
    throw FrontendError(n.loc, "unknown name '" + n.id + "'");
  }

  Value eval_constant(const Constant& c) {
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
      case ConstantKind::String:
        v.kind = ConstantValue::Kind::String;
        v.str_value = c.str_value;
        break;
      default: throw FrontendError(c.loc, "unsupported constant '" + c.text + "'");
    }
    return make_constant(v);
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
          return make_int(static_cast<std::int64_t>(r.as_double()));
        }
      }
    }
    if (f.kind == ValueKind::Type && f.type.is_scalar() && c.args.size() == 1) {
      Value a = eval(*c.args[0]);
      if (a.kind == ValueKind::Constant) {
        double d = a.constant.kind == ConstantValue::Kind::String ? std::stod(a.constant.str_value)
                                                                  : a.constant.as_double();
        return is_floating(f.type.dtype) ? make_float(d) : make_int(static_cast<std::int64_t>(d));
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
          if (c.kind == ConstantValue::Kind::Int) return make_int(-c.int_value);
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
    switch (b.op) {
      case BinaryOperator::Add:
        return ints ? make_int(as_int(l.constant) + as_int(r.constant)) : make_float(x + y);
      case BinaryOperator::Sub:
        return ints ? make_int(as_int(l.constant) - as_int(r.constant)) : make_float(x - y);
      case BinaryOperator::Mult:
        return ints ? make_int(as_int(l.constant) * as_int(r.constant)) : make_float(x * y);
      case BinaryOperator::Div:
        if (y == 0.0) throw FrontendError(b.op_loc, "division by zero");
        return make_float(x / y);
      case BinaryOperator::FloorDiv:
      case BinaryOperator::Mod: {
        if (y == 0.0) throw FrontendError(b.op_loc, "division by zero");
        double q = std::floor(x / y);
        if (b.op == BinaryOperator::FloorDiv)
          return ints ? make_int(static_cast<std::int64_t>(q)) : make_float(q);
        return ints ? make_int(static_cast<std::int64_t>(x - q * y)) : make_float(x - q * y);
      }
      case BinaryOperator::BitAnd:
      case BinaryOperator::BitOr:
      case BinaryOperator::BitXor:
      case BinaryOperator::LShift:
      case BinaryOperator::RShift: {
        if (!ints) break;
        std::int64_t p = as_int(l.constant), q = as_int(r.constant);
        if ((b.op == BinaryOperator::LShift || b.op == BinaryOperator::RShift) && (q < 0 || q > 62))
          throw FrontendError(b.op_loc, "shift count out of range");
        switch (b.op) {
          case BinaryOperator::BitAnd: return make_int(p & q);
          case BinaryOperator::BitOr: return make_int(p | q);
          case BinaryOperator::BitXor: return make_int(p ^ q);
          case BinaryOperator::LShift: return make_int(p << q);
          default: return make_int(p >> q);
        }
      }
      case BinaryOperator::Pow:
        if (ints && as_int(r.constant) >= 0)
          return make_int(static_cast<std::int64_t>(std::llround(std::pow(x, y))));
        return make_float(std::pow(x, y));
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

// ---------------------------------------------------------------------------------------------
// Loader

struct ModuleLoader::Impl {
  std::vector<std::string>* search_path = nullptr;
  std::map<std::string, std::unique_ptr<LoadedModule>> cache;  // by canonical path
  std::map<std::string, LoadedModule*> by_name;                // Python's sys.modules
  std::vector<LoadedModule*> loading;                          // the import stack
  // Plain functions (and methods) whose bodies may hold definitions, processed once the
  // module defining them is loaded.
  struct PendingFunction {
    LoadedModule* outer;  ///< the namespace the function is defined in
    const FunctionDef* f;
    std::string qualname;  ///< "test_x", "test_x.helper", "TestCase.test_y"
  };
  std::vector<PendingFunction> pending_functions;

  static std::string canonical(const fs::path& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(p, ec);
    return ec ? p.lexically_normal().string() : c.string();
  }

  /// Where `part` is found in `dirs`, as Python's path-based finder sees it.
  struct Spec {
    std::string file;  ///< the module file, `__init__.py`, or first portion
    bool package = false;
    std::vector<std::string> portions;  ///< a package's directories
    bool namespace_package = false;
  };

  // Per directory in order: `part/__init__.py` (a regular package) or `part.py` ends the
  // search; a directory `part` without `__init__.py` is a namespace portion, used only when
  // no directory has a regular package or module.
  static std::optional<Spec> find_spec(const std::vector<std::string>& dirs, const std::string& part) {
    std::error_code ec;
    Spec ns;
    for (const std::string& d : dirs) {
      fs::path dir = d.empty() ? fs::path(".") : fs::path(d);
      if (fs::is_regular_file(dir / part / "__init__.py", ec))
        return Spec{(dir / part / "__init__.py").string(), true, {(dir / part).string()}, false};
      if (fs::is_regular_file(dir / (part + ".py"), ec))
        return Spec{(dir / (part + ".py")).string(), false, {}, false};
      if (fs::is_directory(dir / part, ec)) ns.portions.push_back((dir / part).string());
    }
    if (ns.portions.empty()) return std::nullopt;
    ns.file = ns.portions[0];
    ns.package = ns.namespace_package = true;
    return ns;
  }

  static std::string join(const std::vector<std::string>& dirs) {
    std::string s;
    for (const std::string& d : dirs) s += (s.empty() ? "" : ", ") + (d.empty() ? std::string(".") : d);
    return s.empty() ? "no directories" : s;
  }

  /// The module of `spec` named `name` (loaded and executed on first use; a module still
  /// being loaded is returned partially initialised, as Python does in an import cycle).
  /// `by_name`: register the module under `name` (false for modules found by directory,
  /// outside every import root, whose names are only for messages).
  LoadedModule* get(const Spec& spec, const std::string& name, bool register_name = true) {
    std::string key = spec.namespace_package ? "<namespace>:" + name : canonical(spec.file);
    auto it = cache.find(key);
    if (it != cache.end()) {
      if (register_name) by_name.emplace(name, it->second.get());
      return it->second.get();
    }
    auto mod = std::make_unique<LoadedModule>();
    mod->path = spec.file;
    mod->name = name;
    mod->is_package = spec.package;
    mod->portions = spec.portions;
    LoadedModule* m = mod.get();
    cache.emplace(key, std::move(mod));
    if (register_name) by_name.emplace(name, m);
    if (spec.namespace_package) {
      m->ast.file = SourceFile(spec.file, "");
      return m;
    }
    m->ast = parse_module_file(spec.file);
    run(*m);
    return m;
  }

  // Executes a module's body, then the bodies of the plain functions it defines (for the
  // definitions nested in them).
  void run(LoadedModule& m) {
    std::size_t first_pending = pending_functions.size();
    // On an error (a syntax error in an imported file) this module's functions are dropped,
    // never attributed to another module later.
    struct Drop {
      std::vector<PendingFunction>& v;
      std::size_t n;
      ~Drop() {
        while (v.size() > n) v.pop_back();
      }
    } drop{pending_functions, first_pending};
    loading.push_back(&m);
    try {
      execute(m, m.ast.body, m.names);
    } catch (...) {
      loading.pop_back();
      throw;
    }
    loading.pop_back();
    for (std::size_t i = first_pending; i < pending_functions.size(); ++i) {
      auto [outer, f, qualname] = pending_functions[i];
      auto scope = std::make_shared<LoadedModule>();
      scope->path = outer->path;
      scope->name = outer->name;
      scope->is_package = outer->is_package;
      scope->portions = outer->portions;
      scope->ast.file = outer->ast.file;
      scope->function = qualname;
      scope->names = outer->names;  // globals as they are once the module has run
      scope->names.erase(f->name);
      execute(*scope, f->body, scope->names);
      for (const auto& d : scope->definitions) m.nested_definitions.push_back(d);
      // Kept by the module: definitions point to it, and so do the entries for the functions
      // nested in this one, which this loop processes next.
      m.scopes.push_back(scope);
    }
  }

  /// The chain of modules of `dotted` (a, a.b, a.b.c), importing each; empty when a part is
  /// not found, with `missing` saying which and where it was searched.
  std::vector<LoadedModule*> import_name(const std::string& dotted, std::string* missing) {
    std::vector<LoadedModule*> chain;
    std::string name;
    std::stringstream ss(dotted);
    for (std::string part; std::getline(ss, part, '.');) {
      LoadedModule* parent = chain.empty() ? nullptr : chain.back();
      std::string full = name.empty() ? part : name + "." + part;
      LoadedModule* m = nullptr;
      if (auto it = by_name.find(full); it != by_name.end()) {
        m = it->second;
      } else {
        if (parent && !parent->is_package) {
          if (missing) *missing = "no module '" + full + "': '" + name + "' is a module, not a package";
          return {};
        }
        const std::vector<std::string>& dirs = parent ? parent->portions : *search_path;
        auto spec = find_spec(dirs, part);
        if (!spec) {
          if (missing) *missing = "no module '" + full + "' in " + join(dirs);
          return {};
        }
        m = get(*spec, full);
      }
      if (parent) parent->submodules[part] = m;
      chain.push_back(m);
      name = full;
    }
    return chain;
  }

  /// The dotted name of the package `m` is in (itself for a package); empty when it has none.
  static std::string package_name(const LoadedModule& m) {
    if (m.is_package) return m.name;
    auto pos = m.name.rfind('.');
    return pos == std::string::npos ? std::string() : m.name.substr(0, pos);
  }

  // A module relative to `from`: `level` dots then `dotted` (may be empty: the package).
  // By name when `from` knows its package (as Python resolves `__package__`), else by
  // directory (a file loaded outside every import root).
  LoadedModule* resolve_relative(const LoadedModule& from, int level, const std::string& dotted,
                                 std::string* missing) {
    std::string base = package_name(from);
    bool by_package = !base.empty() && by_name.count(base);
    for (int i = 1; i < level && by_package; ++i) {
      auto pos = base.rfind('.');
      if (pos == std::string::npos)
        by_package = false;
      else
        base = base.substr(0, pos);
    }
    if (by_package) {
      auto chain = import_name(dotted.empty() ? base : base + "." + dotted, missing);
      return chain.empty() ? nullptr : chain.back();
    }
    // A file given as a bare relative name ("a.py") has an empty parent: resolve from the
    // working directory, never from the empty path.
    fs::path dir = from.package_dir();
    if (dir.empty()) dir = fs::current_path();
    std::string base_name = package_name(from);
    for (int i = 1; i < level; ++i) {
      dir = dir.parent_path();
      auto pos = base_name.rfind('.');
      base_name = pos == std::string::npos ? "" : base_name.substr(0, pos);
    }
    if (base_name.empty()) base_name = dir.filename().string();
    std::error_code ec;
    Spec pkg = fs::is_regular_file(dir / "__init__.py", ec)
                   ? Spec{(dir / "__init__.py").string(), true, {dir.string()}, false}
                   : Spec{dir.string(), true, {dir.string()}, false};
    LoadedModule* current = get(pkg, base_name, false);
    std::stringstream ss(dotted);
    for (std::string p; std::getline(ss, p, '.');) {
      auto spec = current->is_package
                      ? find_spec(current->portions.empty() ? std::vector<std::string>{current->package_dir()}
                                                            : current->portions,
                                  p)
                      : std::nullopt;
      if (!spec) {
        if (missing) *missing = "no module '" + current->name + "." + p + "' in " + current->package_dir();
        return nullptr;
      }
      LoadedModule* next = get(*spec, current->name + "." + p, false);
      current->submodules[p] = next;
      current = next;
    }
    return current;
  }

  static Value module_value(const LoadedModule* m) {
    Value v;
    v.kind = ValueKind::Module;
    v.module = m;
    return v;
  }

  bool is_loading(const LoadedModule* m) const {
    return std::find(loading.begin(), loading.end(), m) != loading.end();
  }

  void import_from(LoadedModule& m, const ImportFrom& imp, std::map<std::string, Value>& ns) {
    std::string display = std::string(static_cast<std::size_t>(imp.level), '.') + imp.module;
    if (imp.level == 0 && is_builtin_module(imp.module)) {
      for (const Alias& a : imp.names)
        if (a.name != "*") ns[a.asname.empty() ? a.name : a.asname] = Value::builtin(a.name);
      return;
    }
    LoadedModule* src = nullptr;
    std::string missing;
    if (imp.level == 0) {
      auto chain = import_name(imp.module, &missing);
      if (!chain.empty()) src = chain.back();
    } else {
      src = resolve_relative(m, imp.level, imp.module, &missing);
    }
    for (const Alias& a : imp.names) {
      std::string bind = a.asname.empty() ? a.name : a.asname;
      if (!src) {
        if (imp.level == 0) {
          Value v;
          v.kind = ValueKind::External;
          v.name = imp.module + "." + a.name;
          v.error = missing;
          if (a.name != "*") ns[bind] = v;
        } else if (a.name != "*") {
          ns[bind] = Value::failed("module '" + display + "' was not found (" + missing + ")", a.loc);
        }
        continue;
      }
      if (a.name == "*") {
        for (const auto& [k, v] : src->names)
          if (!k.empty() && k[0] != '_') ns[k] = v;
        continue;
      }
      auto it = src->names.find(a.name);
      if (it != src->names.end()) {
        ns[bind] = it->second;
        continue;
      }
      if (src->is_package) {
        // `from pkg import sub`: the submodule, searched in every directory of the package.
        LoadedModule* sub = nullptr;
        if (!src->name.empty() && by_name.count(src->name)) {
          auto chain = import_name(src->name + "." + a.name, nullptr);
          if (!chain.empty()) sub = chain.back();
        } else {
          if (auto spec = find_spec({src->package_dir()}, a.name))
            sub = get(*spec, src->name + "." + a.name, false);
        }
        if (sub) {
          src->submodules[a.name] = sub;
          ns[bind] = module_value(sub);
          continue;
        }
      }
      std::string why =
          is_loading(src) ? " (a partially initialized module, most likely due to a circular import)" : "";
      ns[bind] = Value::failed("cannot import name '" + a.name + "' from '" + display + "'" + why, a.loc);
    }
  }

  void import(const Import& imp, std::map<std::string, Value>& ns) {
    for (const Alias& a : imp.names) {
      std::string root = a.name.substr(0, a.name.find('.'));
      if (is_builtin_module(a.name)) {
        ns[a.asname.empty() ? root : a.asname] = Value::builtin(a.asname.empty() ? root : a.name);
        continue;
      }
      std::string missing;
      auto chain = import_name(a.name, &missing);
      if (chain.empty()) {
        Value v;
        v.kind = ValueKind::External;
        v.name = a.asname.empty() ? root : a.name;
        v.error = missing;
        ns[a.asname.empty() ? root : a.asname] = v;
        continue;
      }
      ns[a.asname.empty() ? root : a.asname] = module_value(a.asname.empty() ? chain.front() : chain.back());
    }
  }

  static void bind_target(const Expr& target, const Value& v, std::map<std::string, Value>& ns) {
    if (auto* n = dyn_cast<Name>(&target)) {
      ns[n->id] = v;
      return;
    }
    const ExprList* elts = nullptr;
    if (auto* t = dyn_cast<Tuple>(&target)) elts = &t->elts;
    if (auto* l = dyn_cast<List>(&target)) elts = &l->elts;
    if (!elts) return;  // attribute / subscript targets: not tracked
    for (std::size_t i = 0; i < elts->size(); ++i) {
      const Expr& e = *(*elts)[i];
      if (v.kind == ValueKind::Failed) {
        bind_target(e, v, ns);
      } else if (v.kind == ValueKind::Sequence && v.elements.size() == elts->size() && !isa<Starred>(&e)) {
        bind_target(e, v.elements[i], ns);
      } else {
        bind_target(isa<Starred>(&e) ? *static_cast<const Starred&>(e).value : e,
                    Value::failed("cannot unpack " + v.describe(), target.loc), ns);
      }
    }
  }

  // Whether a plain function's body may hold definitions (a nested function, maybe in an if).
  static bool has_nested_functions(const StmtList& body) {
    for (const StmtPtr& s : body) {
      if (s->kind == StmtKind::FunctionDef) return true;
      if (auto* i = dyn_cast<If>(s.get());
          i && (has_nested_functions(i->body) || has_nested_functions(i->orelse)))
        return true;
    }
    return false;
  }

  void define_function(LoadedModule& m, const FunctionDef& f, std::map<std::string, Value>& ns) {
    std::shared_ptr<Definition> def;
    for (const ExprPtr& d : f.decorators) {
      const Expr* head = d.get();
      const Call* call = dyn_cast<Call>(head);
      if (call) head = call->func.get();
      Value dv;
      try {
        dv = evaluate(*head, m);
      } catch (const FrontendError&) {
        continue;
      }
      if (dv.kind != ValueKind::Builtin) continue;
      DefinitionKind kind;
      if (dv.name == "field_operator")
        kind = DefinitionKind::FieldOperator;
      else if (dv.name == "scan_operator")
        kind = DefinitionKind::ScanOperator;
      else if (dv.name == "program")
        kind = DefinitionKind::Program;
      else
        continue;
      def = std::make_shared<Definition>();
      def->kind = kind;
      def->name = f.name;
      def->def = &f;
      def->module = &m;
      def->scope = m.function;
      if (kind == DefinitionKind::ScanOperator) {
        try {
          if (!call) throw FrontendError(d->loc, "scan_operator needs axis=, forward= and init=");
          const Expr* axis = nullptr;
          for (const Keyword& k : call->keywords) {
            if (k.arg == "axis")
              axis = k.value.get();
            else if (k.arg == "init")
              def->init = k.value.get();
            else if (k.arg == "forward") {
              Value fw = evaluate(*k.value, m);
              if (fw.kind != ValueKind::Constant || fw.constant.kind != ConstantValue::Kind::Bool)
                throw FrontendError(k.value->loc, "forward= must be True or False");
              def->forward = fw.constant.bool_value;
            }
          }
          if (!axis) throw FrontendError(call->loc, "scan_operator needs axis=");
          if (!def->init) throw FrontendError(call->loc, "scan_operator needs init=");
          Value av = evaluate(*axis, m);
          if (av.kind != ValueKind::Dimension)
            throw FrontendError(axis->loc,
                                "the axis of a scan_operator must be a dimension, got " + av.describe());
          def->axis = av.dim;
        } catch (const FrontendError& e) {
          def->error = e.message();
          def->error_loc = e.location();
        }
      }
      break;
    }
    if (def) {
      m.definitions.push_back(def);
      Value v;
      v.kind = ValueKind::Definition;
      v.definition = def;
      ns[f.name] = v;
    } else {
      if (has_nested_functions(f.body))
        pending_functions.push_back({&m, &f, m.function.empty() ? f.name : m.function + "." + f.name});
      Value v = Value::failed("'" + f.name +
                                  "' is a plain Python function (not a field_operator, "
                                  "scan_operator or program)",
                              f.loc);
      v.plain_function = &f;
      v.module = &m;
      ns[f.name] = v;
    }
  }

  // A class body runs in its own namespace that sees the module's (earlier attributes are
  // visible to later ones); methods, properties and nested classes are not members.
  // A NamedTuple subclass or a @dataclass whose body annotates its elements: a named
  // collection type (elements in order); nullopt for any other class.
  std::optional<Value> named_collection(LoadedModule& m, const ClassDef& c,
                                        std::map<std::string, Value>& ns) {
    bool collection = false;
    auto named = [](const Value& v, const std::string& what) {
      const std::string& n = v.name;
      return (v.kind == ValueKind::Builtin || v.kind == ValueKind::External) &&
             (n == what || (n.size() > what.size() &&
                            n.compare(n.size() - what.size() - 1, std::string::npos, "." + what) == 0));
    };
    for (const ExprPtr& b : c.bases) {
      try {
        collection = collection || named(evaluate(*b, m, &ns), "NamedTuple");
      } catch (const FrontendError&) {
      }
    }
    for (const ExprPtr& d : c.decorators) {
      const Expr* head = d.get();
      if (auto* call = dyn_cast<Call>(head)) head = call->func.get();
      try {
        collection = collection || named(evaluate(*head, m, &ns), "dataclass");
      } catch (const FrontendError&) {
      }
    }
    if (!collection) return std::nullopt;
    Type t;
    t.kind = Type::Kind::Tuple;
    t.collection = c.name;
    try {
      for (const StmtPtr& s : c.body) {
        auto* a = dyn_cast<AnnAssign>(s.get());
        auto* n = a ? dyn_cast<Name>(a->target.get()) : nullptr;
        if (!n) continue;
        t.elements.push_back(value_to_type(evaluate(*a->annotation, m, &ns), a->annotation->loc));
        t.names.push_back(n->id);
      }
    } catch (const FrontendError& e) {
      return Value::failed(e.message(), e.location());
    }
    return make_type(std::move(t));
  }

  void define_class(LoadedModule& m, const ClassDef& c, std::map<std::string, Value>& ns) {
    if (auto v = named_collection(m, c, ns)) {
      ns[c.name] = *v;
      return;
    }
    bool is_enum = false;
    for (const ExprPtr& b : c.bases) {
      try {
        Value bv = evaluate(*b, m, &ns);
        if (bv.kind == ValueKind::Builtin &&
            (bv.name == "Enum" || bv.name == "IntEnum" || bv.name == "StrEnum" || bv.name == "Flag" ||
             bv.name == "IntFlag"))
          is_enum = true;
        if (bv.kind == ValueKind::Enum && bv.enum_class->is_enum) is_enum = true;
      } catch (const FrontendError&) {
      }
    }
    Value v;
    v.kind = ValueKind::Enum;
    v.enum_class = std::make_shared<EnumClass>();
    v.enum_class->name = c.name;
    v.enum_class->is_enum = is_enum;
    std::map<std::string, Value> cls;
    std::int64_t next_auto = 1;  // enum.auto(): one more than the last integer member
    auto is_auto = [&](const Expr& e) {
      auto* call = dyn_cast<Call>(&e);
      if (!call || !call->args.empty()) return false;
      try {
        Value f = evaluate(*call->func, m, &ns);
        return f.kind == ValueKind::Builtin && f.name == "auto";
      } catch (const FrontendError&) {
        return false;
      }
    };
    auto member = [&](const std::string& name, const Expr& value) {
      Value mv;
      try {
        if (is_enum && is_auto(value)) {
          mv = make_int(next_auto);
        } else {
          mv = evaluate(value, m, &cls);  // `ns` is `m.names`: the class's names first
        }
        if (is_enum && mv.kind != ValueKind::Constant)
          mv = Value::failed("enum member '" + name + "' is not a literal", value.loc);
      } catch (const FrontendError& e) {
        mv = Value::failed(e.message(), e.location());
      }
      if (mv.kind == ValueKind::Constant && mv.constant.kind == ConstantValue::Kind::Int)
        next_auto = mv.constant.int_value + 1;
      cls[name] = mv;
    };
    for (const StmtPtr& s : c.body) {
      // Methods (of test classes) may define programs too; their globals are the module's.
      if (auto* f = dyn_cast<FunctionDef>(s.get()); f && has_nested_functions(f->body))
        pending_functions.push_back({&m, f, c.name + "." + f->name});
      if (auto* a = dyn_cast<Assign>(s.get())) {
        for (const ExprPtr& t : a->targets)
          if (auto* n = dyn_cast<Name>(t.get())) member(n->id, *a->value);
      } else if (auto* a = dyn_cast<AnnAssign>(s.get()); a && a->value) {
        if (auto* n = dyn_cast<Name>(a->target.get())) member(n->id, *a->value);
      }
    }
    for (auto& [k, x] : cls)
      if (!is_enum || (k.size() < 2 || k.substr(0, 2) != "__")) v.enum_class->members[k] = x;
    ns[c.name] = v;
  }

  void execute(LoadedModule& m, const StmtList& body, std::map<std::string, Value>& ns) {
    for (const StmtPtr& s : body) {
      switch (s->kind) {
        case StmtKind::Import: import(static_cast<const Import&>(*s), ns); break;
        case StmtKind::ImportFrom: import_from(m, static_cast<const ImportFrom&>(*s), ns); break;
        case StmtKind::Assign: {
          auto& a = static_cast<const Assign&>(*s);
          Value v;
          try {
            v = evaluate(*a.value, m);
          } catch (const FrontendError& e) {
            v = Value::failed(e.message(), e.location());
          }
          for (const ExprPtr& t : a.targets) bind_target(*t, v, ns);
          break;
        }
        case StmtKind::AnnAssign: {
          auto& a = static_cast<const AnnAssign&>(*s);
          if (!a.value) break;
          Value v;
          try {
            v = evaluate(*a.value, m);
          } catch (const FrontendError& e) {
            v = Value::failed(e.message(), e.location());
          }
          bind_target(*a.target, v, ns);
          break;
        }
        case StmtKind::AugAssign: {
          auto& a = static_cast<const AugAssign&>(*s);
          auto* n = dyn_cast<Name>(a.target.get());
          if (!n) break;
          Value v;
          try {
            BinOp b(a.target->loc);
            b.op = a.op;
            b.left = clone(a.target.get());
            b.right = clone(a.value.get());
            b.op_loc = a.loc;
            v = evaluate(b, m);
          } catch (const FrontendError& e) {
            v = Value::failed(e.message(), e.location());
          }
          ns[n->id] = v;
          break;
        }
        case StmtKind::FunctionDef: define_function(m, static_cast<const FunctionDef&>(*s), ns); break;
        case StmtKind::If:
          // In a function body both branches may define what a nested definition uses.
          if (!m.function.empty()) {
            execute(m, static_cast<const If&>(*s).body, ns);
            execute(m, static_cast<const If&>(*s).orelse, ns);
          }
          break;
        case StmtKind::ClassDef: define_class(m, static_cast<const ClassDef&>(*s), ns); break;
        default: break;  // skipped statements
      }
    }
  }
};

ModuleLoader::ModuleLoader(LoaderOptions options) : impl_(std::make_unique<Impl>()) {
  search_path_ = options.search_path;
  if (options.use_environment) {
    if (const char* env = std::getenv("WEIR_PATH")) {
      std::stringstream ss(env);
      for (std::string p; std::getline(ss, p, ':');)
        if (!p.empty()) search_path_.push_back(p);
    }
  }
  impl_->search_path = &search_path_;
}

ModuleLoader::~ModuleLoader() = default;

const LoadedModule& ModuleLoader::load_file(const std::string& path) {
  std::string dir = fs::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  if (std::find(search_path_.begin(), search_path_.end(), dir) == search_path_.end())
    search_path_.push_back(dir);
  if (!fs::is_regular_file(path)) throw weir::Error("cannot read '" + path + "'");
  bool package = fs::path(path).filename() == "__init__.py";
  Impl::Spec spec{path, package, {}, false};
  if (package) spec.portions = {dir};
  // Under an import root, inside a package found from it: its dotted name (`python -m`).
  std::string file_dir = Impl::canonical(dir);
  for (const std::string& root : search_path_) {
    fs::path rel = fs::path(file_dir).lexically_relative(Impl::canonical(root.empty() ? "." : root));
    if (rel.empty() || rel == "." || *rel.begin() == "..") continue;
    std::string pkg;
    for (const auto& part : rel) pkg += (pkg.empty() ? "" : ".") + part.string();
    auto chain = impl_->import_name(pkg, nullptr);
    if (chain.empty() || !chain.back()->is_package) continue;
    bool here = false;
    for (const std::string& p : chain.back()->portions) here = here || Impl::canonical(p) == file_dir;
    if (!here) continue;
    return *impl_->get(spec, package ? pkg : pkg + "." + fs::path(path).stem().string());
  }
  std::string name =
      package ? fs::path(path).parent_path().filename().string() : fs::path(path).stem().string();
  return *impl_->get(spec, name, false);
}

const LoadedModule& ModuleLoader::load_source(const SourceFile& file) {
  auto mod = std::make_unique<LoadedModule>();
  fs::path p = file.path();
  mod->path = p.is_absolute() ? p.string() : (fs::current_path() / p).string();
  mod->name = p.stem().string();
  mod->ast = parse_module(file);
  LoadedModule* m = mod.get();
  impl_->cache.emplace("<source>:" + std::to_string(impl_->cache.size()) + ":" + file.path(), std::move(mod));
  impl_->run(*m);
  return *m;
}

std::vector<const LoadedModule*> ModuleLoader::modules() const {
  std::vector<const LoadedModule*> out;
  for (const auto& [k, m] : impl_->cache) out.push_back(m.get());
  return out;
}

}  // namespace weir::frontend
