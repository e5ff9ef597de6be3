// weir's one promotion table (weir/sdfg/promotion.h), against NumPy's result_type worked out by
// hand for the pairs where the table follows NumPy, and the documented simplifications.
#include <catch2/catch.hpp>

#include <vector>

#include "weir/sdfg/promotion.h"

using namespace weir;

TEST_CASE("promotion: the arithmetic result type follows NumPy where programs meet it", "[sdfg][promotion]") {
  using T = ScalarType;
  // np.result_type(np.bool_, np.int32) == int32, (np.bool_, np.uint8) == uint8, ...
  CHECK(arithmetic_result_type(T::Bool, T::Int32) == T::Int32);
  CHECK(arithmetic_result_type(T::UInt8, T::Bool) == T::UInt8);
  CHECK(arithmetic_result_type(T::Bool, T::Int64) == T::Int64);
  CHECK(arithmetic_result_type(T::Int32, T::Int32) == T::Int32);
  CHECK(arithmetic_result_type(T::Int32, T::Int64) == T::Int64);
  CHECK(arithmetic_result_type(T::Float32, T::Float32) == T::Float32);
  CHECK(arithmetic_result_type(T::Float32, T::Float64) == T::Float64);
  CHECK(arithmetic_result_type(T::Int64, T::Float64) == T::Float64);
  CHECK(arithmetic_result_type(T::Bool, T::Float32) == T::Float32);
  CHECK(arithmetic_result_type(T::Complex64, T::Float64) == T::Complex128);
}

TEST_CASE("promotion: the simplifications the table documents", "[sdfg][promotion]") {
  using T = ScalarType;
  CHECK(arithmetic_result_type(T::Bool, T::Bool) == T::Int64);        // Python: True + True == 2
  CHECK(arithmetic_result_type(T::Int8, T::Int16) == T::Int64);       // NumPy: int16
  CHECK(arithmetic_result_type(T::UInt64, T::Int64) == T::Int64);     // NumPy: float64
  CHECK(arithmetic_result_type(T::Float32, T::Int32) == T::Float32);  // NumPy: float64; C++: float
  CHECK(arithmetic_result_type(T::Float16, T::Float16) == T::Float32);
  CHECK(arithmetic_result_type(T::Complex64, T::Complex64) == T::Complex128);
  CHECK(arithmetic_result_type(T::Void, T::Int32) == T::Int64);
  CHECK(arithmetic_result_type(T::Void, T::Float32) == T::Float32);
}

TEST_CASE("promotion: the table is symmetric", "[sdfg][promotion]") {
  const std::vector<ScalarType> all = {ScalarType::Bool,      ScalarType::Int8,       ScalarType::Int16,
                                       ScalarType::Int32,     ScalarType::Int64,      ScalarType::UInt8,
                                       ScalarType::UInt16,    ScalarType::UInt32,     ScalarType::UInt64,
                                       ScalarType::Float16,   ScalarType::Float32,    ScalarType::Float64,
                                       ScalarType::Complex64, ScalarType::Complex128, ScalarType::Void};
  for (ScalarType a : all)
    for (ScalarType b : all) {
      CAPTURE(to_string(a), to_string(b));
      CHECK(arithmetic_result_type(a, b) == arithmetic_result_type(b, a));
    }
}
