// ModuleLoader: imports on a search path, module-level evaluation, lazy errors.
#include "weir/frontend/module_loader.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "weir/frontend/parser.h"
#include "weir/frontend/unparse.h"

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
    case ValueKind::External: return "'" + name + "' (from a module not on the search path)";
    case ValueKind::Dimension: return "dimension '" + dim.name + "'";
    case ValueKind::Offset: return "field offset '" + offset.name + "'";
    case ValueKind::Type: return "type " + to_string(type);
    case ValueKind::GenericAlias: return "generic type alias";
    case ValueKind::TypeVar: return "TypeVar '" + name + "'";
    case ValueKind::Constant: return "constant " + constant.str();
    case ValueKind::Enum: return "enum '" + enum_class->name + "'";
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
        const ExprList& elts = e.kind == ExprKind::Tuple ? static_cast<const Tuple&>(e).elts
                                                         : static_cast<const List&>(e).elts;
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
      case ConstantKind::Int: v.kind = ConstantValue::Kind::Int; v.int_value = c.int_value; break;
      case ConstantKind::Float:
        v.kind = ConstantValue::Kind::Float;
        v.float_value = c.float_value;
        break;
      case ConstantKind::Bool: v.kind = ConstantValue::Kind::Bool; v.bool_value = c.bool_value; break;
      case ConstantKind::String: v.kind = ConstantValue::Kind::String; v.str_value = c.str_value; break;
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
        throw FrontendError(a.attr_loc, "module '" + base.module->name + "' has no name '" +
                                            a.attr + "'");
      }
      case ValueKind::Builtin:
        if (base.name == "DimensionKind" || base.name == "GridType")
          return Value::builtin(base.name + "." + a.attr);
        return Value::builtin(a.attr);
      case ValueKind::External: {
        std::string root = base.name.substr(0, base.name.find('.'));
        if ((root == "numpy" || root == "np") && scalar_kind_from_name(a.attr) &&
            a.attr != "int" && a.attr != "float")
          return Value::builtin(a.attr);
        Value v = base;
        v.name += "." + a.attr;
        return v;
      }
      case ValueKind::Enum: {
        auto it = base.enum_class->members.find(a.attr);
        if (it == base.enum_class->members.end())
          throw FrontendError(a.attr_loc, "enum '" + base.enum_class->name + "' has no member '" +
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
        throw FrontendError(s.index->loc, "generic alias takes " +
                                              std::to_string(base.alias->params.size()) +
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
            throw FrontendError(kind->loc, "unknown dimension kind '" + unparse(*kind) +
                                               "' (HORIZONTAL, VERTICAL or LOCAL)");
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
          throw FrontendError(src->loc, "the source of a FieldOffset must be a dimension, got " +
                                            s.describe());
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
    bool ints = l.constant.kind != ConstantValue::Kind::Float &&
                r.constant.kind != ConstantValue::Kind::Float;
    auto as_int = [](const ConstantValue& c) {
      return c.kind == ConstantValue::Kind::Bool ? std::int64_t(c.bool_value) : c.int_value;
    };
    double x = l.constant.as_double(), y = r.constant.as_double();
    switch (b.op) {
      case BinaryOperator::Add: return ints ? make_int(as_int(l.constant) + as_int(r.constant)) : make_float(x + y);
      case BinaryOperator::Sub: return ints ? make_int(as_int(l.constant) - as_int(r.constant)) : make_float(x - y);
      case BinaryOperator::Mult: return ints ? make_int(as_int(l.constant) * as_int(r.constant)) : make_float(x * y);
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

Value evaluate(const Expr& expr, const LoadedModule& module,
               const std::map<std::string, Value>* overlay) {
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
  if (v.kind == ValueKind::External)
    throw FrontendError(where, "'" + v.name + "' comes from a module that is not on the search path");
  throw FrontendError(where, "expected a type, got " + v.describe());
}

// ---------------------------------------------------------------------------------------------
// Loader

struct ModuleLoader::Impl {
  std::vector<std::string>* search_path = nullptr;
  std::map<std::string, std::unique_ptr<LoadedModule>> cache;  // by canonical path
  std::vector<LoadedModule*> loading;                          // the import stack

  static std::string canonical(const fs::path& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(p, ec);
    return ec ? p.lexically_normal().string() : c.string();
  }

  // The file (or namespace package directory) of `part` inside `dir`; empty when not there.
  static std::string find_in(const fs::path& dir, const std::string& part, bool& package) {
    std::error_code ec;
    if (fs::is_regular_file(dir / part / "__init__.py", ec)) {
      package = true;
      return (dir / part / "__init__.py").string();
    }
    if (fs::is_regular_file(dir / (part + ".py"), ec)) {
      package = false;
      return (dir / (part + ".py")).string();
    }
    if (fs::is_directory(dir / part, ec)) {
      package = true;
      return (dir / part).string();
    }
    return {};
  }

  LoadedModule* get(const std::string& file, bool package, const std::string& name,
                    const SourceLocation& import_loc) {
    std::string key = canonical(file);
    auto it = cache.find(key);
    if (it != cache.end()) {
      for (LoadedModule* m : loading) {
        if (m == it->second.get()) {
          std::string chain;
          bool on = false;
          for (LoadedModule* x : loading) {
            if (x == m) on = true;
            if (on) chain += x->name + " -> ";
          }
          throw FrontendError(import_loc, "import cycle: " + chain + m->name);
        }
      }
      return it->second.get();
    }
    auto mod = std::make_unique<LoadedModule>();
    mod->path = file;
    mod->name = name;
    mod->is_package = package;
    LoadedModule* m = mod.get();
    cache.emplace(key, std::move(mod));
    if (fs::is_directory(file)) {
      m->ast.file = SourceFile(file, "");
      return m;
    }
    m->ast = parse_module_file(file);
    loading.push_back(m);
    try {
      execute(*m, m->ast.body, m->names);
    } catch (...) {
      loading.pop_back();
      throw;
    }
    loading.pop_back();
    return m;
  }

  // Resolves an absolute dotted module; binds every package on the way as a submodule of its
  // parent. Returns the chain of modules (a, a.b, a.b.c) or empty when not found.
  std::vector<LoadedModule*> resolve_absolute(const std::string& dotted, const SourceLocation& loc) {
    std::vector<std::string> parts;
    std::stringstream ss(dotted);
    for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
    for (const std::string& dir : *search_path) {
      bool package = false;
      std::string file = find_in(dir, parts[0], package);
      if (file.empty()) continue;
      std::vector<LoadedModule*> chain;
      chain.push_back(get(file, package, parts[0], loc));
      std::string name = parts[0];
      for (std::size_t i = 1; i < parts.size(); ++i) {
        LoadedModule* parent = chain.back();
        if (!parent->is_package) return {};
        std::string found = find_in(parent->package_dir(), parts[i], package);
        if (found.empty()) return {};
        name += "." + parts[i];
        chain.push_back(get(found, package, name, loc));
        parent->submodules[parts[i]] = chain.back();
      }
      return chain;
    }
    return {};
  }

  // A module relative to `from`: `level` dots then `dotted` (may be empty: the package).
  LoadedModule* resolve_relative(const LoadedModule& from, int level, const std::string& dotted,
                                 const SourceLocation& loc) {
    // A file given as a bare relative name ("a.py") has an empty parent: resolve from the
    // working directory, never from the empty path.
    fs::path dir = from.package_dir();
    if (dir.empty()) dir = fs::current_path();
    std::string base_name = from.is_package ? from.name : from.name.substr(0, from.name.rfind('.') == std::string::npos ? 0 : from.name.rfind('.'));
    for (int i = 1; i < level; ++i) {
      dir = dir.parent_path();
      auto pos = base_name.rfind('.');
      base_name = pos == std::string::npos ? "" : base_name.substr(0, pos);
    }
    std::error_code ec;
    LoadedModule* current;
    bool package = true;
    if (fs::is_regular_file(dir / "__init__.py", ec))
      current = get((dir / "__init__.py").string(), true, base_name.empty() ? dir.filename().string() : base_name, loc);
    else
      current = get(dir.string(), true, base_name.empty() ? dir.filename().string() : base_name, loc);
    if (dotted.empty()) return current;
    std::stringstream ss(dotted);
    for (std::string p; std::getline(ss, p, '.');) {
      std::string found = find_in(current->package_dir(), p, package);
      if (found.empty()) return nullptr;
      LoadedModule* next = get(found, package, current->name + "." + p, loc);
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

  void import_from(LoadedModule& m, const ImportFrom& imp, std::map<std::string, Value>& ns) {
    std::string display = std::string(static_cast<std::size_t>(imp.level), '.') + imp.module;
    if (imp.level == 0 && is_builtin_module(imp.module)) {
      for (const Alias& a : imp.names)
        if (a.name != "*") ns[a.asname.empty() ? a.name : a.asname] = Value::builtin(a.name);
      return;
    }
    LoadedModule* src = nullptr;
    if (imp.level == 0) {
      auto chain = resolve_absolute(imp.module, imp.loc);
      if (!chain.empty()) src = chain.back();
    } else {
      src = resolve_relative(m, imp.level, imp.module, imp.loc);
    }
    for (const Alias& a : imp.names) {
      std::string bind = a.asname.empty() ? a.name : a.asname;
      if (!src) {
        if (imp.level == 0) {
          Value v;
          v.kind = ValueKind::External;
          v.name = imp.module + "." + a.name;
          if (a.name != "*") ns[bind] = v;
        } else if (a.name != "*") {
          ns[bind] = Value::failed("module '" + display + "' was not found", a.loc);
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
        bool package = false;
        std::string found = find_in(src->package_dir(), a.name, package);
        if (!found.empty()) {
          LoadedModule* sub = get(found, package, src->name + "." + a.name, a.loc);
          src->submodules[a.name] = sub;
          ns[bind] = module_value(sub);
          continue;
        }
      }
      ns[bind] = Value::failed("cannot import name '" + a.name + "' from '" + display + "'", a.loc);
    }
  }

  void import(const Import& imp, std::map<std::string, Value>& ns) {
    for (const Alias& a : imp.names) {
      std::string root = a.name.substr(0, a.name.find('.'));
      if (is_builtin_module(a.name)) {
        ns[a.asname.empty() ? root : a.asname] = Value::builtin(a.asname.empty() ? root : a.name);
        continue;
      }
      auto chain = resolve_absolute(a.name, a.loc);
      if (chain.empty()) {
        Value v;
        v.kind = ValueKind::External;
        v.name = a.asname.empty() ? root : a.name;
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
      } else if (v.kind == ValueKind::Sequence && v.elements.size() == elts->size() &&
                 !isa<Starred>(&e)) {
        bind_target(e, v.elements[i], ns);
      } else {
        bind_target(isa<Starred>(&e) ? *static_cast<const Starred&>(e).value : e,
                    Value::failed("cannot unpack " + v.describe(), target.loc), ns);
      }
    }
  }

  static void define_function(LoadedModule& m, const FunctionDef& f, std::map<std::string, Value>& ns) {
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
      if (dv.name == "field_operator") kind = DefinitionKind::FieldOperator;
      else if (dv.name == "scan_operator") kind = DefinitionKind::ScanOperator;
      else if (dv.name == "program") kind = DefinitionKind::Program;
      else continue;
      def = std::make_shared<Definition>();
      def->kind = kind;
      def->name = f.name;
      def->def = &f;
      def->module = &m;
      if (kind == DefinitionKind::ScanOperator) {
        try {
          if (!call) throw FrontendError(d->loc, "scan_operator needs axis=, forward= and init=");
          const Expr* axis = nullptr;
          for (const Keyword& k : call->keywords) {
            if (k.arg == "axis") axis = k.value.get();
            else if (k.arg == "init") def->init = k.value.get();
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
            throw FrontendError(axis->loc, "the axis of a scan_operator must be a dimension, got " +
                                               av.describe());
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
      ns[f.name] = Value::failed("'" + f.name +
                                     "' is a plain Python function (not a field_operator, "
                                     "scan_operator or program)",
                                 f.loc);
    }
  }

  void define_class(LoadedModule& m, const ClassDef& c, std::map<std::string, Value>& ns) {
    bool is_enum = false;
    for (const ExprPtr& b : c.bases) {
      try {
        Value bv = evaluate(*b, m);
        if (bv.kind == ValueKind::Builtin &&
            (bv.name == "Enum" || bv.name == "IntEnum" || bv.name == "StrEnum"))
          is_enum = true;
      } catch (const FrontendError&) {
      }
    }
    if (!is_enum) {
      ns[c.name] = Value::failed("class '" + c.name + "' is not a simple Enum", c.loc);
      return;
    }
    Value v;
    v.kind = ValueKind::Enum;
    v.enum_class = std::make_shared<EnumClass>();
    v.enum_class->name = c.name;
    for (const StmtPtr& s : c.body) {
      auto* a = dyn_cast<Assign>(s.get());
      if (!a || a->targets.size() != 1 || !isa<Name>(a->targets[0].get())) continue;
      const std::string& name = static_cast<const Name&>(*a->targets[0]).id;
      Value mv;
      try {
        mv = evaluate(*a->value, m);
        if (mv.kind != ValueKind::Constant)
          mv = Value::failed("enum member '" + name + "' is not a literal", a->value->loc);
      } catch (const FrontendError& e) {
        mv = Value::failed(e.message(), e.location());
      }
      v.enum_class->members[name] = mv;
    }
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
  std::string name = package ? fs::path(path).parent_path().filename().string()
                             : fs::path(path).stem().string();
  return *impl_->get(path, package, name, SourceLocation{});
}

const LoadedModule& ModuleLoader::load_source(const SourceFile& file) {
  auto mod = std::make_unique<LoadedModule>();
  fs::path p = file.path();
  mod->path = p.is_absolute() ? p.string() : (fs::current_path() / p).string();
  mod->name = p.stem().string();
  mod->ast = parse_module(file);
  LoadedModule* m = mod.get();
  impl_->cache.emplace("<source>:" + std::to_string(impl_->cache.size()) + ":" + file.path(),
                       std::move(mod));
  impl_->loading.push_back(m);
  try {
    impl_->execute(*m, m->ast.body, m->names);
  } catch (...) {
    impl_->loading.pop_back();
    throw;
  }
  impl_->loading.pop_back();
  return *m;
}

std::vector<const LoadedModule*> ModuleLoader::modules() const {
  std::vector<const LoadedModule*> out;
  for (const auto& [k, m] : impl_->cache) out.push_back(m.get());
  return out;
}

}  // namespace weir::frontend
