// The CPU target of the translator: std:: math functions and OpenMP atomics.
#include "weir/codegen/code_target.h"

namespace weir::codegen {

namespace {

class CpuTarget final : public CodeTarget {
 public:
  std::string_view name() const override { return "cpu"; }
  std::string math_function(std::string_view c_name) const override { return "std::" + std::string(c_name); }
  std::string atomic_update(const std::string& target, const std::string& op, const std::string& value,
                            ScalarType type) const override {
    // `omp atomic` has no form for bool; those go through the general compare-and-swap.
    if (type == ScalarType::Bool) return {};
    return "#pragma omp atomic\n" + target + " " + op + "= " + value + ";";
  }
  std::string atomic_update_general(const std::string& target, const std::string& value,
                                    const std::string& combine, ScalarType type) const override {
    return "weir_atomic_update(&" + target + ", static_cast<" + std::string(cpp_name(type)) + ">(" + value +
           "), " + combine + ");";
  }
  std::string_view helper_specifiers() const override { return "inline"; }
};

}  // namespace

const CodeTarget& cpu_target() {
  static const CpuTarget target;
  return target;
}

}  // namespace weir::codegen
