// The CUDA target of the translator: std:: math functions (device overloads) and CUDA atomics.
#include "weir/codegen/code_target.h"

namespace weir::codegen {

namespace {

class CudaTarget final : public CodeTarget {
 public:
  std::string_view name() const override { return "cuda"; }
  std::string math_function(std::string_view c_name) const override { return "std::" + std::string(c_name); }
  std::string atomic_update(const std::string& target, const std::string& op, const std::string& value,
                            ScalarType type) const override {
    // atomicAdd exists for these; int64 and the other operators go through compare-and-swap.
    bool add = op == "+" && (type == ScalarType::Float64 || type == ScalarType::Float32 ||
                             type == ScalarType::Int32 || type == ScalarType::UInt32);
    if (!add) return {};
    return "atomicAdd(&" + target + ", static_cast<" + std::string(cpp_name(type)) + ">(" + value + "));";
  }
  std::string atomic_update_general(const std::string& target, const std::string& value,
                                    const std::string& combine, ScalarType type) const override {
    return "weir_atomic_update(&" + target + ", static_cast<" + std::string(cpp_name(type)) + ">(" + value +
           "), " + combine + ");";
  }
  std::string_view helper_specifiers() const override { return "inline __host__ __device__"; }
};

}  // namespace

const CodeTarget& cuda_target() {
  static const CudaTarget target;
  return target;
}

}  // namespace weir::codegen
