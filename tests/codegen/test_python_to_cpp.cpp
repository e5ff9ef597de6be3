// Python -> C++ translation of tasklet code, interstate code and write-conflict resolutions.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "weir/codegen/python_to_cpp.h"
#include "weir/pycode/ast.h"
#include "weir/pycode/unparse.h"

using namespace weir;
using namespace weir::codegen;

namespace {

/// A tasklet-like context: inputs __in1, __in2 (float64), n (int64), b (bool), a pointer
/// connector p[N, 1] (2-D, row stride N), outputs __out (float64), k (int64).
PyContext tasklet_context() {
  PyContext ctx;
  auto add = [&](const std::string& name, ScalarType t, bool writable) {
    PyVar v = PyVar::value(name, t);
    v.writable = writable;
    ctx.vars[name] = v;
  };
  add("__in1", ScalarType::Float64, true);
  add("__in2", ScalarType::Float64, true);
  add("n", ScalarType::Int64, false);
  add("b", ScalarType::Bool, true);
  add("__out", ScalarType::Float64, true);
  add("k", ScalarType::Int64, true);
  PyVar p = PyVar::value("p", ScalarType::Float64);
  p.pointer = true;
  p.strides = {"N", "1"};
  p.squeezed_strides = {"1"};
  ctx.vars["p"] = p;
  ctx.reserved = {"A", "N"};
  return ctx;
}

std::vector<std::string> tr(const std::string& code) {
  PyContext ctx = tasklet_context();
  return translate_python_statements(code, ctx);
}

/// What translating `code` throws, or "no error".
std::string translation_error(const std::string& code) {
  try {
    tr(code);
  } catch (const PythonTranslationError& e) {
    return std::string(e.what());
  }
  return std::string("no error");
}

std::string tr1(const std::string& code) {
  auto lines = tr(code);
  REQUIRE(lines.size() == 1);
  return lines[0];
}

}  // namespace

TEST_CASE("python: arithmetic and parentheses", "[codegen][python]") {
  CHECK(tr1("__out = (__in1 + __in2)") == "__out = __in1 + __in2;");
  CHECK(tr1("__out = __in1 * (__in2 - 1.5)") == "__out = __in1 * (__in2 - 1.5);");
  CHECK(tr1("__out = (0.25 * __in2)") == "__out = 0.25 * __in2;");
  CHECK(tr1("__out = __in1 - (__in2 - 1)") == "__out = __in1 - (__in2 - 1);");
  CHECK(tr1("__out = -__in1 ** 2") == "__out = -(__in1 * __in1);");
  CHECK(tr1("__out += __in1") == "__out += __in1;");
}

TEST_CASE("python: math functions and constants", "[codegen][python]") {
  CHECK(tr1("__out = math.sqrt(__in1)") == "__out = std::sqrt(__in1);");
  CHECK(tr1("__out = np.exp(-__in1)") == "__out = std::exp(-__in1);");
  CHECK(tr1("__out = numpy.arctan2(__in1, __in2)") == "__out = std::atan2(__in1, __in2);");
  CHECK(tr1("__out = math.pi * __in1") == "__out = 3.141592653589793 * __in1;");
  CHECK(tr1("__out = math.e") == "__out = 2.718281828459045;");
  // Python's math.floor gives an integer: NaN and inf through NumPy's conversion, not C++'s UB.
  CHECK(tr1("k = math.floor(__in1)") == "k = weir_ftoi<int64_t>(std::floor(__in1));");
  CHECK(tr1("__out = np.floor(__in1)") == "__out = std::floor(__in1);");
}

TEST_CASE("python: min, max, abs", "[codegen][python]") {
  CHECK(tr1("__out = min(__in1, __in2)") == "__out = weir_min(__in1, __in2);");
  CHECK(tr1("__out = max(__in1, __in2, 0.0)") == "__out = weir_max(weir_max(__in1, __in2), 0.0);");
  CHECK(tr1("__out = abs(__in1)") == "__out = std::abs(__in1);");
  // NumPy's maximum/minimum propagate NaN, fmax/fmin ignore it; Python's max/min keep Python's order.
  CHECK(tr1("__out = np.maximum(__in1, 0)") == "__out = weir_maximum(__in1, 0);");
  CHECK(tr1("__out = np.minimum(__in1, __in2)") == "__out = weir_minimum(__in1, __in2);");
  CHECK(tr1("__out = np.fmax(__in1, __in2)") == "__out = weir_fmax(__in1, __in2);");
  CHECK(tr1("__out = np.fmin(__in1, __in2)") == "__out = weir_fmin(__in1, __in2);");
  CHECK(translation_error("__out = np.maximum(__in1, __in2, __in2)")
            .find("'np.maximum' takes 2 argument(s), got 3") != std::string::npos);
}

TEST_CASE("python: NaN and infinity as DaCe writes them in Python tasklets", "[codegen][python]") {
  // DaCe's cppunparse turns the bare names into C's NAN / INFINITY and its free-symbol scan
  // skips them; Python has no NaN literal, so `nan` is how DaCe (and weir's unparser) say it.
  CHECK(tr1("__out = nan") == "__out = std::numeric_limits<double>::quiet_NaN();");
  CHECK(tr1("__out = __in1 * inf") == "__out = __in1 * std::numeric_limits<double>::infinity();");
  CHECK(tr1("__out = -1e309") == "__out = -std::numeric_limits<double>::infinity();");
  CHECK_THAT(translation_error("__out = nanj"), Catch::Contains("unknown name 'nanj'"));
  // A connector or local of that name is what the code means.
  PyContext ctx = tasklet_context();
  ctx.vars["nan"] = PyVar::value("nan", ScalarType::Float64);
  CHECK(translate_python_statements("__out = nan", ctx) == std::vector<std::string>{"__out = nan;"});
}

TEST_CASE("python: what weir's unparser writes for NaN and infinity translates back", "[codegen][python]") {
  namespace py = weir::pycode;
  auto text = [](double v, py::ConstantKind kind) {
    py::Constant c(py::SourceLocation{});
    c.value_kind = kind;
    c.float_value = v;
    return py::unparse(c);
  };
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  CHECK(text(nan, py::ConstantKind::Float) == "nan");
  CHECK(text(-nan, py::ConstantKind::Float) == "nan");
  CHECK(text(inf, py::ConstantKind::Float) == "1e309");
  CHECK(text(-inf, py::ConstantKind::Float) == "-1e309");
  CHECK(text(nan, py::ConstantKind::Imaginary) == "(1e309j - 1e309j)");
  CHECK(text(inf, py::ConstantKind::Imaginary) == "1e309j");
  CHECK(tr1("__out = " + text(nan, py::ConstantKind::Float)) ==
        "__out = std::numeric_limits<double>::quiet_NaN();");
  CHECK(tr1("__out = " + text(-inf, py::ConstantKind::Float)) ==
        "__out = -std::numeric_limits<double>::infinity();");
}

TEST_CASE("python: casts", "[codegen][python]") {
  CHECK(tr1("__out = float(n)") == "__out = static_cast<double>(n);");
  CHECK(tr1("k = int(__in1)") == "k = weir_ftoi<int64_t>(__in1);");  // float -> int: NumPy's rule
  CHECK(tr1("__out = dace.float32(__in1)") == "__out = static_cast<float>(__in1);");
  CHECK(tr1("k = np.int32(__in1)") == "k = weir_ftoi<int32_t>(__in1);");
  CHECK(tr1("k = dace.uint8(__in1)") == "k = weir_ftoi<uint8_t>(__in1);");
  CHECK(tr1("k = np.int32(n)") == "k = static_cast<int32_t>(n);");  // integers wrap, as in NumPy
  CHECK(tr1("b = bool(n)") == "b = static_cast<bool>(n);");
}

TEST_CASE("python: ternaries, comparisons, boolean operators", "[codegen][python]") {
  CHECK(tr1("__out = (dace.float64(0) if b else __in2)") == "__out = b ? static_cast<double>(0) : __in2;");
  CHECK(tr1("b = (__in1 > 0)") == "b = __in1 > 0;");
  CHECK(tr1("b = __in1 > 0 and not b") == "b = __in1 > 0 && !b;");
  CHECK(tr1("b = __in1 > 0 and __in2 < 0 or b") == "b = (__in1 > 0 && __in2 < 0) || b;");
  CHECK(tr1("b = 0 < __in1 < 1") == "b = (0 < __in1) && (__in1 < 1);");
  CHECK(tr1("b = n == 3") == "b = n == 3;");
}

TEST_CASE("python: powers", "[codegen][python]") {
  CHECK(tr1("__out = __in1 ** 2") == "__out = __in1 * __in1;");
  CHECK(tr1("k = n ** 3") == "k = n * n * n;");
  CHECK(tr1("k = (n + 1) ** 5") == "k = weir_powi(static_cast<int64_t>(n + 1), 5);");
  CHECK(tr1("__out = __in1 ** 0.5") == "__out = std::pow(__in1, 0.5);");
  CHECK(tr1("__out = __in1 ** -1") == "__out = std::pow(static_cast<double>(__in1), -1);");
  CHECK(tr1("k = n ** k") == "k = weir_ipow(n, k);");
}

TEST_CASE("python: floor division, modulo and true division", "[codegen][python]") {
  CHECK(tr1("k = n // 3") == "k = weir_floordiv(n, 3);");
  CHECK(tr1("k = n % 3") == "k = weir_mod(n, 3);");
  // Floats as NumPy's floor_divide and remainder (and Python's float // and %).
  CHECK(tr1("__out = __in1 // __in2") == "__out = weir_ffloordiv<double>(__in1, __in2);");
  CHECK(tr1("__out = __in1 % __in2") == "__out = weir_fmod<double>(__in1, __in2);");
  CHECK(tr1("__out = __in1 % 2") == "__out = weir_fmod<double>(__in1, 2);");
  CHECK(tr1("k = np.fmod(n, k)") == "k = weir_ifmod(n, k);");
  CHECK(tr1("__out = np.fmod(__in1, __in2)") == "__out = std::fmod(__in1, __in2);");
  CHECK(tr1("__out = n / 2") == "__out = static_cast<double>(n) / 2;");
  CHECK(tr1("__out = __in1 / __in2") == "__out = __in1 / __in2;");
}

TEST_CASE("python: locals, blocks and subscripts", "[codegen][python]") {
  CHECK(tr("x = __in1 + 1\n__out = x * x") ==
        std::vector<std::string>{"auto x = __in1 + 1;", "__out = x * x;"});
  CHECK(tr("if __in1 > __in2:\n    __out = __in1\nelse:\n    __out = __in2") ==
        std::vector<std::string>{"if (__in1 > __in2) {", "    __out = __in1;", "} else {",
                                 "    __out = __in2;", "}"});
  CHECK(tr("if b:\n    y = 1.0\nelif n > 0:\n    y = 2.0\nelse:\n    y = 3.0\n__out = y") ==
        std::vector<std::string>{"double y{};", "if (b) {", "    y = 1.0;", "} else if (n > 0) {",
                                 "    y = 2.0;", "} else {", "    y = 3.0;", "}", "__out = y;"});
  CHECK(tr1("__out = p[n, 1]") == "__out = p[n * N + 1];");
  CHECK(tr1("__out = p[k]") == "__out = p[k];");
  // A local that would shadow a container name is renamed.
  CHECK(tr("A = __in1\n__out = A") == std::vector<std::string>{"auto _A = __in1;", "__out = _A;"});
  CHECK(tr("a, k = k, n") == std::vector<std::string>{"const auto __weir_t0 = k;",
                                                      "const auto __weir_t1 = n;", "auto a = __weir_t0;",
                                                      "k = __weir_t1;"});
  CHECK(tr1("x: dace.int32 = n") == "int32_t x = n;");
  CHECK(tr("pass").empty());
}

TEST_CASE("python: what the translator reports as used", "[codegen][python]") {
  PyContext ctx = tasklet_context();
  translate_python_statements("__out = __in2 * 2", ctx);
  CHECK(ctx.used == std::set<std::string>{"__in2", "__out"});
}

TEST_CASE("python: write hooks for write-conflict resolution", "[codegen][python]") {
  PyContext ctx = tasklet_context();
  ctx.vars["__out"].hooked = true;
  ctx.write_hook = [](const std::string& name, const std::string& index, const std::string& value) {
    return "#pragma omp atomic\nOUT" + (index.empty() ? std::string() : "[" + index + "]") + " += " + value +
           ";";
  };
  CHECK(translate_python_statements("__out = __in1 * 2", ctx) ==
        std::vector<std::string>{"#pragma omp atomic", "OUT += __in1 * 2;"});
  CHECK_THROWS_AS(translate_python_statements("__out = __out + 1", ctx), PythonTranslationError);
}

TEST_CASE("python: unsupported code names the construct", "[codegen][python]") {
  auto msg = translation_error;
  CHECK_THAT(msg("__out = foo(__in1)"), Catch::Contains("unsupported function 'foo'"));
  CHECK_THAT(msg("__out = undefined_name"), Catch::Contains("unknown name 'undefined_name'"));
  CHECK_THAT(msg("__out = [1, 2]"), Catch::Contains("unsupported Python expression"));
  CHECK_THAT(msg("__out = p[0:2]"), Catch::Contains("slices"));
  CHECK_THAT(msg("n = 3"), Catch::Contains("cannot assign to 'n'"));
  CHECK_THAT(msg("__out = (__in1 +"), Catch::Contains("cannot parse"));
  CHECK_THAT(msg("return __in1"), Catch::Contains("unsupported statement"));
  CHECK_THAT(msg("__out = 'text'"), Catch::Contains("unsupported constant"));
}

TEST_CASE("python: interstate expressions and loop statements", "[codegen][python]") {
  PyContext ctx;
  ctx.allow_locals = false;
  PyVar t = PyVar::value("t", ScalarType::Int64);
  t.writable = true;
  ctx.vars["t"] = t;
  PyVar u = PyVar::value("_", ScalarType::Int64);
  u.writable = true;
  ctx.vars["_"] = u;
  ctx.vars["TSTEPS"] = PyVar::value("TSTEPS", ScalarType::Int64);
  PyVar a = PyVar::value("A", ScalarType::Float64);
  a.pointer = true;
  a.strides = {"N", "1"};
  ctx.vars["A"] = a;
  CHECK(translate_python_expression("(t < TSTEPS)", ctx) == "t < TSTEPS");
  CHECK(translate_python_expression("(not (_ < 5))", ctx) == "!(_ < 5)");
  CHECK(translate_python_expression("1", ctx) == "1");
  CHECK(translate_python_expression("A[t, 0] > 0.5", ctx) == "A[t * N] > 0.5");
  CHECK(translate_python_assignments("t = 0", ctx) == "t = 0");
  CHECK(translate_python_assignments("t = (t + 1)", ctx) == "t = t + 1");
  CHECK(translate_python_assignments("t = 0; _ = t + 1", ctx) == "t = 0, _ = t + 1");
  CHECK(translate_python_assignments("t += 2", ctx) == "t = t + 2");
  CHECK(translate_python_assignments("", ctx).empty());
  CHECK_THROWS_AS(translate_python_assignments("TSTEPS = 1", ctx), PythonTranslationError);
  CHECK_THROWS_AS(translate_python_statements("y = 1", ctx), PythonTranslationError);  // no locals here
}

TEST_CASE("python: write-conflict resolution lambdas", "[codegen][python]") {
  std::string op;
  CHECK(translate_wcr("lambda a, b: a + b", "A[i]", "v", ScalarType::Float64, &op) == "A[i] += v");
  CHECK(op == "+");
  CHECK(translate_wcr("lambda a, b: (a + b)", "x", "y", ScalarType::Float64, &op) == "x += y");
  CHECK(translate_wcr("lambda a, b: b * a", "x", "y", ScalarType::Float64, &op) == "x *= y");
  CHECK(translate_wcr("lambda a, b: a - b", "x", "y", ScalarType::Float64, &op) == "x -= y");
  CHECK(translate_wcr("lambda x, y: max(x, y)", "A[i]", "v", ScalarType::Float64, &op) ==
        "A[i] = weir_max(A[i], v)");
  CHECK(op.empty());
  CHECK(translate_wcr("lambda a, b: min(a, b)", "s", "v", ScalarType::Int64, &op) == "s = weir_min(s, v)");
  CHECK(translate_wcr("lambda a, b: a * 2 + b", "s", "v", ScalarType::Float64, &op) == "s = s * 2 + v");
  CHECK_THROWS_AS(translate_wcr("a + b", "s", "v", ScalarType::Float64), PythonTranslationError);
}

// The combining function of a compare-and-swap update: the lambda's body, also for the operator
// forms that translate_wcr prints as compound assignments (issue 12: `__a += __b` minus its
// target was ` __b`, so an int64 histogram on the GPU kept the last value written).
TEST_CASE("python: write-conflict resolution lambdas as combining expressions", "[codegen][python]") {
  CHECK(translate_wcr_combine("lambda x, y: (x + y)", "a", "b", ScalarType::Int64) == "a + b");
  CHECK(translate_wcr_combine("lambda a, b: a - b", "p", "q", ScalarType::Int64) == "p - q");
  CHECK(translate_wcr_combine("lambda a, b: b * a", "p", "q", ScalarType::Float64) == "q * p");
  CHECK(translate_wcr_combine("lambda x, y: max(x, y)", "p", "q", ScalarType::Float64) == "weir_max(p, q)");
  CHECK_THROWS_AS(translate_wcr_combine("lambda a: a", "p", "q", ScalarType::Float64),
                  PythonTranslationError);
}

TEST_CASE("python: C++ keywords as names", "[codegen][python]") {
  CHECK(cpp_ident("new") == "new_");
  CHECK(cpp_ident("default") == "default_");
  CHECK(cpp_ident("A") == "A");
  CHECK(cpp_ident("weir_min") == "weir_min_");
}

TEST_CASE("python: the translator never pastes source text into C++", "[codegen][python][security]") {
  // Tasklet code comes from untrusted SDFG files: anything that is not translated into C++ of
  // its own is an error; strings, attributes, unknown calls and imports never reach the output.
  auto msg = translation_error;
  CHECK(msg("__out = __import__('os').system('ls')") ==
        "unsupported call of `__import__('os').system` (line 1: `__out = __import__('os').system('ls')`)");
  CHECK(msg("import os\n__out = os.system(__in1)") ==
        "unsupported function 'os.system' (line 2: `__out = os.system(__in1)`)");
  CHECK(msg("__out = os.system") == "unsupported attribute `os.system` (line 1: `__out = os.system`)");
  CHECK(msg("__out = __in1.__class__") ==
        "unsupported attribute `__in1.__class__` (line 1: `__out = __in1.__class__`)");
  CHECK(msg("__out = exec('x')") == "unsupported constant `'x'` (line 1: `__out = exec('x')`)");
  CHECK(msg("__out = system(__in1)") == "unsupported function 'system' (line 1: `__out = system(__in1)`)");
  CHECK(msg("__out = math.system(__in1)") ==
        "unsupported function 'math.system' (line 1: `__out = math.system(__in1)`)");
  CHECK(msg("__out = \"\\\"); std::system(\\\"ls\"") ==
        "unsupported constant `\"\\\"); std::system(\\\"ls\"` (line 1: `__out = \"\\\"); "
        "std::system(\\\"ls\"`)");
  CHECK(msg("__out = b'x'") == "unsupported constant `b'x'` (line 1: `__out = b'x'`)");
  CHECK(msg("__out = (lambda: 1)()") == "unsupported call of `lambda: 1` (line 1: `__out = (lambda: 1)()`)");
  CHECK(msg("__out = np.__dict__") == "unsupported attribute `np.__dict__` (line 1: `__out = np.__dict__`)");
  // A non-ASCII name is refused by the Python lexer already (its names become C++ names).
  CHECK(msg("\xc3\xa9 = __in1\n__out = \xc3\xa9") ==
        "cannot parse Python code `\xc3\xa9 = __in1\n__out = \xc3\xa9`: identifier '\xc3\xa9' is not ASCII: "
        "weir "
        "needs ASCII names (they become SDFG and C++ names)");
  // Comments, docstrings and imports are dropped, not pasted.
  auto lines =
      tr("\"\"\"doc\"); std::system(\"ls\");\"\"\"\nimport os  # ); std::system(\"ls\");\n__out = __in1  # "
         "\\\n");
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  CHECK(all == "__out = __in1;\n");
}

TEST_CASE("python: the forms DaCe's tasklets and interstate edges use", "[codegen][python][npbench]") {
  // Bare math functions (npbench's arc_distance, go_fast, deriche as DaCe writes them).
  CHECK(tr1("__out = sqrt(__in1)") == "__out = std::sqrt(__in1);");
  CHECK(tr1("__out = tanh(__in1) + exp(__in2)") == "__out = std::tanh(__in1) + std::exp(__in2);");
  CHECK(tr1("__out = atan2(__in1, __in2)") == "__out = std::atan2(__in1, __in2);");
  CHECK(tr1("__out = floor(__in1)") == "__out = std::floor(__in1);");
  // SymPy's Min/Max/Abs (azimint_hist's `bin = Min(bins - 1, ...)`).
  CHECK(tr1("k = Min(n - 1, k)") == "k = weir_min(n - 1, k);");
  CHECK(tr1("__out = Max(__in1, __in2)") == "__out = weir_max(__in1, __in2);");
  CHECK(tr1("k = Abs(n)") == "k = std::abs(n);");
  CHECK(tr1("__out = dace.float64(n) * __in2") == "__out = static_cast<double>(n) * __in2;");
}

TEST_CASE("python: complex arithmetic as std::complex", "[codegen][python][npbench]") {
  PyContext ctx = tasklet_context();
  PyVar z = PyVar::value("z", ScalarType::Complex128);
  z.writable = true;
  ctx.vars["z"] = z;
  auto one = [&](const std::string& code) {
    auto lines = translate_python_statements(code, ctx);
    REQUIRE(lines.size() == 1);
    return lines[0];
  };
  // mandelbrot1: `dace.complex128(x) * 1j`, `z ** dace.complex128(2)`, `abs(z)`: NumPy's
  // product and modulus (the prelude's weir_cmul and weir_cabs; values in test_complex_math.cpp).
  CHECK(one("z = dace.complex128(__in1) * 1j") ==
        "z = weir_cmul(static_cast<std::complex<double>>(__in1), std::complex<double>(0.0, 1));");
  CHECK(one("z = z ** dace.complex128(2)") == "z = weir_cmul(z, z);");
  CHECK(one("z = z ** 3") == "z = weir_cmul(weir_cmul(z, z), z);");
  CHECK(one("__out = abs(z)") == "__out = weir_cabs(z);");
  // Real operands of mixed arithmetic become complex (std::complex has no int64 operators).
  CHECK(one("z = z + n") == "z = z + static_cast<std::complex<double>>(n);");
}

// The result types of mixed arithmetic (the translator's promotion rule, arith_type), worked out
// by hand from that rule: a complex operand gives complex128; else a float64 operand float64;
// else any float float32 (also float32 with int64: simpler than NumPy, which gives float64);
// else a bool with an integer takes the integer's type (as NumPy), two integers of one type keep
// it, and every other pair of integers or bools is int64 (Python's True + True is the int 2). True division
// of integers is float64; floor division and modulo of integers are int64; bitwise operations of two bools
// stay bool.
TEST_CASE("python: result types of mixed int, float and bool arithmetic", "[codegen][python]") {
  PyContext ctx;
  for (const auto& [name, t] :
       std::vector<std::pair<std::string, ScalarType>>{{"i32", ScalarType::Int32},
                                                       {"i64", ScalarType::Int64},
                                                       {"u8", ScalarType::UInt8},
                                                       {"f32", ScalarType::Float32},
                                                       {"f64", ScalarType::Float64},
                                                       {"bl", ScalarType::Bool},
                                                       {"c64", ScalarType::Complex64}})
    ctx.vars[name] = PyVar::value(name, t);
  auto type_of = [&](const std::string& code) {
    ScalarType t = ScalarType::Void;
    translate_python_expression(code, ctx, &t);
    return t;
  };
  CHECK(type_of("i32 + i32") == ScalarType::Int32);
  CHECK(type_of("i32 + i64") == ScalarType::Int64);
  CHECK(type_of("u8 * i32") == ScalarType::Int64);
  CHECK(type_of("i32 + bl") == ScalarType::Int32);  // NumPy: int32 (weir/sdfg/promotion.h)
  CHECK(type_of("bl - u8") == ScalarType::UInt8);
  CHECK(type_of("bl + bl") == ScalarType::Int64);
  CHECK(type_of("f32 + f32") == ScalarType::Float32);
  CHECK(type_of("f32 + i64") == ScalarType::Float32);
  CHECK(type_of("f32 - bl") == ScalarType::Float32);
  CHECK(type_of("f32 * f64") == ScalarType::Float64);
  CHECK(type_of("bl * f64") == ScalarType::Float64);
  CHECK(type_of("c64 + f32") == ScalarType::Complex128);
  CHECK(type_of("i32 / i32") == ScalarType::Float64);
  CHECK(type_of("f32 / i32") == ScalarType::Float32);
  CHECK(type_of("i32 // i32") == ScalarType::Int64);
  CHECK(type_of("i32 % bl") == ScalarType::Int64);
  CHECK(type_of("f32 // i64") == ScalarType::Float32);
  CHECK(type_of("bl & bl") == ScalarType::Bool);
  CHECK(type_of("i32 | bl") == ScalarType::Int32);
  CHECK(type_of("i32 & i32") == ScalarType::Int32);
  CHECK(type_of("min(i32, f32)") == ScalarType::Float32);
  CHECK(type_of("max(i32, u8)") == ScalarType::Int64);
  CHECK(type_of("i32 if bl else f64") == ScalarType::Float64);
}
