// Data descriptors: DaCe's Scalar, Array, View (ArrayView), Reference, Stream.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "weir/sdfg/attributes.h"
#include "weir/sdfg/symbolic.h"
#include "weir/sdfg/types.h"

namespace weir {

/// Which descriptor class; the JSON `type` is kept separately in `DataDescriptor::type_name`
/// because DaCe has several names per kind (View / ArrayView, Reference / ArrayReference).
enum class DataKind : std::uint8_t { Scalar, Array, View, Reference, Stream, Unknown };

/// Type of a data container element or connector: a scalar type, or a pointer to one
/// (`{"type": "pointer", "dtype": "float64"}` in DaCe JSON). Anything else (structs, vectors)
/// is kept as raw JSON text in `raw_json` and its `base` is Void.
struct DataType {
  ScalarType base = ScalarType::Float64;
  int pointer_depth = 0;
  std::string raw_json;  // non-empty only for types weir does not model
  bool operator==(const DataType&) const = default;
  static DataType scalar(ScalarType t) { return DataType{t, 0, {}}; }
  std::string str() const;  // "float64", "float64*"
};

/// A data container's descriptor. Shapes, strides and offsets are symbolic element counts;
/// `strides` are in elements (not bytes), row-major by default, as DaCe's Array.strides.
/// `offset` is DaCe's index offset per dimension (usually 0). `total_size` is the number of
/// elements allocated (>= the extent spanned by shape and strides).
struct DataDescriptor {
  DataKind kind = DataKind::Array;
  std::string type_name = "Array";  // JSON "type"
  DataType dtype;
  std::vector<sym::Expr> shape;  // Scalar: [1]
  std::vector<sym::Expr> strides;
  std::vector<sym::Expr> offset;
  sym::Expr total_size{1};
  sym::Expr start_offset{0};
  int alignment = 0;  // bytes; 0 = default
  bool transient = false;
  std::optional<bool> optional;  // DaCe: None = may or may not be null (unknown)
  bool may_alias = false;
  StorageType storage = StorageType::Default;
  AllocationLifetime lifetime = AllocationLifetime::Scope;
  sym::Expr buffer_size{1};  // Stream only
  UnknownAttributes extra;

  /// A scalar (shape [1]).
  static DataDescriptor make_scalar(ScalarType t, bool transient = false);
  /// A C-order array with default strides and total size.
  static DataDescriptor make_array(ScalarType t, std::vector<sym::Expr> shape, bool transient = false);
  /// Row-major strides for `shape` (last dimension contiguous).
  static std::vector<sym::Expr> row_major_strides(const std::vector<sym::Expr>& shape);
  bool is_scalar() const { return kind == DataKind::Scalar; }
  bool is_view() const { return kind == DataKind::View || kind == DataKind::Reference; }
  std::set<std::string> free_symbols() const;
  bool operator==(const DataDescriptor&) const = default;
};

}  // namespace weir
