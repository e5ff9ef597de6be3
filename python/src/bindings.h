// The pieces of the Python module `weir._weir` (docs/adr/0042-python-api.md): one function per
// binding file, called from module.cpp. Internal to python/; weir's own headers never include
// pybind11.
#pragma once

#include <pybind11/pybind11.h>

#include <exception>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "weir/runtime/arguments.h"
#include "weir/runtime/backend.h"
#include "weir/runtime/errors.h"

namespace weir {
class SDFG;
}

namespace weir::python {

namespace py = pybind11;

/// An argument of the wrong kind (not an array, a wrong dtype or rank, missing or unknown):
/// raised as weir.ArgumentTypeError, which is a TypeError and a weir.ArgumentError.
class ArgumentTypeError : public runtime::ArgumentError {
 public:
  using runtime::ArgumentError::ArgumentError;
};

/// An SDFG held by Python. Every weir.SDFG owns its graph alone: nothing else keeps or sees it.
struct PySDFG {
  std::shared_ptr<SDFG> sdfg;
};

/// Arguments with NumPy arrays borrowed, never copied: the arrays are kept alive in `keep` and
/// their buffers noted in `buffers` by argument name.
struct Gathered {
  runtime::Arguments args;
  std::vector<py::object> keep;
  std::map<std::string, void*> buffers;
  /// The arguments the program writes.
  std::set<std::string> written;
};

/// The name of `obj`'s type ("ndarray").
std::string type_name(py::handle obj);
/// "float64 array with 3 dimensions".
std::string expected_array(ScalarType t, std::size_t ndim);
/// Borrows `obj` as the field of argument `name` (runtime::Field::borrow): it must be a NumPy
/// array of `dtype` (or, when `table`, int32 or int64) with `ndim` dimensions in native byte
/// order (else ArgumentTypeError), C-contiguous and aligned, and writeable when `written` (else
/// ArgumentError); `what` names it in messages ("argument 'f'"). Keeps it alive in `g`.
runtime::Field borrow_array(const std::string& what, py::handle obj, ScalarType dtype, std::size_t ndim,
                            bool written, bool table, Gathered& g, const std::string& name);
/// A Python number (bool, int, float, a NumPy scalar) for a scalar of `dtype`; ArgumentTypeError
/// for anything else.
runtime::Number number_argument(const std::string& what, py::handle obj, ScalarType dtype);
/// Throws ArgumentError when an argument the program writes shares memory with another
/// argument (the same array twice, overlapping views): with no copies the program would read
/// values it already overwrote, a result that depends on the order points are computed in.
void refuse_overlaps(const Gathered& g);
/// Copies into the caller's buffers what a backend left in fields of its own (the embedded
/// backend's orchestration works on copies until the whole function succeeded).
void write_back(const Gathered& g);

/// The name of the class in weir/_errors.py that a weir error raised as `p` becomes
/// ("ProgramError"); nullptr for exceptions that are not weir's.
const char* python_error_class(std::exception_ptr p);
/// Raises the Python exception `cls` of weir/_errors.py with `message` (throws
/// py::error_already_set).
[[noreturn]] void raise_error(const char* cls, const std::string& message);

/// The backend `obj` names: a weir.CompiledBackend or weir.EmbeddedBackend (or a Python
/// subclass of either). Anything else (a string, None, another object) raises TypeError saying
/// what `what` ("load(): backend") accepts.
std::shared_ptr<const runtime::Backend> backend_argument(py::handle obj, const std::string& what);

/// A zero-filled C-order NumPy array of `shape` (an int or a sequence of ints) and `dtype`
/// (anything np.dtype takes) whose buffer comes from `allocator` (runtime::Allocator::allocate:
/// aligned to allocator.alignment() bytes) and lives as long as the array and its views.
/// ArgumentTypeError for a shape that is not ints or a dtype weir's fields cannot hold;
/// ArgumentError for a negative extent or a size that overflows.
py::object allocate_array(const runtime::Allocator& allocator, py::handle shape, py::handle dtype);

void bind_errors(py::module_& m);
void bind_backends(py::module_& m);
void bind_programs(py::module_& m);
void bind_sdfg(py::module_& m);
/// weir.decompose, weir.DecomposedProgram and weir.mpi_available (distributed.cpp; with MPI
/// only when weir_mpi is built).
void bind_distributed(py::module_& m);
/// weir.view (view.cpp: the page builder of `weir view --html`).
void bind_view(py::module_& m);

}  // namespace weir::python
