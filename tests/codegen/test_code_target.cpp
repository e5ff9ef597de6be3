// The translator's target seam: one walk over the syntax tree, spellings from the target. A test
// target (device-style math names, a counting atomic) must change exactly those spellings.
#include <catch2/catch.hpp>

#include <string>

#include "weir/codegen/code_target.h"
#include "weir/codegen/python_to_cpp.h"

using namespace weir;
using namespace weir::codegen;

namespace {

class DeviceLikeTarget final : public CodeTarget {
 public:
  std::string_view name() const override { return "test-device"; }
  std::string math_function(std::string_view c_name) const override { return "dev_" + std::string(c_name); }
  std::string atomic_update(const std::string& target, const std::string& op, const std::string& value,
                            ScalarType) const override {
    return "dev_atomic(\"" + op + "\", &" + target + ", " + value + ");";
  }
  std::string atomic_update_general(const std::string& target, const std::string& value,
                                    const std::string& combine, ScalarType) const override {
    return "dev_cas(&" + target + ", " + value + ", " + combine + ");";
  }
  std::string_view helper_specifiers() const override { return "__device__ inline"; }
};

PyContext context(const CodeTarget& target) {
  PyContext ctx;
  ctx.vars["x"] = PyVar::value("x", ScalarType::Float64);
  ctx.vars["y"] = PyVar::value("y", ScalarType::Float64);
  ctx.target = &target;
  return ctx;
}

}  // namespace

TEST_CASE("code target: the CPU spells <cmath> functions std::", "[codegen][target]") {
  const CodeTarget& cpu = cpu_target();
  CHECK(cpu.name() == "cpu");
  PyContext ctx = context(cpu);
  CHECK(translate_python_expression("math.sqrt(x) + math.atan2(x, y)", ctx) ==
        "std::sqrt(x) + std::atan2(x, y)");
  CHECK(translate_python_expression("abs(x)", ctx) == "std::abs(x)");
  CHECK(cpu.atomic_update("A[i]", "+", "v", ScalarType::Float64) == "#pragma omp atomic\nA[i] += v;");
  CHECK(cpu.atomic_update("A[i]", "|", "v", ScalarType::Bool).empty());  // no omp atomic for bool
  CHECK(cpu.helper_specifiers() == "inline");
}

TEST_CASE("code target: another target changes only its spellings", "[codegen][target]") {
  DeviceLikeTarget dev;
  PyContext ctx = context(dev);
  CHECK(translate_python_expression("math.sqrt(x) + math.atan2(x, y)", ctx) ==
        "dev_sqrt(x) + dev_atan2(x, y)");
  CHECK(translate_python_expression("math.floor(x)", ctx) == "weir_ftoi<int64_t>(dev_floor(x))");
  CHECK(translate_python_expression("x ** y", ctx) == "dev_pow(x, y)");
  // What is not a target's spelling stays: operators, Python's min/max helpers.
  CHECK(translate_python_expression("min(x, y) * 2.0", ctx) == "weir_min(x, y) * 2.0");
  // The statements of a code block translate from its cached tree with the same target.
  CodeBlock code{"__out = math.exp(x)", Language::Python};
  ctx.vars["__out"] = PyVar::value("__out", ScalarType::Float64);
  ctx.vars["__out"].writable = true;
  auto lines = translate_statements(code, ctx);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "__out = dev_exp(x);");
}
