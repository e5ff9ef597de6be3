// weir.decompose and weir.DecomposedProgram (docs/adr/0057-distributed-memory.md
// "communicators", docs/distributed.md "From C++ and Python"): a Cartesian program called on
// every rank of an mpi4py communicator with that rank's local NumPy arrays, borrowed as a
// weir.Program's are. Built with weir_mpi when weir found MPI (WEIR_PYTHON_MPI, set on this file
// only); without it weir.decompose raises weir.BackendError saying how to get it.
#include <pybind11/stl.h>

#include "bindings.h"
#include "program.h"

#ifdef WEIR_PYTHON_MPI
#include "weir/distributed/decomposed_program.h"
#include "weir/distributed/mpi_world.h"
#endif

namespace weir::python {

#ifdef WEIR_PYTHON_MPI

namespace {

struct PyDecomposed {
  std::shared_ptr<PyProgram> prog;  // the program's parameters, for binding the call
  std::unique_ptr<distributed::DecomposedProgram> dp;
  std::unique_ptr<runtime::CompiledBackend> backend;
  std::mutex mutex;  // one call at a time (runtime::Program is not thread-safe)
};

// The Fortran handle of `comm`: an mpi4py communicator (its py2f()), an int, or None for
// MPI_COMM_WORLD.
std::int64_t comm_handle(py::handle comm) {
  if (comm.is_none()) return distributed::world_comm_handle();
  if (py::hasattr(comm, "py2f")) return comm.attr("py2f")().cast<std::int64_t>();
  if (py::isinstance<py::int_>(comm)) return comm.cast<std::int64_t>();
  throw ArgumentTypeError(
      "comm: expected an mpi4py communicator (MPI.COMM_WORLD, comm.Split(...)) or its "
      "Fortran handle as an int, got " +
      type_name(comm));
}

std::vector<int> coordinates_of(const PyDecomposed& d, py::handle comm) {
  const distributed::CommPlace place = distributed::comm_place(comm_handle(comm));
  return distributed::grid_coordinates(place.rank, d.dp->grid().sizes);
}

void call(PyDecomposed& d, const py::args& args, const py::kwargs& kwargs) {
  py::object comm = py::none();
  Gathered g;
  const std::vector<const runtime::Parameter*> params = d.prog->user_params();
  if (args.size() > params.size())
    throw ArgumentTypeError("takes " + std::to_string(params.size()) + " arguments (" + d.prog->user_names() +
                            "), got " + std::to_string(args.size()));
  std::map<std::string, py::handle> given;
  for (std::size_t k = 0; k < args.size(); ++k) given[params[k]->name] = args[k];
  for (const auto& [key, value] : kwargs) {
    const std::string name = key.cast<std::string>();
    if (name == "comm") {
      comm = py::reinterpret_borrow<py::object>(value);
      continue;
    }
    if (given.count(name)) throw ArgumentTypeError("argument '" + name + "' given twice");
    given[name] = value;
  }
  for (const runtime::Parameter* p : params) {
    auto it = given.find(p->name);
    if (it == given.end())
      throw ArgumentTypeError("missing argument '" + p->name + "' (" + p->describe() + ")");
    const std::string what = "argument '" + p->name + "'";
    if (p->kind == runtime::Parameter::Kind::Array)
      g.args.arrays.emplace(
          p->name, borrow_array(what, it->second, p->dtype, p->shape.size(), p->written, false, g, p->name));
    else
      g.args.values.emplace(p->name, number_argument(what, it->second, p->dtype));
    given.erase(it);
  }
  if (!given.empty())
    throw ArgumentTypeError("unknown argument '" + given.begin()->first + "' (the program takes " +
                            d.prog->user_names() + " and comm=)");
  refuse_overlaps(g);
  const std::int64_t handle = comm_handle(comm);
  const std::vector<int> coords = coordinates_of(d, comm);
  py::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(d.mutex);
  if (!d.dp->prepared()) d.dp->prepare(*d.backend);
  d.dp->run(g.args, handle, coords);
}

std::shared_ptr<PyDecomposed> decompose(const PyProgram& prog, const std::vector<std::string>& dims,
                                        const std::vector<int>& grid, const py::object& cache_dir) {
  if (prog.fv.definition == nullptr && prog.fv.orchestration == nullptr)
    throw runtime::BackendError("decompose(): '" + prog.reference + "' is not a field-view program");
  auto d = std::make_shared<PyDecomposed>();
  d->prog = std::make_shared<PyProgram>(prog);
  d->dp = std::make_unique<distributed::DecomposedProgram>(prog.fv, distributed::ProcessGrid{dims, grid});
  runtime::CompiledBackendConfig config;
  if (!cache_dir.is_none()) config.cache_dir = py::str(cache_dir).cast<std::string>();
  d->backend = distributed::make_mpi_cpu_backend(config);
  return d;
}

}  // namespace

void bind_distributed(py::module_& m) {
  m.attr("mpi_available") = true;
  py::class_<PyDecomposed, std::shared_ptr<PyDecomposed>>(
      m, "DecomposedProgram",
      "A Cartesian program on the ranks of a process grid (weir.decompose): call it on every rank of a "
      "communicator with that rank's local arrays, dp(f, out, comm=comm).")
      .def("__call__", &call,
           "Runs on this rank's local arrays (each the window() of its global array, in C order; halos "
           "are filled by the program's exchanges) and comm= (an mpi4py communicator of grid ranks, "
           "default MPI.COMM_WORLD). Every rank of comm must call it. Compiles on the first call "
           "unless prepare() did.")
      .def(
          "prepare",
          [](PyDecomposed& d) {
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(d.mutex);
            if (!d.dp->prepared()) d.dp->prepare(*d.backend);
          },
          "Compiles the program (or loads it from the program cache).")
      .def(
          "coordinates",
          [](const PyDecomposed& d, const py::object& comm) { return coordinates_of(d, comm); },
          py::arg("comm") = py::none(), "This rank's coordinates in the grid (row-major ranks of comm).")
      .def(
          "window",
          [](const PyDecomposed& d, const std::string& name, const std::vector<std::int64_t>& shape,
             const std::vector<int>& coords, bool own) { return d.dp->window(name, shape, coords, own); },
          py::arg("name"), py::arg("global_shape"), py::arg("coords"), py::kw_only(), py::arg("own") = false,
          "[(lo, hi), ...] per axis: the part of global array `name` the rank at `coords` holds (own=True: "
          "the block it owns, what a gather collects).")
      .def_property_readonly("grid", [](const PyDecomposed& d) { return d.dp->grid().sizes; })
      .def_property_readonly("dims", [](const PyDecomposed& d) { return d.dp->grid().dims; })
      .def_property_readonly("exchanges", [](const PyDecomposed& d) { return d.dp->exchanges(); })
      .def_property_readonly(
          "reductions", [](const PyDecomposed& d) { return d.dp->reductions(); },
          "How many global reductions (each rank's owned points, then MPI_Allreduce) the program has.")
      .def_property_readonly("frame", [](const PyDecomposed& d) {
        std::map<std::string, std::pair<std::int64_t, std::int64_t>> f;
        for (const auto& a : d.dp->axes()) f[a.dim] = {a.frame_lo, a.frame_hi};
        return f;
      });
  m.def("_decompose", &decompose, py::arg("program"), py::arg("dims"), py::arg("grid"),
        py::arg("cache_dir") = py::none());
}

#else

void bind_distributed(py::module_& m) {
  m.attr("mpi_available") = false;
  // The class exists (weir.DecomposedProgram in isinstance checks and docs) but cannot be made.
  struct NoMpi {};
  py::class_<NoMpi>(m, "DecomposedProgram", "Needs weir built with MPI (weir.mpi_available).");
  m.def(
      "_decompose",
      [](py::handle, py::handle, py::handle, py::handle) {
        raise_error("BackendError",
                    "decompose(): weir was built without MPI (install libopenmpi-dev, which "
                    "scripts/install-deps.sh installs, and build again)");
      },
      py::arg("program"), py::arg("dims"), py::arg("grid"), py::arg("cache_dir") = py::none());
}

#endif

}  // namespace weir::python
