// Lowering of field-view builtins to tasklet code: math functions as `math.sqrt(x)`,
// `where(m, a, b)` as `(a if m else b)`, `astype` as a dace cast, concat_where as a condition
// on the map index.
#include <map>

#include "lowering_internal.h"

namespace weir::frontend::lowering {

std::string dace_type_name(ScalarKind k) {
  return k == ScalarKind::Bool ? "bool_" : std::string(to_string(k));
}

namespace {

const std::map<std::string, std::string>& math_names() {
  static const std::map<std::string, std::string> m = {
      {"sqrt", "math.sqrt"},
      {"exp", "math.exp"},
      {"log", "math.log"},
      {"sin", "math.sin"},
      {"cos", "math.cos"},
      {"tan", "math.tan"},
      {"arcsin", "math.asin"},
      {"arccos", "math.acos"},
      {"arctan", "math.atan"},
      {"sinh", "math.sinh"},
      {"cosh", "math.cosh"},
      {"tanh", "math.tanh"},
      {"arcsinh", "math.asinh"},
      {"arccosh", "math.acosh"},
      {"arctanh", "math.atanh"},
      {"gamma", "math.gamma"},
      {"cbrt", "math.cbrt"},
      {"isfinite", "math.isfinite"},
      {"isinf", "math.isinf"},
      {"isnan", "math.isnan"},
      {"abs", "abs"},
      // NumPy's functions, not Python's: math.floor and int() go through an integer (NaN, inf
      // and |x| >= 2**63 have none; -0.0 loses its sign); gt4py's embedded backend computes
      // with NumPy. Bare floor/ceil/trunc are NumPy's for weir's tasklets and C's for DaCe's
      // code generator, which has no `np` (maximum and minimum: numpy_extremum below).
      {"floor", "floor"},
      {"ceil", "ceil"},
      {"trunc", "trunc"},
      {"fmod", "np.fmod"},
  };
  return m;
}

/// NumPy's maximum (minimum) of two atoms as a conditional expression: `a` where it is larger
/// (smaller) or NaN, else `b` (so NaN wins in either place, and of equal values the second,
/// -0.0 and 0.0 included). Python's max/min neither propagate NaN nor commute, and DaCe's C++
/// has no `np.maximum`; both read this alike.
std::string numpy_extremum(bool max, const std::string& a, const std::string& b) {
  return "(" + a + " if (" + a + (max ? " > " : " < ") + b + " or " + a + " != " + a + ") else " + b + ")";
}

/// The neutral element of a reduction over `dtype`, as Python text.
std::string neutral(const std::string& reduction, ScalarKind dtype) {
  if (reduction == "neighbor_sum") {
    ConstantValue zero;
    zero.kind = ConstantValue::Kind::Int;
    zero.int_value = 0;
    return literal_text(zero, dtype);
  }
  bool max = reduction == "max_over";
  if (is_floating(dtype)) {
    // 1e309 is Python's infinity literal; DaCe's cppunparse writes it as the C++ literal 1e309
    // (infinity), where `math.inf` would stay `math.inf` and not compile.
    std::string inf = max ? "(-1e309)" : "1e309";
    return dtype == ScalarKind::Float32 ? "dace.float32(" + inf + ")" : inf;
  }
  if (dtype == ScalarKind::Bool) return max ? "False" : "True";
  static const std::map<ScalarKind, std::pair<std::string, std::string>> limits = {
      {ScalarKind::Int8, {"(-128)", "127"}},
      {ScalarKind::Int16, {"(-32768)", "32767"}},
      {ScalarKind::Int32, {"(-2147483648)", "2147483647"}},
      {ScalarKind::Int64, {"(-9223372036854775807 - 1)", "9223372036854775807"}},
      {ScalarKind::UInt8, {"0", "255"}},
      {ScalarKind::UInt16, {"0", "65535"}},
      {ScalarKind::UInt32, {"0", "4294967295"}},
      {ScalarKind::UInt64, {"0", "18446744073709551615"}},
  };
  const auto& [lo, hi] = limits.at(dtype);
  return "dace." + std::string(to_string(dtype)) + "(" + (max ? lo : hi) + ")";
}

}  // namespace

Code KernelBuilder::reduction(const TExpr& e, const EnvPtr& env, const Shift& shift) {
  // Unrolled over the local dimension (its size is a compile-time constant, see ADR 0008):
  // entry n contributes where the connectivity of the local dimension has a neighbour.
  const Dimension& axis = e.dim;
  LoweringContext& c = ctx(e.loc);
  std::int64_t n = c.local_size(axis, e.loc);
  const FieldOffset* table = c.table_of_local(axis);
  std::string zero = neutral(e.name, e.type.dtype);
  std::vector<Code> terms;
  for (std::int64_t k = 0; k < n; ++k) {
    Shift s = shift;
    s.local[axis.name] = k;
    std::string raw = table ? neighbour(*table, k, shift, e.loc).second : "";
    if (table) s = s.when("(" + raw + " != -1)");  // entry k's value is used where it exists
    Code v = temp(eval(*e.args[0], env, s));
    if (table) {
      v = zip({v}, e.name, [&](const std::vector<std::string>& t) {
        return "(" + t[0] + " if " + raw + " != -1 else " + zero + ")";
      });
    }
    terms.push_back(v);
  }
  if (terms.empty()) return Code::scalar(zero);
  if (terms.size() == 1 && e.name != "neighbor_sum") return terms[0];  // max/min of one value: itself
  if (e.name == "neighbor_sum") {
    return zip(terms, e.name, [&](const std::vector<std::string>& t) {
      std::string out = t[0];
      for (std::size_t k = 1; k < t.size(); ++k) out += " + " + t[k];
      return "(" + out + ")";
    });
  }
  // Each step a temporary: the conditional names its operands twice.
  Code acc = terms[0];
  for (std::size_t k = 1; k < terms.size(); ++k) {
    Code step = zip({temp(std::move(acc)), temp(terms[k])}, e.name, [&](const std::vector<std::string>& t) {
      return numpy_extremum(e.name == "max_over", t[0], t[1]);
    });
    acc = std::move(step);
  }
  return acc;
}

Code KernelBuilder::builtin(const TExpr& e, const EnvPtr& env, const Shift& shift) {
  const std::string& name = e.name;
  if (name == "neighbor_sum" || name == "max_over" || name == "min_over") return reduction(e, env, shift);
  if (name == "where") {
    Code m = eval(*e.args[0], env, shift);
    Code a = eval(*e.args[1], env, shift), b = eval(*e.args[2], env, shift);
    return zip({m, a, b}, "where", [](const std::vector<std::string>& t) {
      return "(" + t[1] + " if " + t[0] + " else " + t[2] + ")";
    });
  }
  if (name == "concat_where") {
    // The condition is a domain condition (or & / | / ~ of them) on the map index. In a region
    // of the split domain (domain_split.h) it may be known: then only the branch taken is built.
    Decided m = domain_condition(*e.args[0], env, shift);
    if (m.value) return eval(*e.args[*m.value ? 1 : 2], env, shift);
    Code t = temp(Code::scalar(m.text));
    // Both branches are computed at every point: their shifted reads are guarded where their
    // branch is not taken.
    struct Guard {
      int& depth;
      explicit Guard(int& d) : depth(d) { ++depth; }
      ~Guard() { --depth; }
    } guard(guarded_);
    Code a = eval(*e.args[1], env, shift.when(t.text)),
         b = eval(*e.args[2], env, shift.when("(not " + t.text + ")"));
    return zip({t, a, b}, "concat_where", [](const std::vector<std::string>& x) {
      return "(" + x[1] + " if " + x[0] + " else " + x[2] + ")";
    });
  }
  if (name == "broadcast") return eval(*e.args[0], env, shift);
  if (name == "astype") {
    Code x = eval(*e.args[0], env, shift);
    // `type` mirrors the argument's shape with the target dtype at every leaf.
    const Type* t = &e.type;
    while (t->is_tuple() && !t->elements.empty()) t = &t->elements[0];
    std::string fn = "dace." + dace_type_name(t->dtype);
    return zip({x}, "astype", [&](const std::vector<std::string>& s) { return fn + "(" + s[0] + ")"; });
  }
  if (name == "power") {
    Code a = eval(*e.args[0], env, shift), b = eval(*e.args[1], env, shift);
    return zip({a, b}, name,
               [](const std::vector<std::string>& t) { return "(" + t[0] + " ** " + t[1] + ")"; });
  }
  if (name == "maximum" || name == "minimum") {
    Code a = temp(eval(*e.args[0], env, shift)), b = temp(eval(*e.args[1], env, shift));
    return zip({a, b}, name, [&](const std::vector<std::string>& t) {
      return numpy_extremum(name == "maximum", t[0], t[1]);
    });
  }
  auto it = math_names().find(name);
  if (it == math_names().end()) unsupported(e.loc, "the builtin '" + name + "'");
  std::vector<Code> args;
  for (const TExprPtr& a : e.args) args.push_back(eval(*a, env, shift));
  const std::string fn = it->second;
  return zip(args, name, [&](const std::vector<std::string>& t) {
    std::string s = fn + "(";
    for (std::size_t i = 0; i < t.size(); ++i) s += (i ? ", " : "") + t[i];
    return s + ")";
  });
}

}  // namespace weir::frontend::lowering
