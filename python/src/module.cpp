// The extension module `weir._weir`: errors translated to weir's Python exceptions, and the
// backends as objects (ADR 0006 seen from Python; docs/adr/0042-python-api.md).
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "weir/pycode/source.h"
#include "weir/runtime/compile_interrupt.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/gpu_backend.h"
#include "weir/runtime/loader.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/transformation.h"

namespace weir::python {

using namespace weir::runtime;

namespace {

[[noreturn]] void raise(const char* cls, const char* message) {
  if (std::strcmp(cls, "KeyboardInterrupt") == 0) {
    // An interrupted compile (CompileInterrupted) raised the signal again with Python's
    // handler in place: it runs now (KeyboardInterrupt, or what the program's own handler
    // raises); else (another thread's signal, a handler that returned) KeyboardInterrupt.
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    PyErr_SetString(PyExc_KeyboardInterrupt, message);
    throw py::error_already_set();
  }
  py::object type = py::module_::import("weir._errors").attr(cls);
  PyErr_SetObject(type.ptr(), py::str(message).ptr());
  throw py::error_already_set();
}

// A Python object kept by C++ code (a compiler or loader step) that may drop it on a thread
// without the GIL: the last owner takes the GIL to release it.
std::shared_ptr<py::object> hold(py::object o) {
  return std::shared_ptr<py::object>(new py::object(std::move(o)), [](py::object* p) {
    py::gil_scoped_acquire gil;
    delete p;
  });
}

// A compiler step given from Python: what another compiler is (weir.Compiler), or a Python
// callable taking a weir.CompilableProgram and returning a weir.CompilationArtifact.
struct Compiler {
  CompilerStep step;
};
struct Loader {
  LoaderStep step;
};

CompilerStep compiler_from(py::handle obj) {
  if (py::isinstance<Compiler>(obj)) return obj.cast<const Compiler&>().step;
  if (!PyCallable_Check(obj.ptr()))
    throw py::type_error(
        "compiler: expected a weir.Compiler (e.g. weir.backends.cpu.compiler) or a callable taking "
        "a weir.CompilableProgram and returning a weir.CompilationArtifact, got " +
        type_name(obj));
  auto f = hold(py::reinterpret_borrow<py::object>(obj));
  return [f](const CompilableProgram& program) -> CompilationArtifact {
    py::gil_scoped_acquire gil;
    py::object r = (*f)(program);
    if (!py::isinstance<CompilationArtifact>(r))
      throw py::type_error("the compiler returned " + type_name(r) +
                           "; a compiler returns a weir.CompilationArtifact (what another compiler, e.g. "
                           "weir.backends.cpu.compiler, returns)");
    return r.cast<CompilationArtifact>();
  };
}

LoaderStep loader_from(py::handle obj) {
  if (py::isinstance<Loader>(obj)) return obj.cast<const Loader&>().step;
  if (!PyCallable_Check(obj.ptr()))
    throw py::type_error(
        "loader: expected a weir.Loader (e.g. weir.backends.cpu.loader) or a callable taking a "
        "weir.CompilationArtifact and returning a weir.CompiledProgram, got " +
        type_name(obj));
  auto f = hold(py::reinterpret_borrow<py::object>(obj));
  return [f](const CompilationArtifact& artifact) -> std::shared_ptr<CompiledProgram> {
    py::gil_scoped_acquire gil;
    py::object r = (*f)(artifact);
    if (!py::isinstance<CompiledProgram>(r))
      throw py::type_error("the loader returned " + type_name(r) +
                           "; a loader returns a weir.CompiledProgram (what another loader, e.g. "
                           "weir.backends.cpu.loader, returns)");
    return r.cast<std::shared_ptr<CompiledProgram>>();
  };
}

DeviceType device_from(const std::string& name) {
  std::string d = name;
  for (char& c : d) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (d == "cpu") return DeviceType::CPU;
  if (d == "gpu") return DeviceType::GPU;
  throw py::value_error("device '" + name + "': expected 'cpu' or 'gpu'");
}

// "cpu", "gpu": the spelling device= takes.
std::string device_name(DeviceType d) {
  std::string s(to_string(d));
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string repr_backend(const Backend& b) {
  const char* kind = dynamic_cast<const CompiledBackend*>(&b) ? "CompiledBackend" : "EmbeddedBackend";
  return std::string("<weir.") + kind + " '" + b.name() + "'>";
}

}  // namespace

const char* python_error_class(std::exception_ptr p) {
  // Most specific first: the first matching handler decides.
  try {
    if (p) std::rethrow_exception(p);
  } catch (const CompileInterrupted&) {
    return "KeyboardInterrupt";
  } catch (const ArgumentTypeError&) {
    return "ArgumentTypeError";
  } catch (const ArgumentError&) {
    return "ArgumentError";
  } catch (const CompileError&) {
    return "CompileError";
  } catch (const LoadError&) {
    return "LoadError";
  } catch (const ProgramError&) {
    return "ProgramError";
  } catch (const BackendError&) {
    return "BackendError";
  } catch (const CacheError&) {
    return "CacheError";
  } catch (const pycode::SourceError&) {
    return "SourceError";
  } catch (const SdfgLoadError&) {
    return "SDFGError";
  } catch (const InvalidSDFGError&) {
    return "SDFGError";
  } catch (const transforms::TransformError&) {
    return "TransformError";
  } catch (const weir::Error&) {
    return "Error";
  } catch (...) {
  }
  return nullptr;
}

void raise_error(const char* cls, const std::string& message) { raise(cls, message.c_str()); }

std::shared_ptr<const Backend> backend_argument(py::handle obj, const std::string& what) {
  if (py::isinstance<CompiledBackend>(obj)) return obj.cast<std::shared_ptr<CompiledBackend>>();
  if (py::isinstance<EmbeddedBackend>(obj)) return obj.cast<std::shared_ptr<EmbeddedBackend>>();
  std::string got = type_name(obj);
  if (py::isinstance<py::str>(obj)) {
    // Only a name weir.backends has is offered as weir.backends.NAME ("gpux" named none).
    const std::string name = obj.cast<std::string>();
    const bool known = name == "cpu" || name == "gpu" || name == "embedded";
    got += " '" + name + "' (a name is only a label: pass " +
           (known ? "weir.backends." + name + " or another backend object)"
                  : "a backend object; weir.backends has cpu, gpu and embedded)");
  }
  throw py::type_error(what +
                       ": expected a weir.CompiledBackend or weir.EmbeddedBackend (weir.backends.cpu, "
                       "weir.backends.gpu, weir.backends.embedded, or one made with CompiledBackend(...) or "
                       "backend.replace(...)), got " +
                       got);
}

void bind_errors(py::module_& m) {
  // Most specific first: the first matching handler raises.
  py::register_exception_translator([](std::exception_ptr p) {
    if (const char* cls = python_error_class(p)) {
      try {
        std::rethrow_exception(p);
      } catch (const std::exception& e) {
        raise(cls, e.what());
      }
    }
    std::rethrow_exception(p);  // pybind11's own translators
  });
  (void)m;
}

void bind_backends(py::module_& m) {
  py::class_<Allocator>(m, "Allocator", "Where a backend's arrays live: device ('cpu') and byte alignment.")
      .def(py::init([](const std::string& device, std::size_t alignment) {
             return Allocator(device_from(device), alignment);
           }),
           py::arg("device") = "cpu", py::arg("alignment") = kDefaultAlignment)
      .def_property_readonly("device", [](const Allocator& a) { return device_name(a.device()); })
      .def_property_readonly("alignment", &Allocator::alignment)
      .def(
          "zeros",
          [](const Allocator& a, py::handle shape, py::handle dtype) {
            return allocate_array(a, shape, dtype);
          },
          "A zero-filled C-order NumPy array in this allocator's memory (aligned to `alignment` bytes).",
          py::arg("shape"), py::arg("dtype") = "float64")
      .def("__eq__",
           [](const Allocator& a, py::object other) {
             if (!py::isinstance<Allocator>(other)) return false;
             const auto& b = other.cast<const Allocator&>();
             return a.device() == b.device() && a.alignment() == b.alignment();
           })
      .def("__repr__", [](const Allocator& a) {
        return "weir.Allocator(device='" + device_name(a.device()) +
               "', alignment=" + std::to_string(a.alignment()) + ")";
      });

  py::class_<CompilableProgram>(m, "CompilableProgram",
                                "What a compiler step takes: the SDFG to compile and where it came from.")
      .def_property_readonly("origin", [](const CompilableProgram& p) { return p.origin; })
      .def_property_readonly(
          "sdfg",
          [](const CompilableProgram& p) {
            return PySDFG{p.sdfg ? std::shared_ptr<SDFG>(p.sdfg->clone_sdfg()) : nullptr};
          },
          "A copy of the SDFG to compile (changing it changes nothing that is compiled)")
      .def("__repr__",
           [](const CompilableProgram& p) { return "<weir.CompilableProgram '" + p.origin + "'>"; });

  py::class_<CompilationArtifact>(m, "CompilationArtifact", "What a compiler step made: a shared library.")
      .def_property_readonly("library", [](const CompilationArtifact& a) { return a.library.string(); })
      .def_property_readonly("source", [](const CompilationArtifact& a) { return a.source.string(); })
      .def_readonly("fingerprint", &CompilationArtifact::fingerprint)
      .def_readonly("cache_hit", &CompilationArtifact::cache_hit)
      .def_readonly("cache_problem", &CompilationArtifact::cache_problem)
      .def("__repr__", [](const CompilationArtifact& a) {
        return "<weir.CompilationArtifact " + a.library.string() + (a.cache_hit ? " (cache hit)>" : ">");
      });

  py::class_<CompiledProgram, std::shared_ptr<CompiledProgram>>(
      m, "CompiledProgram", "A loaded compiled program (a loader's result).")
      .def_property_readonly("name", &CompiledProgram::name)
      .def("__repr__", [](const CompiledProgram& p) { return "<weir.CompiledProgram '" + p.name() + "'>"; });

  py::class_<Compiler>(m, "Compiler", "A backend's compile step (program -> artifact), callable.")
      .def(
          "__call__",
          [](const Compiler& c, const CompilableProgram& p) {
            py::gil_scoped_release nogil;
            return c.step(p);
          },
          py::arg("program"));
  py::class_<Loader>(m, "Loader", "A backend's load step (artifact -> compiled program), callable.")
      .def(
          "__call__",
          [](const Loader& l, const CompilationArtifact& a) {
            py::gil_scoped_release nogil;
            return l.step(a);
          },
          py::arg("artifact"));

  py::class_<Backend, std::shared_ptr<Backend>>(
      m, "Backend",
      "Where and how programs run. Abstract: use weir.CompiledBackend or weir.EmbeddedBackend. `name` is a "
      "label, never what decides how a program runs.")
      .def(py::init([](const py::args&, const py::kwargs&) -> std::shared_ptr<Backend> {
        throw py::type_error(
            "weir.Backend is abstract: create a weir.CompiledBackend or weir.EmbeddedBackend, or use "
            "weir.backends.cpu, weir.backends.gpu or weir.backends.embedded");
      }))
      .def_property_readonly("name", &Backend::name)
      .def_property_readonly("allocator", &Backend::allocator)
      .def("__repr__", [](const Backend& b) { return repr_backend(b); });

  py::class_<CompiledBackend, Backend, std::shared_ptr<CompiledBackend>>(
      m, "CompiledBackend",
      "A backend that compiles programs: `compiler` (program -> artifact), then `loader` (artifact -> "
      "program). Customise it with replace(), never by subclassing.")
      .def(py::init([](std::string name, py::object allocator, py::object compiler, py::object loader) {
             Allocator a = allocator.is_none() ? Allocator() : allocator.cast<Allocator>();
             return std::make_shared<CompiledBackend>(std::move(name), a, compiler_from(compiler),
                                                      loader.is_none() ? LoaderStep{} : loader_from(loader));
           }),
           py::arg("name"), py::arg("allocator"), py::arg("compiler"), py::arg("loader") = py::none())
      .def_property_readonly("compiler", [](const CompiledBackend& b) { return Compiler{b.compiler}; })
      .def_property_readonly("loader", [](const CompiledBackend& b) { return Loader{b.loader}; })
      .def(
          "replace",
          [](const CompiledBackend& b, py::object name, py::object allocator, py::object compiler,
             py::object loader) {
            return std::make_shared<CompiledBackend>(
                name.is_none() ? b.name() : name.cast<std::string>(),
                allocator.is_none() ? b.allocator() : allocator.cast<Allocator>(),
                compiler.is_none() ? b.compiler : compiler_from(compiler),
                loader.is_none() ? b.loader : loader_from(loader));
          },
          py::kw_only(), py::arg("name") = py::none(), py::arg("allocator") = py::none(),
          py::arg("compiler") = py::none(), py::arg("loader") = py::none(),
          "A new CompiledBackend with the members given replaced (dataclasses.replace); this one is "
          "unchanged.");

  py::class_<EmbeddedBackend, Backend, std::shared_ptr<EmbeddedBackend>>(
      m, "EmbeddedBackend", "The embedded backend: interprets field-view programs in this process.")
      .def(py::init([](std::string name, py::object allocator) {
             return std::make_shared<EmbeddedBackend>(
                 std::move(name), allocator.is_none() ? Allocator() : allocator.cast<Allocator>());
           }),
           py::arg("name") = "embedded", py::arg("allocator") = py::none())
      .def(
          "replace",
          [](const EmbeddedBackend& b, py::object name, py::object allocator) {
            return std::make_shared<EmbeddedBackend>(
                name.is_none() ? b.name() : name.cast<std::string>(),
                allocator.is_none() ? b.allocator() : allocator.cast<Allocator>());
          },
          py::kw_only(), py::arg("name") = py::none(), py::arg("allocator") = py::none());

  m.def(
      "cpu_backend",
      [](std::optional<std::string> cache_dir, std::string compiler,
         std::optional<std::vector<std::string>> flags, bool openmp, unsigned jobs, std::string name_postfix,
         bool exact_math) {
        CompiledBackendConfig c;
        if (cache_dir) c.cache_dir = std::filesystem::path(*cache_dir);
        c.compiler = std::move(compiler);
        if (flags) c.flags = std::move(*flags);
        if (exact_math) c.flags.push_back("-DWEIR_EXACT_MATH");
        c.openmp = openmp;
        c.jobs = jobs;
        c.name_postfix = std::move(name_postfix);
        return std::shared_ptr<CompiledBackend>(make_cpu_backend(c));
      },
      py::kw_only(), py::arg("cache_dir") = py::none(), py::arg("compiler") = "c++",
      py::arg("flags") = py::none(), py::arg("openmp") = true, py::arg("jobs") = 0u,
      py::arg("name_postfix") = "", py::arg("exact_math") = false,
      "The cpu backend (C++/OpenMP, the program cache of $WEIR_CACHE_DIR or ~/.cache/weir unless cache_dir "
      "is given), as `weir run --backend cpu` makes it. exact_math=True is `weir run --exact-math`: loops "
      "call the scalar exp, log, sin, ... of the C library (as the embedded backend and Python's math "
      "module, "
      "bit for bit) instead of their SIMD variants (within 4 ulp; docs/adr/0031-vector-math.md).");
  m.def(
      "gpu_backend",
      [](std::string gpu_arch, std::optional<std::string> cache_dir) {
        GpuBackendConfig c;
        c.nvcc.gpu_arch = std::move(gpu_arch);
        if (cache_dir) c.cache_dir = std::filesystem::path(*cache_dir);
        return std::shared_ptr<CompiledBackend>(make_gpu_backend(c));
      },
      py::kw_only(), py::arg("gpu_arch") = std::string(kDefaultGpuArch), py::arg("cache_dir") = py::none(),
      "The gpu backend (CUDA through nvcc); running needs a CUDA device.");
}

}  // namespace weir::python

PYBIND11_MODULE(_weir, m) {
  m.doc() = "weir's C++ API (the Python package `weir` wraps it; docs/adr/0042-python-api.md)";
  m.attr("__version__") = WEIR_PYTHON_VERSION;
  weir::python::bind_errors(m);
  weir::python::bind_backends(m);
  weir::python::bind_sdfg(m);
  weir::python::bind_programs(m);
  weir::python::bind_view(m);
  weir::python::bind_distributed(m);
}
