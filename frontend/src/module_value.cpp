// Values of module-level names: constants, types, modules, definitions, lazy errors.
#include "literal_value.h"
#include "module_loader_internal.h"

#include <set>

#include "weir/pycode/unparse.h"

namespace weir::frontend {

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
  // `np.sqrt(f)` in a field operator: gt4py.next has the field operation of that name. (Its
  // builtins that NumPy has too, by the same name.)
  static const std::set<std::string> gt4py_too = {
      "sqrt",    "exp",     "log",     "sin",      "cos",     "tan",   "arcsin", "arccos", "arctan", "sinh",
      "cosh",    "tanh",    "arcsinh", "arccosh",  "arctanh", "cbrt",  "floor",  "ceil",   "trunc",  "abs",
      "minimum", "maximum", "where",   "isfinite", "isinf",   "isnan", "fmod",   "power",  "astype"};
  for (const char* np : {"numpy.", "np."})
    if (v.name.rfind(np, 0) == 0 && gt4py_too.count(v.name.substr(std::string(np).size())))
      return "'" + v.name + "' is a NumPy function, which field operators cannot call: use gt4py.next's '" +
             v.name.substr(std::string(np).size()) + "' (from gt4py.next import " +
             v.name.substr(std::string(np).size()) + ")";
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

std::optional<ConstantValue> literal_value(const Constant& c) {
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
    default: return std::nullopt;
  }
  return v;
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

}  // namespace weir::frontend
