// The pieces of the Python module `weir._weir` (docs/adr/0042-python-api.md): one function per
// binding file, called from module.cpp. Internal to python/; weir's own headers never include
// pybind11.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>

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

/// The backend `obj` names: a weir.CompiledBackend or weir.EmbeddedBackend (or a Python
/// subclass of either). Anything else (a string, None, another object) raises TypeError saying
/// what `what` ("load(): backend") accepts.
std::shared_ptr<const runtime::Backend> backend_argument(py::handle obj, const std::string& what);

void bind_errors(py::module_& m);
void bind_backends(py::module_& m);
void bind_programs(py::module_& m);
void bind_sdfg(py::module_& m);

}  // namespace weir::python
