// Arguments from Python: NumPy arrays borrowed as runtime::Fields (never copied) and numbers
// (docs/adr/0042-python-api.md, "Zero copy").
#include <pybind11/numpy.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"

namespace weir::python {

using namespace weir::runtime;

std::string type_name(py::handle obj) { return py::str(py::type::of(obj).attr("__name__")); }

// "float64 array with 3 dimensions".
std::string expected_array(ScalarType t, std::size_t ndim) {
  return std::string(to_string(t)) + " array with " + std::to_string(ndim) + " dimension" +
         (ndim == 1 ? "" : "s");
}

// Borrows `obj`, which must be a NumPy array of `dtype` (or, when `table`, int32 or int64) with
// `ndim` dimensions, C-contiguous and aligned (writeable where the program writes it).
Field borrow_array(const std::string& what, py::handle obj, ScalarType dtype, std::size_t ndim, bool written,
                   bool table, Gathered& g, const std::string& name) {
  const std::string want = table ? "int32 or int64 array with 2 dimensions" : expected_array(dtype, ndim);
  if (!py::isinstance<py::array>(obj))
    throw ArgumentTypeError(what + ": expected a NumPy " + want + ", got " + type_name(obj));
  auto a = py::reinterpret_borrow<py::array>(obj);
  py::dtype dt = a.dtype();
  std::string dt_name = py::str(dt.attr("name"));
  std::optional<ScalarType> got = scalar_type_from_string(dt_name);
  bool native = dt.attr("isnative").cast<bool>();
  if (table) {
    if (got == ScalarType::Int32 || got == ScalarType::Int64) dtype = *got;
  }
  if (!got || *got != dtype || !native || static_cast<std::size_t>(a.ndim()) != ndim) {
    std::string shape = "(";
    for (py::ssize_t d = 0; d < a.ndim(); ++d) shape += (d ? ", " : "") + std::to_string(a.shape(d));
    shape += a.ndim() == 1 ? ",)" : ")";
    throw ArgumentTypeError(what + ": expected a NumPy " + want + ", got " + std::string(py::str(dt)) +
                            (native ? "" : " (not in this machine's byte order)") + " " + shape);
  }
  const int flags = a.flags();
  if (!(flags & py::array::c_style))
    throw ArgumentError(
        what + ": the array is not C-contiguous (strides " + std::string(py::str(a.attr("strides"))) +
        " bytes); weir passes arrays without copying and its compiled code takes C order: pass "
        "np.ascontiguousarray(...) (a copy), or allocate the array in C order");
  if (!(flags & py::detail::npy_api::NPY_ARRAY_ALIGNED_))
    throw ArgumentError(what + ": the array's data is not aligned to its dtype; pass a copy (np.array(...))");
  if (written && !(flags & py::detail::npy_api::NPY_ARRAY_WRITEABLE_))
    throw ArgumentError(what + ": the program writes it, but the array is read-only");
  std::vector<std::int64_t> shape;
  for (py::ssize_t d = 0; d < a.ndim(); ++d) shape.push_back(a.shape(d));
  void* data = const_cast<void*>(a.data());
  g.keep.push_back(a);
  g.buffers[name] = data;
  if (written) g.written.insert(name);
  return Field::borrow(data, dtype, std::move(shape));
}

namespace {

bool integer_type(ScalarType t) { return t >= ScalarType::Int8 && t <= ScalarType::UInt64; }
bool floating_type(ScalarType t) { return t >= ScalarType::Float16 && t <= ScalarType::Float64; }

// One rule for every scalar parameter, as gt4py checks a scalar argument's type (a Python value's
// type must be the parameter's: type_translation.from_value, type_info.is_compatible_type) with
// NumPy's safe widening of an integer to a floating-point parameter: an integer parameter takes
// an int (a NumPy integer), never a float (2.0, nan) or a bool; a bool parameter only a bool; a
// floating-point one a float or an int, never a bool. An int out of the parameter's range is
// refused where the value is converted (runtime/src/arguments.cpp). `kind`: "bool", "int" or
// "float", the Python value's kind.
void check_number_kind(const std::string& what, py::handle obj, const char* kind, ScalarType dtype) {
  const std::string k = kind;
  std::string advice;
  if (integer_type(dtype) && k != "int")
    advice = k == "bool" ? "a bool for an integer parameter; pass an int"
                         : "a float for an integer parameter; pass an int";
  else if (dtype == ScalarType::Bool && k != "bool")
    advice = "a" + std::string(k == "int" ? "n int" : " float") + " for a bool parameter; pass True or False";
  else if (floating_type(dtype) && k == "bool")
    advice = "a bool for a floating-point parameter; pass a float";
  if (advice.empty()) return;
  throw ArgumentTypeError(what + ": expected a " + std::string(to_string(dtype)) + " number, got " +
                          std::string(py::repr(obj)) + " (" + advice + ")");
}

}  // namespace

// A Python number (bool, int, float, a NumPy scalar) for the scalar parameter `p`.
Number number_argument(const std::string& what, py::handle obj, ScalarType dtype) {
  if (py::isinstance<py::bool_>(obj)) {
    check_number_kind(what, obj, "bool", dtype);
    return obj.cast<bool>();
  }
  if (PyLong_Check(obj.ptr())) {
    check_number_kind(what, obj, "int", dtype);
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
    if (overflow) throw ArgumentError(what + ": " + std::string(py::str(obj)) + " does not fit in an int64");
    return static_cast<std::int64_t>(v);
  }
  if (PyFloat_Check(obj.ptr())) {
    check_number_kind(what, obj, "float", dtype);
    return obj.cast<double>();
  }
  if (py::isinstance(obj, py::module_::import("numpy").attr("generic")))
    return number_argument(what, obj.attr("item")(), dtype);
  // A 0-d array (gt4py's Field[Dims[()], T] that the program only reads): its element.
  if (py::isinstance<py::array>(obj) && py::reinterpret_borrow<py::array>(obj).ndim() == 0)
    return number_argument(what, obj.attr("item")(), dtype);
  throw ArgumentTypeError(what + ": expected a " + std::string(to_string(dtype)) + " number, got " +
                          type_name(obj));
}

void refuse_overlaps(const Gathered& g) {
  for (const auto& w : g.written) {
    const Field& a = g.args.arrays.at(w);
    const auto* a0 = static_cast<const char*>(a.data());
    for (const auto& [name, b] : g.args.arrays) {
      if (name == w || a.nbytes() == 0 || b.nbytes() == 0) continue;
      const auto* b0 = static_cast<const char*>(b.data());
      if (a0 < b0 + b.nbytes() && b0 < a0 + a.nbytes())
        throw ArgumentError("arguments '" + std::min(name, w) + "' and '" + std::max(name, w) +
                            "' share memory and the program writes '" + w +
                            "': weir passes arrays without copying, so the program could read values it "
                            "already overwrote; pass a copy of one of them (np.copy)");
    }
  }
}

void write_back(const Gathered& g) {
  for (const auto& [name, buffer] : g.buffers) {
    const Field& f = g.args.arrays.at(name);
    if (f.data() != buffer) std::memcpy(buffer, f.data(), f.nbytes());
  }
}

}  // namespace weir::python
