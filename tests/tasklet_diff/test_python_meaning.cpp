// Fixed cases of kind 7 of issue 35 (silent wrong results in tasklet code), each value worked
// out with CPython 3.11 (`python3 -c ...`): weir's cpu backend and the reference interpreter
// compute Python's value or refuse with a located error.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "../transforms/support/cpu_run.h"
#include "../transforms/support/interpreter.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/runtime/allocator.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

using namespace weir;

namespace {

/// out[0] = <code> with x (float64), i (int64), p (bool) read from one-element arrays, and
/// `out` of type `t`.
std::unique_ptr<SDFG> one_tasklet(const std::string& code, ScalarType t) {
  auto sdfg = std::make_unique<SDFG>("python_meaning");
  sdfg->add_array("in_x", ScalarType::Float64, {sym::Expr(1)});
  sdfg->add_array("in_i", ScalarType::Int64, {sym::Expr(1)});
  sdfg->add_array("in_p", ScalarType::Bool, {sym::Expr(1)});
  sdfg->add_array("out", t, {sym::Expr(1)});
  SDFGState& st = sdfg->add_state("main", true);
  Tasklet& tk = st.add_tasklet("t", CodeBlock{"r = " + code, Language::Python}, {"x", "i", "p"}, {"r"});
  for (const char* n : {"x", "i", "p"})
    st.add_edge(st.add_access(std::string("in_") + n).id(), "", tk.id(), n,
                Memlet::simple(std::string("in_") + n, Subset::parse("0")));
  st.add_edge(tk.id(), "r", st.add_access("out").id(), "", Memlet::simple("out", Subset::parse("0")));
  return sdfg;
}

/// The cpu backend's out[0] (as a double) for inputs x, i, p.
double on_cpu(const std::string& code, ScalarType t, double x, std::int64_t i, bool p) {
  auto sdfg = one_tasklet(code, t);
  runtime::Arguments args;
  runtime::Field fx = runtime::Allocator::cpu().allocate(ScalarType::Float64, {1});
  static_cast<double*>(fx.data())[0] = x;
  runtime::Field fi = runtime::Allocator::cpu().allocate(ScalarType::Int64, {1});
  static_cast<std::int64_t*>(fi.data())[0] = i;
  runtime::Field fp = runtime::Allocator::cpu().allocate(ScalarType::Bool, {1});
  static_cast<bool*>(fp.data())[0] = p;
  args.arrays.emplace("in_x", std::move(fx));
  args.arrays.emplace("in_i", std::move(fi));
  args.arrays.emplace("in_p", std::move(fp));
  args.arrays.emplace("out", runtime::Allocator::cpu().allocate(t, {1}));
  auto out = test::run_arguments_on_cpu(*sdfg, args);
  return out.at("out").at(0);
}

/// The reference interpreter's out[0].
double interpreted(const std::string& code, ScalarType t, double x, std::int64_t i, bool p) {
  auto sdfg = one_tasklet(code, t);
  test::Interpreter in(*sdfg, {});
  in.mem["in_x"][0] = x;
  in.mem["in_i"][0] = static_cast<double>(i);
  in.mem["in_p"][0] = p ? 1.0 : 0.0;
  in.run();
  return in.mem["out"][0];
}

/// The code generator's refusal of `code` (empty when it translates it).
std::string refusal(const std::string& code, ScalarType t) {
  auto sdfg = one_tasklet(code, t);
  try {
    (void)codegen::generate_cpu(*sdfg);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("python meaning: `x or 7.0` and `x and 7.0` give an operand, not a bool", "[tasklet_diff]") {
  // python3 -c 'for x in (0.0, 2.5, float("nan")): print(x or 7.0, x and 7.0)'
  //   7.0 0.0 / 2.5 7.0 / nan 7.0
  struct Case {
    std::string code;
    double x;
    std::int64_t i;
    double want;
  };
  const Case cases[] = {{"x or 7.0", 0.0, 0, 7.0},  {"x or 7.0", 2.5, 0, 2.5},     {"x and 7.0", 2.5, 0, 7.0},
                        {"x and 7.0", 0.0, 0, 0.0}, {"i or 7.0", 0.0, 3, 3.0},     {"i or 7.0", 0.0, 0, 7.0},
                        {"i and x", -1.5, 4, -1.5}, {"x or i or 9.5", 0.0, 0, 9.5}};
  for (const Case& c : cases) {
    INFO(c.code << " with x = " << c.x << ", i = " << c.i);
    CHECK(on_cpu(c.code, ScalarType::Float64, c.x, c.i, false) == c.want);
    CHECK(interpreted(c.code, ScalarType::Float64, c.x, c.i, false) == c.want);
  }
  // NaN is truthy: `nan or 7.0` is nan.
  CHECK(std::isnan(on_cpu("x or 7.0", ScalarType::Float64, std::nan(""), 0, false)));
  // Integers: `i or 7` is i where i is not 0 (python3: 0 or 7 -> 7, -2 or 7 -> -2, 5 and 0 -> 0).
  CHECK(on_cpu("i or 7", ScalarType::Int64, 0.0, -2, false) == -2);
  CHECK(on_cpu("i or 7", ScalarType::Int64, 0.0, 0, false) == 7);
  CHECK(on_cpu("i and 0", ScalarType::Int64, 0.0, 5, false) == 0);
  // Short circuit: the right operand is not evaluated (`1 // i` with i = 0 would be refused).
  CHECK(interpreted("x or 1 // i", ScalarType::Float64, 2.0, 0, false) == 2.0);
}

TEST_CASE("python meaning: integer constants are folded exactly or refused with the line", "[tasklet_diff]") {
  // python3 -c 'print(2 ** 70)' -> 1180591620717411303424, not an int64: refused, located.
  std::string why = refusal("2 ** 70", ScalarType::Float64);
  CHECK_THAT(why, Catch::Contains("`2 ** 70` of integer constants: the result does not fit in int64"));
  CHECK_THAT(why, Catch::Contains("line 1: `r = 2 ** 70`"));
  CHECK_THAT(refusal("2 ** 64 + 4", ScalarType::Int64), Catch::Contains("`2 ** 64`"));
  CHECK_THAT(refusal("(1 << 63) - 1", ScalarType::Int64), Catch::Contains("`1 << 63`"));
  CHECK_THAT(refusal("7 // 0", ScalarType::Int64), Catch::Contains("integer division or modulo by zero"));
  CHECK_THAT(refusal("1 / 0", ScalarType::Float64), Catch::Contains("division by zero"));
  // python3 -c '7.0 / 0.0' raises ZeroDivisionError too (a connector divided by zero is NumPy's inf).
  CHECK_THAT(refusal("7.0 / 0.0", ScalarType::Float64), Catch::Contains("division by zero of constants"));
  CHECK_THAT(refusal("1.5 % -0.0", ScalarType::Float64), Catch::Contains("division by zero of constants"));
  CHECK(refusal("x / 0.0", ScalarType::Float64).empty());
  // What fits is Python's value: 3 ** 39 = 4052555153018976267, 2 ** 62 + (2 ** 62 - 1) =
  // 9223372036854775807 (python3), read back exactly from int64 outputs.
  CHECK(refusal("3 ** 39", ScalarType::Int64).empty());
  CHECK(refusal("2 ** 62 + (2 ** 62 - 1)", ScalarType::Int64).empty());
  CHECK(refusal("2 ** -2", ScalarType::Float64).empty());
  CHECK(on_cpu("2 ** -2", ScalarType::Float64, 0.0, 0, false) == 0.25);
  CHECK(on_cpu("-7 // 2 + 10 ** 3", ScalarType::Int64, 0.0, 0, false) == 996.0);
  CHECK(interpreted("-7 // 2 + 10 ** 3", ScalarType::Int64, 0.0, 0, false) == 996.0);
}

TEST_CASE("python meaning: the interpreter refuses what CPython raises on or cannot store",
          "[tasklet_diff]") {
  CHECK_THROWS_WITH(interpreted("2 ** 70", ScalarType::Float64, 0.0, 0, false),
                    Catch::Contains("not an int64 value"));
  CHECK_THROWS_WITH(interpreted("x / 0.0", ScalarType::Float64, 1.0, 0, false),
                    Catch::Contains("ZeroDivisionError"));
  CHECK_THROWS_WITH(interpreted("math.sqrt(x)", ScalarType::Float64, -1.0, 0, false),
                    Catch::Contains("math domain error"));
  // Python's comparison of an int and a float is exact (python3: 2**53 + 1 == 2.0**53 -> False).
  CHECK(interpreted("(i + 9007199254740992) == 9007199254740992.0", ScalarType::Bool, 0.0, 1, false) == 0.0);
  // Python's float floor division and modulo (python3: -7.5 // 2.0 = -4.0, -7.5 % 2.0 = 0.5).
  CHECK(interpreted("x // 2.0", ScalarType::Float64, -7.5, 0, false) == -4.0);
  CHECK(interpreted("x % 2.0", ScalarType::Float64, -7.5, 0, false) == 0.5);
  CHECK(on_cpu("x % 2.0", ScalarType::Float64, -7.5, 0, false) == 0.5);
}

TEST_CASE("python meaning: int64 arithmetic of small literals does not overflow in C++'s int",
          "[tasklet_diff]") {
  // Found by the wide run (seed 7, expression 6586): `0x7fff_ffff + ((i ** 0) ** 3)` is
  // 2147483648 in CPython; C++ added the int literal 2147483647 and the int 1 in 32 bits.
  CHECK(on_cpu("0x7fff_ffff + ((i ** 0) ** 3)", ScalarType::Int64, 0.0, 2, false) == 2147483648.0);
  // python3: (2147483647 if p else 1) * 4 -> 8589934588; p + 2147483647 -> 2147483648.
  CHECK(on_cpu("(2147483647 if p else 1) * 4", ScalarType::Int64, 0.0, 0, true) == 8589934588.0);
  CHECK(on_cpu("p + 2147483647", ScalarType::Int64, 0.0, 0, true) == 2147483648.0);
  CHECK(on_cpu("-(2147483647 if p else 1) - 2", ScalarType::Int64, 0.0, 0, true) == -2147483649.0);
}
