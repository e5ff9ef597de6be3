// Python's semantics of module-level values that the evaluator and plain function calls share:
// truth, equality, exact comparison of ints with floats, and the members of the standard and
// NumPy modules weir evaluates (math, sys, numpy's scalar types and constants).
#include "module_loader_internal.h"
#include "python_math.h"

namespace weir::frontend {

bool truthy(const Value& v, const SourceLocation& where) {
  switch (v.kind) {
    case ValueKind::Constant:
      if (v.constant.kind == ConstantValue::Kind::String) return !v.constant.str_value.empty();
      if (v.constant.kind == ConstantValue::Kind::Int) return v.constant.int_value != 0;
      return v.constant.as_double() != 0.0;  // NaN is true, as in Python
    case ValueKind::Sequence: return !v.elements.empty();
    case ValueKind::Module:
    case ValueKind::Dimension:
    case ValueKind::Offset:
    case ValueKind::Type:
    case ValueKind::Enum:
    case ValueKind::Definition: return true;
    case ValueKind::Failed: check_usable(v, "value", where); break;
    default: break;
  }
  throw FrontendError(where, "cannot tell whether " + v.describe() + " is true at module level");
}

long double exact(const ConstantValue& c) {
  switch (c.kind) {
    case ConstantValue::Kind::Int: return static_cast<long double>(c.int_value);
    case ConstantValue::Kind::Bool: return c.bool_value ? 1.0L : 0.0L;
    default: return static_cast<long double>(c.float_value);
  }
}

std::optional<bool> values_equal(const Value& a, const Value& b) {
  if (a.kind == ValueKind::Constant && b.kind == ValueKind::Constant) {
    bool sa = a.constant.kind == ConstantValue::Kind::String,
         sb = b.constant.kind == ConstantValue::Kind::String;
    if (sa || sb) return sa && sb && a.constant.str_value == b.constant.str_value;
    return exact(a.constant) == exact(b.constant);
  }
  if (a.kind == ValueKind::Failed || b.kind == ValueKind::Failed || a.kind == ValueKind::External ||
      b.kind == ValueKind::External)
    return std::nullopt;
  if (a.kind != b.kind) return false;  // different kinds of object: Python's == is False
  switch (a.kind) {
    case ValueKind::Dimension: return a.dim.name == b.dim.name && a.dim.kind == b.dim.kind;
    case ValueKind::Offset: return a.offset.name == b.offset.name;
    case ValueKind::Module: return a.module == b.module;
    case ValueKind::Enum: return a.enum_class == b.enum_class;
    case ValueKind::Builtin: return a.name == b.name;
    case ValueKind::Type: return a.type == b.type;
    case ValueKind::Definition: return a.definition == b.definition;
    case ValueKind::Sequence: {
      if (a.elements.size() != b.elements.size()) return false;
      for (std::size_t i = 0; i < a.elements.size(); ++i) {
        std::optional<bool> e = values_equal(a.elements[i], b.elements[i]);
        if (!e || !*e) return e;
      }
      return true;
    }
    default: return std::nullopt;
  }
}

std::optional<Value> stdlib_member(const std::string& module, const std::string& attr) {
  if (module == "math") {
    if (auto c = pymath::constant(attr)) return make_constant(*c);
    return Value::builtin("math." + attr);
  }
  if (module == "sys" || module.rfind("sys.", 0) == 0) {
    std::string dotted = module == "sys" ? attr : module.substr(4) + "." + attr;
    if (auto c = pymath::sys_constant(dotted)) return make_constant(*c);
    if (dotted == "float_info") return Value::builtin("sys.float_info");
    return Value::failed(
        "weir evaluates sys.float_info's numbers and sys.maxsize at module level, not 'sys." + dotted + "'",
        {});
  }
  return std::nullopt;
}

std::optional<Value> numpy_member(const std::string& module, const std::string& attr) {
  std::string root = module.substr(0, module.find('.'));
  if (root != "numpy" && root != "np") return std::nullopt;
  // int and float are Python's types, not NumPy's scalar types (np.int was removed).
  if (scalar_kind_from_name(attr) && attr != "int" && attr != "float") return Value::builtin(attr);
  if (attr == "pi" || attr == "e" || attr == "inf" || attr == "nan")
    return make_constant(*pymath::constant(attr));
  return std::nullopt;
}

}  // namespace weir::frontend
