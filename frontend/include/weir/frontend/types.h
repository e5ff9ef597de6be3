// Types of the field-view language: scalar dtypes, dimensions, fields, tuples, offsets.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weir::frontend {

/// Scalar dtypes. Python `int` is Int64, `float` Float64, gt4py's `IndexType` Int32.
enum class ScalarKind { Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Float32, Float64 };

/// "float64", "int32", "bool", ...
std::string_view to_string(ScalarKind kind);
/// The dtype named `name` ("float64", "int32", "float" -> Float64, "int" -> Int64,
/// "IndexType" -> Int32, "bool"); nullopt for anything else.
std::optional<ScalarKind> scalar_kind_from_name(std::string_view name);
bool is_integral(ScalarKind kind);  ///< signed or unsigned integers (not bool)
bool is_floating(ScalarKind kind);  ///< float32, float64
bool is_numeric(ScalarKind kind);   ///< integral or floating

/// gt4py's DimensionKind. Canonical order of dimensions in a field: horizontal, local, vertical.
enum class DimensionKind { Horizontal, Local, Vertical };
std::string_view to_string(DimensionKind kind);  ///< "HORIZONTAL", "LOCAL", "VERTICAL"

/// A dimension: `Dimension("K", kind=DimensionKind.VERTICAL)`. Identified by its value name.
struct Dimension {
  std::string name;
  DimensionKind kind = DimensionKind::Horizontal;
  friend bool operator==(const Dimension& a, const Dimension& b) {
    return a.name == b.name && a.kind == b.kind;
  }
};

/// Whether `d` is a staggered dimension (gt4py.next.common: its name starts with `_Staggered`).
bool is_staggered(const Dimension& d);
/// gt4py's `flip_staggered(d)`: the staggered partner of `d` (`IDim` <-> `_StaggeredIDim`), of
/// the same kind. `IDim + 0.5` shifts a field over the partner of IDim to one over IDim.
Dimension flip_staggered(const Dimension& d);

/// Sorts dimensions into canonical order (stable by kind: horizontal, local, vertical) and drops
/// duplicates.
std::vector<Dimension> canonical_dims(const std::vector<Dimension>& dims);
/// The union of two dimension lists in canonical order; within a kind both lists' relative
/// orders are kept where they agree (gt4py's promotion: [J] and [I, J] give [I, J]), else `a`'s.
std::vector<Dimension> union_dims(const std::vector<Dimension>& a, const std::vector<Dimension>& b);
/// "" when the names of `dims` are distinct, else why not: "'K' is both a HORIZONTAL and a
/// VERTICAL dimension" (two Dimension('K') of different kinds), "'K' appears twice". A field's
/// dimensions are named by their names everywhere below the type checker (map parameters, sizes).
std::string clashing_dimension_names(const std::vector<Dimension>& dims);

/// A `FieldOffset(name, source=S, target=(T...))`. Cartesian when it has one target (which is
/// usually the source), unstructured (a connectivity) when the targets are (from-dim, local-dim).
struct FieldOffset {
  std::string name;
  Dimension source;
  std::vector<Dimension> targets;
  bool cartesian() const { return targets.size() == 1; }
  friend bool operator==(const FieldOffset& a, const FieldOffset& b) {
    return a.name == b.name && a.source == b.source && a.targets == b.targets;
  }
};

/// A type of the field-view language. A small value type; which members are meaningful depends
/// on `kind`:
///   Scalar: dtype.  Field: dims (canonical order, at least one) and dtype.
///   Tuple: elements.  Dimension: dims[0].  Offset: offset.  Domain: dims (a domain condition
///   such as `KDim > 0`).  None: the type of a statement or a program's return.
struct Type {
  enum class Kind { None, Scalar, Field, Tuple, Dimension, Offset, Domain };
  Kind kind = Kind::None;
  ScalarKind dtype = ScalarKind::Float64;
  std::vector<Dimension> dims;
  std::vector<Type> elements;
  FieldOffset offset;
  /// Tuple: for a named collection (a `NamedTuple` or dataclass of fields and scalars, gt4py's
  /// named collections) its class name and the names of its elements; empty for a plain tuple.
  std::string collection;
  std::vector<std::string> names;
  /// Scalar: written `Field[Dims[()], T]` (gt4py's 0-d field). It computes as a scalar, but a
  /// program parameter of this type may be an `out=` target: the SDFG then holds it as an array
  /// of one element (shape (1,), as DaCe holds 0-d arrays) and callers pass a 0-d array.
  /// Not part of equality.
  bool zero_dim = false;

  static Type none() { return Type{}; }
  static Type scalar(ScalarKind k);
  /// A field over `dims` (put into canonical order); a scalar when dims is empty.
  static Type field(const std::vector<Dimension>& dims, ScalarKind k);
  static Type tuple(std::vector<Type> elements);
  static Type dimension(Dimension d);
  static Type offset_type(FieldOffset o);
  static Type domain(const std::vector<Dimension>& dims);

  bool is_scalar() const { return kind == Kind::Scalar; }
  bool is_field() const { return kind == Kind::Field; }
  bool is_tuple() const { return kind == Kind::Tuple; }
  /// A scalar or a field (something arithmetic applies to).
  bool is_data() const { return kind == Kind::Scalar || kind == Kind::Field; }
  /// A scalar, a field, or a (nested) tuple of them.
  bool is_value() const;
  /// The field's dims; empty for a scalar.
  const std::vector<Dimension>& data_dims() const { return dims; }
  bool has_dim(const Dimension& d) const;

  friend bool operator==(const Type& a, const Type& b);
};

/// gt4py-like spelling: `float64`, `Field[[I, J], float64]`, `tuple[float64, Field[[K], int32]]`,
/// `Dimension[K]`, `FieldOffset[E2V]`, `Domain[K]`; a named collection `State(u: ..., v: ...)`.
std::string to_string(const Type& type);

}  // namespace weir::frontend
