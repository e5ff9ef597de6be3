// The one promotion table of weir: the element type of an arithmetic result.
#pragma once

#include "weir/sdfg/types.h"

namespace weir {

/// The type of `a op b` for an arithmetic operator (`+ - * / // % **`, and the two-argument
/// math functions before any float-only result is applied). Used by tasklet code generation
/// (codegen's Python-to-C++ translation) and by orchestration functions' scalar expressions, so
/// that both compute in the same type (docs/adr/0033, "one promotion table").
///
/// NumPy's `result_type` on arrays where programs meet it, simplified where NumPy's answer needs
/// a wider table:
/// - complex64/complex128 with anything: complex128;
/// - float64 with anything: float64; float16/float32 with float16/float32, bool or any integer:
///   float32 (NumPy: float32 with int32 is float64; C++, and so DaCe's generated code, compute
///   float);
/// - bool with bool: int64 (Python's `True + True == 2`);
/// - bool with an integer type: that integer type (NumPy; C++ computes int32 and narrower ones
///   in int, and the result is stored back in that type);
/// - one integer type with itself: that type; two different integer types: int64 (NumPy: the
///   narrowest type holding both, float64 for uint64 with a signed type);
/// - void (an unknown type) with anything but a float or complex: int64.
/// Symmetric: `arithmetic_result_type(a, b) == arithmetic_result_type(b, a)`. Never throws.
ScalarType arithmetic_result_type(ScalarType a, ScalarType b);

}  // namespace weir
