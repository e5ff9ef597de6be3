// weir.decompose and weir.DecomposedProgram (docs/adr/0057-distributed-memory.md
// "communicators", docs/distributed.md "From C++ and Python"): a Cartesian program called on
// every rank of an mpi4py communicator with that rank's local NumPy arrays, borrowed as a
// weir.Program's are; weir.partitioned and weir.PartitionedProgram the same for unstructured
// programs on a mesh partition, with the rank's local tables and send/receive lists. Built with weir_mpi when
// weir found MPI (WEIR_PYTHON_MPI, set on this file only); without it weir.decompose raises weir.BackendError
// saying how to get it.
#include <pybind11/stl.h>

#include <limits>

#include "bindings.h"
#include "program.h"

#ifdef WEIR_PYTHON_MPI
#include "weir/distributed/decomposed_program.h"
#include "weir/distributed/mpi_world.h"
#include "weir/distributed/partitioned_program.h"
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

// Binds a call's arguments to the program's parameters (positional ones in order, then
// keywords) into `g`; a keyword named in `special` goes to its object instead. Throws
// ArgumentTypeError naming the argument; `others` ends the message of an unknown one.
void bind_arguments(const PyProgram& prog, const py::args& args, const py::kwargs& kwargs,
                    const std::map<std::string, py::object*>& special, const std::string& others,
                    Gathered& g) {
  const std::vector<const runtime::Parameter*> params = prog.user_params();
  if (args.size() > params.size())
    throw ArgumentTypeError("takes " + std::to_string(params.size()) + " arguments (" + prog.user_names() +
                            "), got " + std::to_string(args.size()));
  std::map<std::string, py::handle> given;
  for (std::size_t k = 0; k < args.size(); ++k) given[params[k]->name] = args[k];
  for (const auto& [key, value] : kwargs) {
    const std::string name = key.cast<std::string>();
    if (auto sp = special.find(name); sp != special.end()) {
      *sp->second = py::reinterpret_borrow<py::object>(value);
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
                            prog.user_names() + others + ")");
}

void call(PyDecomposed& d, const py::args& args, const py::kwargs& kwargs) {
  py::object comm = py::none();
  Gathered g;
  bind_arguments(*d.prog, args, kwargs, {{"comm", &comm}}, " and comm=", g);
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

struct PyPartitioned {
  std::shared_ptr<PyProgram> prog;
  std::unique_ptr<distributed::PartitionedProgram> pp;
  std::unique_ptr<runtime::CompiledBackend> backend;
  std::mutex mutex;
};

// One list of local rows: a sequence of ints or an integer NumPy array, each fitting int32.
std::vector<std::int32_t> row_list(const std::string& what, py::handle obj) {
  std::vector<std::int32_t> out;
  if (py::isinstance<py::str>(obj) || !py::hasattr(obj, "__iter__"))
    throw ArgumentTypeError(what + ": expected a sequence of local row indices, got " + type_name(obj));
  for (py::handle x : py::iter(obj)) {
    if (!py::isinstance<py::int_>(x) && !py::hasattr(x, "__index__"))
      throw ArgumentTypeError(what + ": expected integer row indices, got " + type_name(x));
    const auto v = py::int_(py::reinterpret_borrow<py::object>(x)).cast<long long>();
    if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
      throw ArgumentTypeError(what + ": row " + std::to_string(v) + " does not fit int32");
    out.push_back(static_cast<std::int32_t>(v));
  }
  return out;
}

// lists= : {entity: {peer: (send, recv)}}.
distributed::RowLists row_lists(py::handle lists) {
  distributed::RowLists out;
  if (lists.is_none()) return out;
  if (!py::isinstance<py::dict>(lists))
    throw ArgumentTypeError("lists: expected {entity: {peer: (send, recv)}}, got " + type_name(lists));
  for (const auto& [key, peers] : py::reinterpret_borrow<py::dict>(lists)) {
    const std::string entity = py::str(key).cast<std::string>();
    if (!py::isinstance<py::dict>(peers))
      throw ArgumentTypeError("lists['" + entity + "']: expected {peer: (send, recv)}, got " +
                              type_name(peers));
    std::vector<distributed::PeerRows>& rows = out[entity];
    for (const auto& [peer, pair] : py::reinterpret_borrow<py::dict>(peers)) {
      if (!py::isinstance<py::int_>(peer))
        throw ArgumentTypeError("lists['" + entity + "']: a peer must be a rank (int), got " +
                                type_name(peer));
      const std::string what = "lists['" + entity + "'][" + py::str(peer).cast<std::string>() + "]";
      if (!py::isinstance<py::tuple>(pair) && !py::isinstance<py::list>(pair))
        throw ArgumentTypeError(what + ": expected (send, recv), got " + type_name(pair));
      py::sequence sr = py::reinterpret_borrow<py::sequence>(pair);
      if (sr.size() != 2)
        throw ArgumentTypeError(what + ": expected (send, recv), got " + std::to_string(sr.size()) +
                                " entries");
      rows.push_back(distributed::PeerRows{peer.cast<int>(), row_list(what + " send", sr[0]),
                                           row_list(what + " recv", sr[1])});
    }
  }
  return out;
}

void call_partitioned(PyPartitioned& d, const py::args& args, const py::kwargs& kwargs) {
  py::object comm = py::none(), lists = py::none(), tables = py::none();
  Gathered g;
  bind_arguments(*d.prog, args, kwargs, {{"comm", &comm}, {"lists", &lists}, {"offset_provider", &tables}},
                 ", offset_provider=, lists= and comm=", g);
  if (!py::isinstance<py::dict>(tables))
    throw ArgumentTypeError(
        "offset_provider: expected a dict of the local connectivity tables ({'C2E2CO': table}), "
        "got " +
        type_name(tables));
  py::dict provided = py::reinterpret_borrow<py::dict>(tables);
  for (const auto& c : d.prog->conns) {
    if (!provided.contains(c.name))
      throw ArgumentTypeError("offset_provider: missing connectivity table '" + c.name +
                              "' (local numbering)");
    g.args.arrays.emplace(c.name, borrow_array("offset_provider['" + c.name + "']", provided[c.name.c_str()],
                                               ScalarType::Int32, 2, false, true, g, c.name));
  }
  refuse_overlaps(g);
  const distributed::RowLists rows = row_lists(lists);
  const std::int64_t handle = comm_handle(comm);
  py::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(d.mutex);
  if (!d.pp->prepared()) d.pp->prepare(*d.backend);
  d.pp->run(g.args, rows, handle);
}

std::shared_ptr<PyPartitioned> partitioned(const PyProgram& prog, const py::object& cache_dir) {
  if (prog.fv.definition == nullptr && prog.fv.orchestration == nullptr)
    throw runtime::BackendError("partitioned(): '" + prog.reference + "' is not a field-view program");
  auto d = std::make_shared<PyPartitioned>();
  d->prog = std::make_shared<PyProgram>(prog);
  d->pp = std::make_unique<distributed::PartitionedProgram>(prog.fv);
  runtime::CompiledBackendConfig config;
  if (!cache_dir.is_none()) config.cache_dir = py::str(cache_dir).cast<std::string>();
  d->backend = distributed::make_mpi_cpu_backend(config);
  return d;
}

}  // namespace

void bind_distributed(py::module_& m) {
  m.attr("mpi_available") = true;
  py::class_<PyPartitioned, std::shared_ptr<PyPartitioned>>(
      m, "PartitionedProgram",
      "An unstructured program on the ranks of a mesh partition (weir.partitioned): call it on every rank of "
      "a "
      "communicator with that rank's local arrays, tables and lists, pp(psi, w, lap, offset_provider={...}, "
      "lists={...}, comm=comm).")
      .def("__call__", &call_partitioned,
           "Runs on this rank's local arrays (local numbering: owned rows, then halo rows, whose values may "
           "be "
           "anything: the program's exchanges fill them), offset_provider= (the local tables), lists= "
           "({entity: {peer: (send, recv)}}: local rows sent to and received from each peer rank) and comm= "
           "(an mpi4py communicator, default MPI.COMM_WORLD). Every rank of comm must call it.")
      .def(
          "prepare",
          [](PyPartitioned& d) {
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(d.mutex);
            if (!d.pp->prepared()) d.pp->prepare(*d.backend);
          },
          "Compiles the program (or loads it from the program cache).")
      .def_property_readonly(
          "exchanged", [](const PyPartitioned& d) { return d.pp->exchanged(); },
          "{array: entity}: the arrays whose halo rows the program exchanges.")
      .def_property_readonly(
          "entities", [](const PyPartitioned& d) { return d.pp->entities(); },
          "The entities whose lists a call needs.");
  m.def("_partitioned", &partitioned, py::arg("program"), py::arg("cache_dir") = py::none());
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
  struct NoMpiParts {};
  py::class_<NoMpiParts>(m, "PartitionedProgram", "Needs weir built with MPI (weir.mpi_available).");
  m.def(
      "_partitioned",
      [](py::handle, py::handle) {
        raise_error("BackendError",
                    "partitioned(): weir was built without MPI (install libopenmpi-dev, which "
                    "scripts/install-deps.sh installs, and build again)");
      },
      py::arg("program"), py::arg("cache_dir") = py::none());
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
