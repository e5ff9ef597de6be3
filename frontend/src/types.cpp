// Types of the field-view language.
#include "weir/frontend/types.h"

#include <algorithm>
#include <array>

namespace weir::frontend {

namespace {
constexpr std::array<std::string_view, 11> kScalarNames = {
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"};
}  // namespace

std::string_view to_string(ScalarKind kind) { return kScalarNames[static_cast<std::size_t>(kind)]; }

std::optional<ScalarKind> scalar_kind_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kScalarNames.size(); ++i)
    if (kScalarNames[i] == name) return static_cast<ScalarKind>(i);
  if (name == "float") return ScalarKind::Float64;
  if (name == "int") return ScalarKind::Int64;
  if (name == "IndexType") return ScalarKind::Int32;
  return std::nullopt;
}

bool is_integral(ScalarKind k) { return k != ScalarKind::Bool && !is_floating(k); }
bool is_floating(ScalarKind k) { return k == ScalarKind::Float32 || k == ScalarKind::Float64; }
bool is_numeric(ScalarKind k) { return k != ScalarKind::Bool; }

std::string_view to_string(DimensionKind kind) {
  switch (kind) {
    case DimensionKind::Horizontal: return "HORIZONTAL";
    case DimensionKind::Local: return "LOCAL";
    case DimensionKind::Vertical: return "VERTICAL";
  }
  return "?";
}

namespace {
constexpr std::string_view kStaggeredPrefix = "_Staggered";
}  // namespace

bool is_staggered(const Dimension& d) { return d.name.rfind(kStaggeredPrefix, 0) == 0; }

Dimension flip_staggered(const Dimension& d) {
  if (is_staggered(d)) return Dimension{d.name.substr(kStaggeredPrefix.size()), d.kind};
  return Dimension{std::string(kStaggeredPrefix) + d.name, d.kind};
}

std::vector<Dimension> canonical_dims(const std::vector<Dimension>& dims) {
  std::vector<Dimension> out;
  for (const Dimension& d : dims)
    if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  std::stable_sort(out.begin(), out.end(), [](const Dimension& a, const Dimension& b) {
    return static_cast<int>(a.kind) < static_cast<int>(b.kind);
  });
  return out;
}

std::vector<Dimension> union_dims(const std::vector<Dimension>& a, const std::vector<Dimension>& b) {
  // Both operands' relative orders are kept, as gt4py promotes dimensions: [J] with [I, J, K]
  // is [I, J, K], not [J, I, K]. A dimension of `b` missing from `a` goes right before the first
  // dimension already merged that `b` lists after it.
  std::vector<Dimension> all = a;
  for (auto d = b.begin(); d != b.end(); ++d) {
    if (std::find(all.begin(), all.end(), *d) != all.end()) continue;
    auto at = std::find_if(all.begin(), all.end(),
                           [&](const Dimension& x) { return std::find(d + 1, b.end(), x) != b.end(); });
    all.insert(at, *d);
  }
  return canonical_dims(all);
}

std::string clashing_dimension_names(const std::vector<Dimension>& dims) {
  for (std::size_t i = 0; i < dims.size(); ++i)
    for (std::size_t j = i + 1; j < dims.size(); ++j) {
      if (dims[i].name != dims[j].name) continue;
      if (dims[i] == dims[j]) return "'" + dims[i].name + "' appears twice";
      return "'" + dims[i].name + "' is both a " + std::string(to_string(dims[i].kind)) + " and a " +
             std::string(to_string(dims[j].kind)) + " dimension";
    }
  return "";
}

Type Type::scalar(ScalarKind k) {
  Type t;
  t.kind = Kind::Scalar;
  t.dtype = k;
  return t;
}

Type Type::field(const std::vector<Dimension>& dims, ScalarKind k) {
  if (dims.empty()) return scalar(k);
  Type t;
  t.kind = Kind::Field;
  t.dtype = k;
  t.dims = canonical_dims(dims);
  return t;
}

Type Type::tuple(std::vector<Type> elements) {
  Type t;
  t.kind = Kind::Tuple;
  t.elements = std::move(elements);
  return t;
}

Type Type::dimension(Dimension d) {
  Type t;
  t.kind = Kind::Dimension;
  t.dims = {std::move(d)};
  return t;
}

Type Type::offset_type(FieldOffset o) {
  Type t;
  t.kind = Kind::Offset;
  t.offset = std::move(o);
  return t;
}

Type Type::domain(const std::vector<Dimension>& dims) {
  Type t;
  t.kind = Kind::Domain;
  t.dims = canonical_dims(dims);
  return t;
}

bool Type::is_value() const {
  if (is_data()) return true;
  if (!is_tuple()) return false;
  return std::all_of(elements.begin(), elements.end(), [](const Type& e) { return e.is_value(); });
}

bool Type::has_dim(const Dimension& d) const { return std::find(dims.begin(), dims.end(), d) != dims.end(); }

bool operator==(const Type& a, const Type& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Type::Kind::None: return true;
    case Type::Kind::Scalar: return a.dtype == b.dtype;
    case Type::Kind::Field: return a.dtype == b.dtype && a.dims == b.dims;
    case Type::Kind::Tuple:
      return a.elements == b.elements && a.collection == b.collection && a.names == b.names;
    case Type::Kind::Dimension:
    case Type::Kind::Domain: return a.dims == b.dims;
    case Type::Kind::Offset: return a.offset == b.offset;
  }
  return false;
}

namespace {
std::string dim_list(const std::vector<Dimension>& dims) {
  std::string s;
  for (const Dimension& d : dims) {
    if (!s.empty()) s += ", ";
    s += d.name;
  }
  return s;
}
}  // namespace

std::string to_string(const Type& t) {
  switch (t.kind) {
    case Type::Kind::None: return "None";
    case Type::Kind::Scalar: return std::string(to_string(t.dtype));
    case Type::Kind::Field:
      return "Field[[" + dim_list(t.dims) + "], " + std::string(to_string(t.dtype)) + "]";
    case Type::Kind::Tuple: {
      if (!t.collection.empty()) {
        std::string s = t.collection + "(";
        for (std::size_t i = 0; i < t.elements.size(); ++i)
          s += (i ? ", " : "") + (i < t.names.size() ? t.names[i] + ": " : "") + to_string(t.elements[i]);
        return s + ")";
      }
      std::string s = "tuple[";
      for (std::size_t i = 0; i < t.elements.size(); ++i) {
        if (i) s += ", ";
        s += to_string(t.elements[i]);
      }
      return s + "]";
    }
    case Type::Kind::Dimension: return "Dimension[" + dim_list(t.dims) + "]";
    case Type::Kind::Offset: return "FieldOffset[" + t.offset.name + "]";
    case Type::Kind::Domain: return "Domain[" + dim_list(t.dims) + "]";
  }
  return "?";
}

}  // namespace weir::frontend
