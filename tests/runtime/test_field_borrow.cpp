// Field::borrow: a field over a caller's buffer (the Python module's zero-copy arguments), run by
// a program that writes its results into that buffer.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "weir/runtime/allocator.h"
#include "weir/runtime/arguments.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/field.h"

using namespace weir::runtime;
using weir::ScalarType;

TEST_CASE("Field::borrow views the caller's buffer without owning or copying it") {
  std::vector<double> buffer(12, 1.5);
  Field f = Field::borrow(buffer.data(), ScalarType::Float64, {3, 4});
  CHECK(f.data() == buffer.data());
  CHECK_FALSE(f.owns_data());
  CHECK(f.shape() == std::vector<std::int64_t>{3, 4});
  CHECK(f.strides() == std::vector<std::int64_t>{4, 1});
  CHECK(f.size() == 12);
  CHECK(f.nbytes() == 96);
  CHECK(f.alignment() >= alignof(double));
  CHECK(f.alignment() % alignof(double) == 0);
  // Moving keeps the view; writes through it land in the buffer.
  Field g = std::move(f);
  static_cast<double*>(g.data())[5] = 7.0;
  CHECK(buffer[5] == 7.0);
  // A clone owns a copy.
  Field c = g.clone();
  CHECK(c.owns_data());
  CHECK(c.data() != buffer.data());
  CHECK(c.value_as_double(5) == 7.0);
  CHECK(c.alignment() >= kDefaultAlignment);
}

TEST_CASE("Field::borrow refuses a null address, a negative extent and a dtype without a size") {
  double x = 0;
  CHECK_THROWS_AS(Field::borrow(nullptr, ScalarType::Float64, {2}), ArgumentError);
  CHECK_THROWS_WITH(Field::borrow(&x, ScalarType::Float64, {-1}),
                    Catch::Contains("cannot borrow an array of shape (-1,): negative extent"));
  CHECK_THROWS_AS(Field::borrow(&x, ScalarType::Void, {1}), ArgumentError);
  // An extent 0 does not hide the others: NumPy refuses np.empty((0, 888888888888888882, 3, 8),
  // 'f4') ("array is too big"), since 888888888888888882 * 3 * 8 * 4 bytes overflows int64 (and
  // so would the row-major strides, which count an extent 0 as 1); it accepts (0, 2**40, 3).
  CHECK_THROWS_WITH(
      Field::borrow(&x, ScalarType::Float32, {0, 888888888888888882, 3, 8}),
      Catch::Contains("cannot borrow an array of shape (0, 888888888888888882, 3, 8): size overflows"));
  CHECK_THROWS_WITH(
      Allocator::cpu().allocate(ScalarType::Float32, {0, 888888888888888882, 3, 8}),
      Catch::Contains("cannot allocate an array of shape (0, 888888888888888882, 3, 8): size overflows"));
  Field e = Allocator::cpu().allocate(ScalarType::Float32, {0, std::int64_t{1} << 40, 3});
  CHECK(e.size() == 0);
  CHECK(e.nbytes() == 0);
  CHECK(e.strides() == std::vector<std::int64_t>{(std::int64_t{1} << 40) * 3, 3, 1});
  // A 0-d field views one value.
  Field s = Field::borrow(&x, ScalarType::Float64, {});
  CHECK(s.size() == 1);
  CHECK(s.ndim() == 0);
}

TEST_CASE("an allocator's fields still own their buffers") {
  Field f = Allocator::cpu().allocate(ScalarType::Int32, {2, 2});
  CHECK(f.owns_data());
  CHECK_FALSE(Field().owns_data());
}
