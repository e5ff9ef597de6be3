// Python's meaning of tasklet code, for the reference interpreter (interpreter.h): values are
// bools, ints and floats as in CPython, ints exact in int64. Where CPython's result is not an
// int64, a bool or a float (an int beyond int64, a complex power), or where CPython raises
// (a division by zero, a domain or overflow error of `math`), evaluation throws
// std::runtime_error: the interpreter refuses, it never computes another value. Bare math
// names (`sqrt(x)`) are NumPy's functions, as weir's code generator takes them: C's value
// (NaN outside the domain). Written independently of the code generator (python_to_cpp.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "weir/pycode/ast.h"
#include "weir/pycode/code.h"
#include "weir/pycode/int_ops.h"

namespace weir::test {

/// A Python value of tasklet code.
struct PyValue {
  enum class Type { Bool, Int, Float };
  Type type = Type::Float;
  std::int64_t i = 0;  ///< Bool (0/1) and Int
  double f = 0.0;      ///< Float

  static PyValue boolean(bool b) { return {Type::Bool, b ? 1 : 0, 0.0}; }
  static PyValue integer(std::int64_t v) { return {Type::Int, v, 0.0}; }
  static PyValue real(double v) { return {Type::Float, 0, v}; }
  bool is_float() const { return type == Type::Float; }
  bool truthy() const { return is_float() ? f != 0.0 : i != 0; }  // NaN is truthy, as in Python
  double as_double() const { return is_float() ? f : static_cast<double>(i); }
};

/// Evaluates the statements of tasklet code (assignments to names) in Python's meaning.
class TaskletEval {
 public:
  explicit TaskletEval(std::map<std::string, PyValue>& vars) : vars_(vars) {}

  /// Runs `code`: each statement must be `name = expr` (or several targets).
  void run(const std::string& code) {
    std::shared_ptr<const pycode::Code> parsed;
    try {
      parsed = pycode::Code::parse(code, "<tasklet>");
    } catch (const std::exception& e) {
      fail(std::string("cannot parse: ") + e.what());
    }
    for (const auto& s : parsed->body()) {
      const auto* a = pycode::dyn_cast<pycode::Assign>(s.get());
      if (!a) fail("not an assignment: " + code);
      PyValue v = eval(*a->value);
      for (const auto& t : a->targets) {
        const auto* n = pycode::dyn_cast<pycode::Name>(t.get());
        if (!n) fail("assignment to something other than a name: " + code);
        vars_[n->id] = v;
      }
    }
  }

  PyValue eval(const pycode::Expr& e) {
    namespace py = pycode;
    switch (e.kind) {
      case py::ExprKind::Name: {
        const auto& n = static_cast<const py::Name&>(e);
        auto it = vars_.find(n.id);
        if (it != vars_.end()) return it->second;
        if (n.id == "True" || n.id == "False") return PyValue::boolean(n.id == "True");
        fail("unknown name '" + n.id + "'");
      }
      case py::ExprKind::Constant: {
        const auto& c = static_cast<const py::Constant&>(e);
        if (c.value_kind == py::ConstantKind::Int) return PyValue::integer(c.int_value);
        if (c.value_kind == py::ConstantKind::Float) return PyValue::real(c.float_value);
        if (c.value_kind == py::ConstantKind::Bool) return PyValue::boolean(c.bool_value);
        fail("unsupported constant " + c.text);
      }
      case py::ExprKind::UnaryOp: return unary(static_cast<const py::UnaryOp&>(e));
      case py::ExprKind::BinOp: {
        const auto& b = static_cast<const py::BinOp&>(e);
        PyValue l = eval(*b.left);
        PyValue r = eval(*b.right);
        return binary(b.op, l, r);
      }
      case py::ExprKind::BoolOp: {
        const auto& b = static_cast<const py::BoolOp&>(e);
        PyValue v;
        for (std::size_t k = 0; k < b.values.size(); ++k) {
          v = eval(*b.values[k]);
          if (k + 1 < b.values.size() && v.truthy() == (b.op == py::BoolOperator::Or)) return v;
        }
        return v;
      }
      case py::ExprKind::Compare: {
        const auto& c = static_cast<const py::Compare&>(e);
        PyValue l = eval(*c.left);
        for (std::size_t k = 0; k < c.ops.size(); ++k) {
          PyValue r = eval(*c.comparators[k]);
          if (!compare(c.ops[k], l, r)) return PyValue::boolean(false);
          l = r;
        }
        return PyValue::boolean(true);
      }
      case py::ExprKind::IfExp: {
        const auto& x = static_cast<const py::IfExp&>(e);
        return eval(*x.test).truthy() ? eval(*x.body) : eval(*x.orelse);
      }
      case py::ExprKind::Call: return call(static_cast<const py::Call&>(e));
      default: break;
    }
    fail("unsupported expression");
  }

 private:
  std::map<std::string, PyValue>& vars_;

  [[noreturn]] static void fail(const std::string& m) { throw std::runtime_error("interpreter: " + m); }

  static PyValue as_number(const PyValue& v) {
    return v.type == PyValue::Type::Bool ? PyValue::integer(v.i) : v;
  }
  static std::int64_t checked(const pycode::IntOpResult& r) {
    if (!r.ok())
      fail("Python's integer result is not an int64 value or raises: " + pycode::describe(r.fault));
    return r.value;
  }

  PyValue unary(const pycode::UnaryOp& u) {
    PyValue v = eval(*u.operand);
    switch (u.op) {
      case pycode::UnaryOperator::Not: return PyValue::boolean(!v.truthy());
      case pycode::UnaryOperator::UAdd: return as_number(v);
      case pycode::UnaryOperator::USub:
        if (v.is_float()) return PyValue::real(-v.f);
        return PyValue::integer(checked(pycode::int_neg(v.i)));
      case pycode::UnaryOperator::Invert:
        if (v.is_float()) fail("~ of a float (Python raises TypeError)");
        return PyValue::integer(~v.i);
    }
    fail("unsupported unary operator");
  }

  /// CPython's float floor division and modulo (floatobject.c, float_divmod).
  static void float_divmod(double vx, double wx, double& floordiv, double& mod) {
    if (wx == 0.0) fail("float division or modulo by zero (Python raises ZeroDivisionError)");
    mod = std::fmod(vx, wx);
    double div = (vx - mod) / wx;
    if (mod != 0.0) {
      if ((wx < 0) != (mod < 0)) {
        mod += wx;
        div -= 1.0;
      }
    } else {
      mod = std::copysign(0.0, wx);
    }
    if (div != 0.0) {
      floordiv = std::floor(div);
      if (div - floordiv > 0.5) floordiv += 1.0;
    } else {
      floordiv = std::copysign(0.0, vx / wx);
    }
  }

  /// CPython's float ** float (floatobject.c, float_pow): C's pow where it is a float.
  static double float_pow(double x, double y) {
    if (x == 0.0 && y < 0.0) fail("0.0 to a negative power (Python raises ZeroDivisionError)");
    if (std::isfinite(x) && x < 0.0 && std::isfinite(y) && y != std::floor(y))
      fail("a negative number to a fractional power (Python's result is complex)");
    double r = std::pow(x, y);
    if (std::isinf(r) && std::isfinite(x) && std::isfinite(y))
      fail("float power overflows (Python raises OverflowError)");
    return r;
  }

  PyValue binary(pycode::BinaryOperator op, PyValue l, PyValue r) {
    using B = pycode::BinaryOperator;
    const bool both_bool = l.type == PyValue::Type::Bool && r.type == PyValue::Type::Bool;
    if (both_bool && (op == B::BitAnd || op == B::BitOr || op == B::BitXor))
      return PyValue::boolean(op == B::BitAnd  ? (l.i & r.i) != 0
                              : op == B::BitOr ? (l.i | r.i) != 0
                                               : (l.i ^ r.i) != 0);
    l = as_number(l);
    r = as_number(r);
    if (!l.is_float() && !r.is_float()) {
      const std::int64_t a = l.i, b = r.i;
      switch (op) {
        case B::Add: return PyValue::integer(checked(pycode::int_add(a, b)));
        case B::Sub: return PyValue::integer(checked(pycode::int_sub(a, b)));
        case B::Mult: return PyValue::integer(checked(pycode::int_mul(a, b)));
        case B::FloorDiv: return PyValue::integer(checked(pycode::int_floordiv(a, b)));
        case B::Mod: return PyValue::integer(checked(pycode::int_mod(a, b)));
        case B::LShift: return PyValue::integer(checked(pycode::int_lshift(a, b)));
        case B::RShift: return PyValue::integer(checked(pycode::int_rshift(a, b)));
        case B::BitAnd: return PyValue::integer(a & b);
        case B::BitOr: return PyValue::integer(a | b);
        case B::BitXor: return PyValue::integer(a ^ b);
        case B::Pow:
          if (b >= 0) return PyValue::integer(checked(pycode::int_pow(a, b)));
          return PyValue::real(float_pow(static_cast<double>(a), static_cast<double>(b)));
        case B::Div: {
          if (b == 0) fail("division by zero (Python raises ZeroDivisionError)");
          // Python's int / int is correctly rounded; so is the double division of exact operands.
          const std::int64_t exact = std::int64_t{1} << 53;
          if (a > exact || a < -exact || b > exact || b < -exact)
            fail("true division of integers beyond 2**53 (not computed exactly here)");
          return PyValue::real(static_cast<double>(a) / static_cast<double>(b));
        }
        case B::MatMult: break;
      }
      fail("unsupported operator");
    }
    const double x = l.as_double(), y = r.as_double();
    double q = 0.0, m = 0.0;
    switch (op) {
      case B::Add: return PyValue::real(x + y);
      case B::Sub: return PyValue::real(x - y);
      case B::Mult: return PyValue::real(x * y);
      case B::Div:
        if (y == 0.0) fail("float division by zero (Python raises ZeroDivisionError)");
        return PyValue::real(x / y);
      case B::FloorDiv: float_divmod(x, y, q, m); return PyValue::real(q);
      case B::Mod: float_divmod(x, y, q, m); return PyValue::real(m);
      case B::Pow: return PyValue::real(float_pow(x, y));
      default: fail("bitwise operator on a float (Python raises TypeError)");
    }
  }

  /// Python's exact comparison of numbers (an int and a float compare by value, not after
  /// rounding the int; long double holds every int64 and every double exactly on x86-64).
  static int order(const PyValue& a, const PyValue& b) {  // -1, 0, 1; 2: unordered (NaN)
    if (!a.is_float() && !b.is_float()) return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
    if ((a.is_float() && std::isnan(a.f)) || (b.is_float() && std::isnan(b.f))) return 2;
    long double x = a.is_float() ? static_cast<long double>(a.f) : static_cast<long double>(a.i);
    long double y = b.is_float() ? static_cast<long double>(b.f) : static_cast<long double>(b.i);
    return x < y ? -1 : x > y ? 1 : 0;
  }

  static bool compare(pycode::CompareOperator op, const PyValue& a, const PyValue& b) {
    const int o = order(a, b);
    switch (op) {
      case pycode::CompareOperator::Eq: return o == 0;
      case pycode::CompareOperator::NotEq: return o != 0;
      case pycode::CompareOperator::Lt: return o == -1;
      case pycode::CompareOperator::LtE: return o == -1 || o == 0;
      case pycode::CompareOperator::Gt: return o == 1;
      case pycode::CompareOperator::GtE: return o == 1 || o == 0;
      default: fail("unsupported comparison");
    }
  }

  /// A `math` function's value as CPython's math module gives it: an error where the result
  /// is NaN from a number (ValueError) or infinite from finite arguments (OverflowError or
  /// ValueError), else C's value.
  static double python_math(double r, const std::vector<double>& args, const std::string& name) {
    bool any_nan = false, all_finite = true;
    for (double a : args) {
      any_nan = any_nan || std::isnan(a);
      all_finite = all_finite && std::isfinite(a);
    }
    if (std::isnan(r) && !any_nan) fail("math." + name + ": math domain error (Python raises ValueError)");
    if (std::isinf(r) && all_finite) fail("math." + name + ": infinite result (Python raises)");
    return r;
  }

  PyValue call(const pycode::Call& c) {
    std::string callee = pycode::dotted_name(c.func.get());
    std::vector<PyValue> a;
    for (const auto& x : c.args) a.push_back(eval(*x));
    std::string mod, name = callee;
    if (auto dot = callee.rfind('.'); dot != std::string::npos) {
      mod = callee.substr(0, dot);
      name = callee.substr(dot + 1);
    }
    auto need = [&](std::size_t n) {
      if (a.size() != n) fail(callee + " takes " + std::to_string(n) + " argument(s)");
    };
    if (mod.empty() && (name == "min" || name == "max" || name == "Min" || name == "Max")) {
      if (a.empty()) fail(callee + " needs arguments");
      const bool is_min = name == "min" || name == "Min";
      PyValue best = a[0];
      for (std::size_t k = 1; k < a.size(); ++k)
        if (order(a[k], best) == (is_min ? -1 : 1)) best = a[k];
      return best;
    }
    if (mod.empty() && name == "abs") {
      need(1);
      PyValue v = as_number(a[0]);
      if (v.is_float()) return PyValue::real(std::fabs(v.f));
      return PyValue::integer(v.i < 0 ? checked(pycode::int_neg(v.i)) : v.i);
    }
    if (mod.empty() && name == "float") {
      need(1);
      return PyValue::real(a[0].as_double());
    }
    if (mod.empty() && name == "bool") {
      need(1);
      return PyValue::boolean(a[0].truthy());
    }
    if (mod.empty() && name == "int") {
      need(1);
      if (!a[0].is_float()) return PyValue::integer(a[0].i);
      double t = std::trunc(a[0].f);
      if (!(t >= -9223372036854775808.0 && t < 9223372036854775808.0))
        fail("int() of " + std::to_string(a[0].f) + " is not an int64 value (or raises)");
      return PyValue::integer(static_cast<std::int64_t>(t));
    }
    static const std::map<std::string, double (*)(double)> unary = {
        {"sqrt", [](double x) { return std::sqrt(x); }}, {"exp", [](double x) { return std::exp(x); }},
        {"log", [](double x) { return std::log(x); }},   {"sin", [](double x) { return std::sin(x); }},
        {"cos", [](double x) { return std::cos(x); }},   {"tan", [](double x) { return std::tan(x); }},
        {"tanh", [](double x) { return std::tanh(x); }}, {"atan", [](double x) { return std::atan(x); }},
        {"fabs", [](double x) { return std::fabs(x); }}};
    if (mod == "math" || mod == "np" || mod == "numpy" || mod.empty()) {
      if (auto it = unary.find(name); it != unary.end()) {
        need(1);
        double x = a[0].as_double(), r = it->second(x);
        return PyValue::real(mod == "math" ? python_math(r, {x}, name) : r);
      }
      if (name == "atan2" || name == "hypot") {
        need(2);
        double x = a[0].as_double(), y = a[1].as_double();
        double r = name == "atan2" ? std::atan2(x, y) : std::hypot(x, y);
        return PyValue::real(mod == "math" ? python_math(r, {x, y}, name) : r);
      }
    }
    fail("unsupported function '" + callee + "'");
  }
};

}  // namespace weir::test
