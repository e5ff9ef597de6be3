// Field: a small owning n-dimensional array (dtype, shape, strides, aligned buffer), the value
// type of array arguments, .npy files and program outputs in the runtime layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "weir/sdfg/types.h"

namespace weir::runtime {

/// A dense C-order (row-major) n-d array that owns its buffer. Shape and strides are counted in
/// elements (not bytes), as SDFG descriptors count them; a 0-d field (shape ()) holds one value.
/// The buffer is aligned to the allocator's alignment (64 bytes by default) and zero-filled on
/// allocation. Fields are created by an Allocator (Allocator::allocate) or read from .npy
/// files; they are movable, not copyable (clone() copies explicitly). Field::borrow() makes a
/// field over memory someone else owns (a NumPy array passed to a program without a copy).
class Field {
 public:
  /// An empty field: no buffer, float64, shape (0,).
  Field();
  Field(Field&&) noexcept;
  Field& operator=(Field&&) noexcept;
  Field(const Field&) = delete;
  Field& operator=(const Field&) = delete;
  ~Field();

  ScalarType dtype() const { return dtype_; }
  /// Extent per dimension, in elements.
  const std::vector<std::int64_t>& shape() const { return shape_; }
  /// Distance between consecutive indices per dimension, in elements (row-major).
  const std::vector<std::int64_t>& strides() const { return strides_; }
  std::size_t ndim() const { return shape_.size(); }
  /// Number of elements (product of the shape; 1 for a 0-d field).
  std::int64_t size() const { return size_; }
  /// Bytes of one element.
  std::size_t itemsize() const { return size_of(dtype_); }
  /// Bytes of all elements (size() * itemsize()).
  std::size_t nbytes() const { return static_cast<std::size_t>(size_) * itemsize(); }
  /// The first element; never null for an allocated field (also when size() is 0).
  void* data() { return data_; }
  const void* data() const { return data_; }
  DeviceType device() const { return device_; }
  /// Alignment of data() in bytes.
  std::size_t alignment() const { return alignment_; }

  /// A C-order field over `data`, which it does not own: a caller's buffer (the Python module
  /// passes NumPy arrays this way, without copying). `data` must stay valid, and hold at least
  /// nbytes() bytes, for as long as the field or a program run with it uses it; a run writes
  /// its results there. Nothing is zero-filled; alignment() is the largest power of two (at
  /// most 4096) that divides the address. Throws ArgumentError for a null `data`, a negative
  /// extent, a dtype without a size (void) or a size that overflows.
  static Field borrow(void* data, ScalarType dtype, std::vector<std::int64_t> shape,
                      DeviceType device = DeviceType::CPU);
  /// Whether the field owns its buffer (false for Field::borrow and for an empty field).
  bool owns_data() const { return buffer_ != nullptr; }

  /// An independent copy that owns its buffer (same device and alignment; a borrowed field's
  /// copy gets at least the default alignment).
  Field clone() const;
  /// NumPy-style description, e.g. "float64 (64, 64)".
  std::string describe() const;
  /// The first 16 hex digits of the SHA-256 of the raw element bytes: equal for equal dtype,
  /// shape order and bits (a quick "same result?" check, printed by `weir run`).
  std::string checksum() const;
  /// Element `i` (flat C-order index, 0 <= i < size()) converted to double; booleans are 0/1.
  double value_as_double(std::int64_t i) const;

 private:
  friend class Allocator;
  struct Free {
    void operator()(std::byte* p) const noexcept;
  };
  std::unique_ptr<std::byte, Free> buffer_;
  void* data_ = nullptr;
  ScalarType dtype_ = ScalarType::Float64;
  std::vector<std::int64_t> shape_{0};
  std::vector<std::int64_t> strides_{1};
  std::int64_t size_ = 0;
  DeviceType device_ = DeviceType::CPU;
  std::size_t alignment_ = 0;
};

/// NumPy's spelling of a shape: "(64, 64)", "(5,)" for one dimension, "()" for none.
std::string shape_str(const std::vector<std::int64_t>& shape);
/// Row-major strides (in elements) for `shape`.
std::vector<std::int64_t> row_major_strides(const std::vector<std::int64_t>& shape);

}  // namespace weir::runtime
