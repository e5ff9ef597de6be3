// Values of the embedded interpreter (internal): fields over domains, tuples, and the scalar
// arithmetic on their elements.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "weir/frontend/types.h"

namespace weir::runtime::embedded {

using frontend::Dimension;
using frontend::ScalarKind;

/// Bounds of an unbounded range (broadcast dimensions); far from overflow when shifted.
inline constexpr std::int64_t kUnbounded = std::numeric_limits<std::int64_t>::max() / 4;

/// A half-open index range along one dimension; [-kUnbounded, kUnbounded) is unbounded.
struct Range {
  std::int64_t lo = 0, hi = 0;
  static Range unbounded() { return {-kUnbounded, kUnbounded}; }
  bool is_unbounded() const { return lo <= -kUnbounded && hi >= kUnbounded; }
  std::int64_t size() const { return hi > lo ? hi - lo : 0; }
  bool contains(std::int64_t i) const { return lo <= i && i < hi; }
  /// "[0, 10)" or "unbounded".
  std::string str() const;
};

/// One element. The field's dtype says which member is meaningful: `f` for floats (float32
/// values are kept rounded to float), `i` for signed integers and bool (0/1), `u` for unsigned.
union Num {
  double f;
  std::int64_t i;
  std::uint64_t u;
};

/// A field: values over a domain (dims in canonical order, one range each). Elements live in
/// `data` at base + sum_d (index_d - lo_d) * strides_d; unbounded dimensions have stride 0.
/// `valid` (when set) marks each value: kDefined, or undefined (a gather met a -1 table entry
/// or read outside a field) with the cause Evaluator::cause() names (kUnknownCause: none).
/// Shifts and local indexing share data with the field they came from.
struct FieldVal {
  ScalarKind dtype = ScalarKind::Float64;
  std::vector<Dimension> dims;
  std::vector<Range> ranges;
  std::vector<std::int64_t> strides;
  std::int64_t base = 0;
  std::shared_ptr<std::vector<Num>> data;
  std::shared_ptr<std::vector<std::uint32_t>> valid;

  /// Marks in `valid`: a defined value, an undefined one without a recorded cause; any other
  /// mark k is undefined because of the evaluator's cause k (Evaluator::cause).
  static constexpr std::uint32_t kDefined = 1, kUnknownCause = 0;

  /// A field over `dims`/`ranges`, zero-filled, row-major over its bounded dimensions.
  static FieldVal allocate(ScalarKind dtype, std::vector<Dimension> dims, std::vector<Range> ranges,
                           bool with_valid = false);
  /// A 0-dimensional field holding `v`.
  static FieldVal scalar(ScalarKind dtype, Num v);

  bool is_scalar() const { return dims.empty(); }
  /// Position of `d` in dims, or -1.
  int find(const Dimension& d) const;
  /// Element offset of the point `idx` (one index per dim).
  std::int64_t offset(const std::vector<std::int64_t>& idx) const;
  bool is_valid(std::int64_t off) const { return mark(off) == kDefined; }
  /// The mark of the value at `off` (kDefined without a mask).
  std::uint32_t mark(std::int64_t off) const {
    return valid ? (*valid)[static_cast<std::size_t>(off)] : kDefined;
  }
  /// Marks the value at `off` undefined with `why` (another value's mark, or a new cause).
  void set_undefined(std::int64_t off, std::uint32_t why) {
    (*valid)[static_cast<std::size_t>(off)] = why == kDefined ? kUnknownCause : why;
  }
  /// "float64 over (I: [0, 10), J: unbounded)".
  std::string describe() const;
};

/// A value: a field (scalars included) or a tuple of values.
struct Value {
  bool is_tuple = false;
  FieldVal field;
  std::vector<Value> elements;

  static Value of(FieldVal f) {
    Value v;
    v.field = std::move(f);
    return v;
  }
  static Value tuple(std::vector<Value> e) {
    Value v;
    v.is_tuple = true;
    v.elements = std::move(e);
    return v;
  }
};

/// The fields of `v` in order (depth first); `v` must outlive the pointers.
void flatten(const Value& v, std::vector<const FieldVal*>& out);

// ----------------------------------------------------------------------------- scalar arithmetic

enum class NumClass { Float, Signed, Unsigned, Bool };
NumClass num_class(ScalarKind k);
/// `v` brought into the range of `k` (integers wrap to their width, float32 rounds).
Num normalize(ScalarKind k, Num v);
/// `d` in dtype `k`; a float to an integer type as NumPy converts on x86 (float_to_int_bits).
Num from_double(ScalarKind k, double d);
/// The integer dtype `k`'s value of the float `x` as NumPy converts on x86, as 64 bits (two's
/// complement; normalize() wraps it to `k`'s width): NaN, +-inf and values outside int32/int64
/// give the minimum; int8/int16/uint8/uint16 wrap the int32 value; uint32/uint64 (N bits) take
/// x - 2**(N-1) as a signed value plus 2**(N-1) from 2**(N-1) on. The cpu backend's prelude
/// (weir_ftoi) computes the same.
std::uint64_t float_to_int_bits(ScalarKind k, double x);
Num from_int(ScalarKind k, std::int64_t i);
double to_double(ScalarKind k, Num v);
/// Converts between dtypes as astype does (NumPy's values; floats to integers: from_double).
Num convert(ScalarKind from, ScalarKind to, Num v);
bool truthy(ScalarKind k, Num v);

// ----------------------------------------------------------------------------- whole fields

/// Element-wise `fn` over `ins` (see embedded.h: dimensions are united, ranges intersected).
/// `fn` gets one element per input and returns the result's element (of dtype `out`).
FieldVal elementwise(const std::vector<const FieldVal*>& ins, ScalarKind out,
                     const std::function<Num(const Num*)>& fn);

/// Calls `fn(idx, out_offset)` for every point of `f`'s bounded dimensions (unbounded ones are
/// passed as index 0 and have stride 0), in row-major order.
void for_each_point(const FieldVal& f,
                    const std::function<void(const std::vector<std::int64_t>&, std::int64_t)>& fn);

}  // namespace weir::runtime::embedded
