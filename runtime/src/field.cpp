#include "weir/runtime/field.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>

#include "sha256.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/byte_size.h"
#include "weir/runtime/errors.h"

namespace weir::runtime {

void Field::Free::operator()(std::byte* p) const noexcept { std::free(p); }

Field::Field() = default;
Field::Field(Field&&) noexcept = default;
Field& Field::operator=(Field&&) noexcept = default;
Field::~Field() = default;

namespace {

// Elements of `shape` (1 for a 0-d field); ArgumentError for a negative extent, a dtype without
// a size or a byte size that overflows.
std::int64_t element_count(ScalarType dtype, const std::vector<std::int64_t>& shape, const char* what) {
  std::size_t item = size_of(dtype);
  if (item == 0)
    throw ArgumentError(std::string("cannot ") + what + " an array of " + std::string(to_string(dtype)));
  // As NumPy ("array is too big"): the product of the nonzero extents must fit too, even when
  // another extent is 0, since row-major strides multiply them (an extent 0 counts as 1).
  std::int64_t nonzero = 1;
  bool empty = false;
  for (auto e : shape) {
    if (e < 0)
      throw ArgumentError(std::string("cannot ") + what + " an array of shape " + shape_str(shape) +
                          ": negative extent");
    if (e == 0) {
      empty = true;
      continue;
    }
    if (nonzero > std::numeric_limits<std::int64_t>::max() / e / static_cast<std::int64_t>(item))
      throw ArgumentError(std::string("cannot ") + what + " an array of shape " + shape_str(shape) +
                          ": size overflows");
    nonzero *= e;
  }
  return empty ? 0 : nonzero;
}

}  // namespace

Field Field::borrow(void* data, ScalarType dtype, std::vector<std::int64_t> shape, DeviceType device) {
  if (!data) throw ArgumentError("cannot borrow an array at a null address");
  Field f;
  f.size_ = element_count(dtype, shape, "borrow");
  f.data_ = data;
  f.dtype_ = dtype;
  f.strides_ = row_major_strides(shape);
  f.shape_ = std::move(shape);
  f.device_ = device;
  const auto address = reinterpret_cast<std::uintptr_t>(data);
  f.alignment_ = 1;
  while (f.alignment_ < 4096 && address % (f.alignment_ * 2) == 0) f.alignment_ *= 2;
  return f;
}

Field Field::clone() const {
  if (!data_) return Field();
  Field f = Allocator(device_, std::max(alignment_, kDefaultAlignment)).allocate(dtype_, shape_);
  std::memcpy(f.data(), data(), nbytes());
  return f;
}

std::string Field::describe() const { return std::string(to_string(dtype_)) + " " + shape_str(shape_); }

std::string Field::checksum() const {
  return detail::sha256_hex(
             std::string_view(static_cast<const char*>(data_ ? data_ : ""), data_ ? nbytes() : 0))
      .substr(0, 16);
}

double Field::value_as_double(std::int64_t i) const {
  const auto* p = static_cast<const unsigned char*>(data_) + static_cast<std::size_t>(i) * itemsize();
  auto get = [p]<class T>(T) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
  };
  switch (dtype_) {
    case ScalarType::Bool: return *p ? 1.0 : 0.0;
    case ScalarType::Int8: return get(std::int8_t{});
    case ScalarType::Int16: return get(std::int16_t{});
    case ScalarType::Int32: return get(std::int32_t{});
    case ScalarType::Int64: return get(std::int64_t{});
    case ScalarType::UInt8: return get(std::uint8_t{});
    case ScalarType::UInt16: return get(std::uint16_t{});
    case ScalarType::UInt32: return get(std::uint32_t{});
    case ScalarType::UInt64: return get(std::uint64_t{});
    case ScalarType::Float16: {
      // IEEE binary16: 1 sign, 5 exponent, 10 fraction bits.
      std::uint16_t h;
      std::memcpy(&h, p, sizeof h);
      const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
      double v =
          e == 0    ? std::ldexp(m, -24)
          : e == 31 ? (m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity())
                    : std::ldexp(m + 1024, e - 25);
      return (h & 0x8000) ? -v : v;
    }
    case ScalarType::Float32: return get(float{});
    case ScalarType::Float64: return get(double{});
    default: throw RuntimeError("value_as_double: unsupported dtype " + std::string(to_string(dtype_)));
  }
}

std::string shape_str(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

std::vector<std::int64_t> row_major_strides(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> st(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) st[i - 1] = st[i] * std::max<std::int64_t>(shape[i], 1);
  return st;
}

// --- Allocator ------------------------------------------------------------------------------

Allocator::Allocator(DeviceType device, std::size_t alignment) : device_(device), alignment_(alignment) {
  if (device != DeviceType::CPU)
    throw BackendError("allocator for device " + std::string(to_string(device)) +
                       ": only CPU memory is supported so far (GPU comes with the CUDA backend)");
  if (alignment < alignof(std::max_align_t) || (alignment & (alignment - 1)) != 0)
    throw BackendError("allocator alignment " + std::to_string(alignment) +
                       " bytes: must be a power of two >= " + std::to_string(alignof(std::max_align_t)));
}

Field Allocator::allocate(ScalarType dtype, std::vector<std::int64_t> shape) const {
  std::size_t item = size_of(dtype);
  std::int64_t n = element_count(dtype, shape, "allocate");
  std::size_t bytes = static_cast<std::size_t>(n) * item;
  std::size_t rounded = (bytes + alignment_ - 1) / alignment_ * alignment_;
  if (rounded == 0) rounded = alignment_;
  // Refused before trying: past RAM and swap, an allocation Linux overcommits is only found out
  // by the kernel's OOM killer while it is zero-filled.
  auto need = [&] {
    return "shape " + shape_str(shape) + " of " + std::string(to_string(dtype)) + " needs " +
           byte_size(static_cast<long double>(bytes));
  };
  const long double memory = bytes > (std::size_t{1} << 30) ? machine_memory() : 0;  // one syscall
  if (memory > 0 && static_cast<long double>(bytes) > memory)
    throw ArgumentError(need() + ", more than this machine's memory (" + byte_size(memory) + ")");
  auto* p = static_cast<std::byte*>(std::aligned_alloc(alignment_, rounded));
  if (!p) throw ArgumentError(need() + ", which cannot be allocated (out of memory)");
  std::memset(p, 0, rounded);
  Field f;
  f.buffer_.reset(p);
  f.data_ = p;
  f.dtype_ = dtype;
  f.strides_ = row_major_strides(shape);
  f.shape_ = std::move(shape);
  f.size_ = n;
  f.device_ = device_;
  f.alignment_ = alignment_;
  return f;
}

const Allocator& Allocator::cpu() {
  static const Allocator a(DeviceType::CPU, kDefaultAlignment);
  return a;
}

}  // namespace weir::runtime
