// Allocator: where a backend puts its arrays (device and alignment), and the only way to create
// a Field with a buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "weir/runtime/field.h"
#include "weir/sdfg/types.h"

namespace weir::runtime {

/// Byte alignment of every buffer the default allocators return (a cache line, and enough for
/// AVX-512 loads).
inline constexpr std::size_t kDefaultAlignment = 64;

/// Allocates Fields on one device with one alignment. Only DeviceType::CPU exists so far; GPU
/// allocators come with the CUDA backend.
class Allocator {
 public:
  /// Throws BackendError for DeviceType::GPU (not supported yet) and for an alignment that is
  /// not a power of two of at least alignof(std::max_align_t).
  explicit Allocator(DeviceType device = DeviceType::CPU, std::size_t alignment = kDefaultAlignment);

  DeviceType device() const { return device_; }
  /// Byte alignment of every buffer.
  std::size_t alignment() const { return alignment_; }

  /// A zero-filled C-order field of `dtype` and `shape` (elements per dimension; empty = 0-d).
  /// Throws ArgumentError naming shape and bytes for a negative extent, a dtype without a size
  /// (void), a size that overflows, past machine_memory(), or when memory runs out.
  Field allocate(ScalarType dtype, std::vector<std::int64_t> shape) const;

  /// The process-wide CPU allocator with 64-byte alignment.
  static const Allocator& cpu();

 private:
  DeviceType device_;
  std::size_t alignment_;
};

}  // namespace weir::runtime
