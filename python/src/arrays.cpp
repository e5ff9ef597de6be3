// NumPy arrays in memory from a backend's allocator (weir.zeros and friends): the buffer is a
// runtime::Field that the array owns through a capsule, so it is aligned as `weir run` aligns
// its fields (64 bytes by default). NumPy's own buffers start at 16-byte boundaries, on which
// the generated code's vector loads straddle cache lines (bench/python_api.py measures it).
#include <pybind11/numpy.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/field.h"

namespace weir::python {

namespace {

// `shape` as NumPy takes it: an int or a sequence of ints.
std::vector<std::int64_t> extents_from(py::handle shape) {
  std::vector<std::int64_t> extents;
  auto extent = [&](py::handle v) {
    if (!PyIndex_Check(v.ptr()) || py::isinstance<py::bool_>(v))
      throw ArgumentTypeError("shape: expected an int or a sequence of ints, got " + type_name(v) + " " +
                              std::string(py::repr(v)));
    extents.push_back(py::int_(py::reinterpret_borrow<py::object>(v)).cast<std::int64_t>());
  };
  if (py::isinstance<py::sequence>(shape) && !py::isinstance<py::str>(shape)) {
    for (py::handle v : py::reinterpret_borrow<py::sequence>(shape)) extent(v);
  } else {
    extent(shape);
  }
  return extents;
}

}  // namespace

py::object allocate_array(const runtime::Allocator& allocator, py::handle shape, py::handle dtype) {
  std::vector<std::int64_t> extents = extents_from(shape);
  py::dtype dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype));
  std::string name = py::str(dt.attr("name"));
  std::optional<ScalarType> t = scalar_type_from_string(name);
  if (!t || *t == ScalarType::Void || !dt.attr("isnative").cast<bool>())
    throw ArgumentTypeError("dtype: " + std::string(py::str(dt)) +
                            " is not an element type of weir's fields (bool, int8-64, uint8-64, float16-64, "
                            "complex64/128, in this machine's byte order)");
  auto* field = new runtime::Field();
  py::capsule owner(field, [](void* p) { delete static_cast<runtime::Field*>(p); });
  {
    // Zero-filling a large array takes a while: other Python threads go on meanwhile.
    py::gil_scoped_release nogil;
    *field = allocator.allocate(*t, extents);
  }
  std::vector<py::ssize_t> dims(extents.begin(), extents.end());
  std::vector<py::ssize_t> strides;
  for (std::int64_t s : field->strides()) strides.push_back(static_cast<py::ssize_t>(s * field->itemsize()));
  return py::array(dt, dims, strides, field->data(), owner);
}

}  // namespace weir::python
