// The one promotion table (see promotion.h for the rules and where they come from).
#include "weir/sdfg/promotion.h"

namespace weir {
namespace {

bool is_float(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::Float32 || t == ScalarType::Float64;
}
bool is_complex(ScalarType t) { return t == ScalarType::Complex64 || t == ScalarType::Complex128; }
bool is_integer(ScalarType t) {
  return !is_float(t) && !is_complex(t) && t != ScalarType::Bool && t != ScalarType::Void;
}

}  // namespace

ScalarType arithmetic_result_type(ScalarType a, ScalarType b) {
  if (is_complex(a) || is_complex(b)) return ScalarType::Complex128;
  if (a == ScalarType::Float64 || b == ScalarType::Float64) return ScalarType::Float64;
  if (is_float(a) || is_float(b)) return ScalarType::Float32;
  // A bool takes the other operand's integer type, as NumPy and C++'s promotion to int do.
  if (a == ScalarType::Bool && is_integer(b)) return b;
  if (b == ScalarType::Bool && is_integer(a)) return a;
  if (a == b && is_integer(a)) return a;
  return ScalarType::Int64;
}

}  // namespace weir
