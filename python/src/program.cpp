// weir.load and weir.Program: field-view programs called with NumPy arrays, without copying
// them (docs/adr/0042-python-api.md, "Arguments").
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "bindings.h"
#include "program.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/orchestration.h"
#include "weir/runtime/call_domain_check.h"
#include "weir/runtime/connectivity_check.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/embedded.h"
#include "weir/runtime/field_view_program.h"
#include "weir/runtime/lower_for_tables.h"
#include "weir/runtime/output_domain.h"
#include "weir/runtime/program_source.h"
#include "weir/sdfg/sdfg.h"

namespace weir::python {

using namespace weir::runtime;

namespace {

std::string squoted(const std::string& s) { return "'" + s + "'"; }

Gathered gather(const PyProgram& prog, const py::args& args, const py::kwargs& kwargs) {
  Gathered g;
  const std::string& pname = prog.sig.program_name;
  std::vector<const Parameter*> params = prog.user_params();
  std::vector<const Parameter*> results = prog.result_params();
  if (args.size() > params.size())
    throw ArgumentTypeError(pname + "() takes " + std::to_string(params.size()) + " positional argument" +
                            (params.size() == 1 ? "" : "s") + " (" + prog.user_names() + ") but " +
                            std::to_string(args.size()) + " were given");
  std::map<std::string, py::handle> given;
  for (std::size_t i = 0; i < args.size(); ++i) given[params[i]->name] = args[i];
  py::handle out, offsets;
  for (auto [key, value] : kwargs) {
    std::string k = py::str(key);
    if (k == "offset_provider") {
      offsets = value;
      continue;
    }
    if (k == "out" && !results.empty()) {
      out = value;
      continue;
    }
    const Parameter* p = prog.sig.find(k);
    if (!p || prog.is_table(k) || PyProgram::is_result(k))
      throw ArgumentTypeError(pname + "() got an unexpected argument " + squoted(k) + " (it takes " +
                              prog.user_names() + ")");
    if (given.count(k)) throw ArgumentTypeError(pname + "() got multiple values for argument " + squoted(k));
    given[k] = value;
  }
  for (const Parameter* p : params) {
    auto it = given.find(p->name);
    if (it == given.end())
      throw ArgumentTypeError(pname + "() missing argument " + squoted(p->name) + " (" +
                              (p->kind == Parameter::Kind::Array
                                   ? expected_array(p->dtype, p->shape.size())
                                   : std::string(to_string(p->dtype)) + " number") +
                              ")");
    const std::string what = "argument " + squoted(p->name);
    if (p->kind == Parameter::Kind::Array)
      g.args.arrays.emplace(
          p->name, borrow_array(what, it->second, p->dtype, p->shape.size(), p->written, false, g, p->name));
    else
      g.args.values.emplace(p->name, number_argument(what, it->second, p->dtype));
  }
  if (!results.empty()) {
    if (!out)
      throw ArgumentTypeError(pname +
                              "() missing out=: a @field_operator run directly writes its result into "
                              "out= (" +
                              std::string(results.size() > 1
                                              ? "a tuple of " + std::to_string(results.size()) + " arrays"
                                              : expected_array(results[0]->dtype, results[0]->shape.size())) +
                              ")");
    if (results.size() == 1) {
      g.args.arrays.emplace(results[0]->name,
                            borrow_array("out", out, results[0]->dtype, results[0]->shape.size(), true, false,
                                         g, results[0]->name));
    } else {
      if (!py::isinstance<py::tuple>(out) || py::len(out) != results.size())
        throw ArgumentTypeError(
            "out: expected a tuple of " + std::to_string(results.size()) +
            " arrays (the operator returns a tuple), got " +
            (py::isinstance<py::tuple>(out) ? "a tuple of " + std::to_string(py::len(out)) : type_name(out)));
      auto t = py::reinterpret_borrow<py::tuple>(out);
      for (std::size_t i = 0; i < results.size(); ++i)
        g.args.arrays.emplace(results[i]->name,
                              borrow_array("out[" + std::to_string(i) + "]", t[i], results[i]->dtype,
                                           results[i]->shape.size(), true, false, g, results[i]->name));
    }
  }
  if (offsets && !offsets.is_none()) {
    if (!py::isinstance<py::dict>(offsets))
      throw ArgumentTypeError(
          "offset_provider: expected a dict of connectivity tables ({'E2V': table}), got " +
          type_name(offsets));
    // gt4py's offset_provider is one dict for the grid: the tables of every program and a
    // Dimension for each Cartesian offset. A program takes the tables it uses and checks the
    // Dimensions of its Cartesian offsets; other entries are another program's.
    for (auto [key, value] : py::reinterpret_borrow<py::dict>(offsets)) {
      std::string k = py::str(key);
      if (!prog.is_table(k)) {
        if (std::string problem = prog.cartesian_entry_problem(k, value); !problem.empty())
          throw ArgumentTypeError("offset_provider[" + squoted(k) + "]: " + problem);
        continue;
      }
      g.args.arrays.emplace(k, borrow_array("offset_provider[" + squoted(k) + "]", value, ScalarType::Int32,
                                            2, false, true, g, k));
    }
  }
  return g;
}

// The neighbours per row of the tables given (the lowering fixes them for compiled backends).
std::map<std::string, std::int64_t> table_widths(const PyProgram& prog, const Arguments& args) {
  std::map<std::string, std::int64_t> widths;
  for (const auto& c : prog.conns)
    if (auto it = args.arrays.find(c.name); it != args.arrays.end() && it->second.ndim() == 2)
      widths[c.name] = it->second.shape()[1];
  return widths;
}

// The runtime program for `widths`, prepared once per program object (compiled: lowered for
// the tables' widths, compiled or found in the program cache, loaded). Called with the lock held.
std::shared_ptr<Program> prepared(const PyProgram& prog, const std::map<std::string, std::int64_t>& widths) {
  auto key = prog.compiled() ? widths : std::map<std::string, std::int64_t>{};
  std::shared_ptr<Program>& slot = prog.state->prepared[key];
  if (!slot) {
    if (prog.compiled()) {
      std::shared_ptr<Program> p = prepare(*prog.backend, lower_for_tables(prog.fv, widths));
      slot = prog.fv.orchestration ? with_orchestration_checks(std::move(p), prog.fv)
                                   : with_call_domain_checks(std::move(p), prog.fv);
    } else {
      slot = prepare(*prog.backend, prog.fv);
    }
  }
  return slot;
}

// `message` with the canonical path of the program's .py file replaced by the path as given to
// weir.load: compiled programs name their source by its canonical path (one program-cache
// entry however the path is spelt), messages name it as the user wrote it (as `weir run`).
std::string as_given(std::string message, const std::string& reference) {
  const std::string file = reference.substr(0, reference.rfind("::"));
  std::error_code ec;
  const std::string canonical =
      std::filesystem::weakly_canonical(std::filesystem::absolute(file, ec), ec).string();
  if (ec || canonical.empty() || canonical == file) return message;
  for (auto at = message.find(canonical); at != std::string::npos;
       at = message.find(canonical, at + file.size()))
    message.replace(at, canonical.size(), file);
  return message;
}

// `message` with the results of a @field_operator run directly named as the caller passed them:
// `__out` is out=, `__out_2` is out[2] (the runtime's names for them, which a Python caller never
// sees; `__out_I_size` and other names that only begin so are left alone).
std::string in_caller_terms(std::string message) {
  const std::string internal = "__out";
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = message.find(internal); at != std::string::npos; at = message.find(internal, at)) {
    if (at > 0 && ident(message[at - 1])) {
      at += internal.size();
      continue;
    }
    std::size_t end = at + internal.size();
    std::string replacement = "out";
    if (end + 1 < message.size() && message[end] == '_' &&
        std::isdigit(static_cast<unsigned char>(message[end + 1]))) {
      std::size_t digits = end + 1;
      while (digits < message.size() && std::isdigit(static_cast<unsigned char>(message[digits]))) ++digits;
      replacement = "out[" + message.substr(end + 1, digits - end - 1) + "]";
      end = digits;
    }
    if (end < message.size() && ident(message[end])) {
      at = end;
      continue;
    }
    message.replace(at, end - at, replacement);
    at += replacement.size();
  }
  return message;
}

void run_call(const PyProgram& prog, const py::args& args, const py::kwargs& kwargs);
void run_with_domain(const PyProgram& prog, const py::args& args, const py::kwargs& kwargs);

void call(const PyProgram& prog, const py::args& given_args, const py::kwargs& given_kwargs) {
  try {
    auto [args, kwargs] = flat_arguments(prog, given_args, given_kwargs);
    if (kwargs.contains("domain"))
      run_with_domain(prog, args, kwargs);
    else
      run_call(prog, args, kwargs);
  } catch (const weir::Error& e) {
    std::string message = as_given(e.what(), prog.reference);
    if (!prog.result_params().empty()) message = in_caller_terms(std::move(message));
    raise_error(python_error_class(std::current_exception()), message);
  }
}

void run_call(const PyProgram& prog, const py::args& args, const py::kwargs& kwargs) {
  // Arrays laid out as in an earlier call that passed every check: only what can differ
  // between such calls is checked (docs/adr/0042-python-api.md, "Fast path").
  const CallSite site = prog.call_site();
  CallLayout layout = call_layout(site, args, kwargs);
  if (run_cached(site, layout)) return;
  Gathered g = gather(prog, args, kwargs);
  refuse_overlaps(g);
  {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(prog.state->mutex);
    // The arguments in the embedded backend's words on every backend, before anything compiles.
    // A missing argument or table is a TypeError in Python, as for any function.
    try {
      check_embedded_arguments(prog.fv, g.args);
    } catch (const ArgumentError& e) {
      if (std::string(e.what()).rfind("missing ", 0) == 0) throw ArgumentTypeError(e.what());
      throw;
    }
    check_local_dimension_widths(prog.conns, prog.sig, g.args);
    std::shared_ptr<Program> program = prepared(prog, table_widths(prog, g.args));
    program->run(g.args);
    remember_call(site, layout, program, g.args);
    // A backend that ran on copies (the embedded backend's orchestration keeps the caller's
    // arrays unchanged until the whole function succeeded) left its results in fields of its
    // own: they go into the caller's buffers.
    write_back(g);
  }
}

// An integer of a domain= range (a Python or NumPy integer).
bool is_integer(py::handle obj) {
  return !py::isinstance<py::bool_>(obj) &&
         (PyLong_Check(obj.ptr()) || py::isinstance(obj, py::module_::import("numpy").attr("integer")));
}

// The name of a dimension as domain= gives it: its name ("I"), or an object whose `value` is
// its name (gt4py's Dimension, so that `domain={IDim: (1, 9)}` works where gt4py is imported).
std::string dimension_name(py::handle key) {
  if (PyUnicode_Check(key.ptr())) return py::str(key);
  if (py::hasattr(key, "value") && PyUnicode_Check(key.attr("value").ptr()))
    return py::str(key.attr("value"));
  throw ArgumentTypeError("domain: a key names a dimension: its name ('I') or a gt4py Dimension, got " +
                          type_name(key));
}

// The program that computes `prog` (a @field_operator) on a domain over `dims`, made once.
std::shared_ptr<PyProgram> domain_program(const PyProgram& prog, const std::vector<std::string>& dims) {
  py::gil_scoped_release nogil;
  std::lock_guard<std::mutex> lock(prog.state->mutex);
  std::shared_ptr<PyProgram>& slot = prog.state->with_domain[dims];
  if (!slot) {
    auto q = std::make_shared<PyProgram>();
    q->reference = prog.reference;
    q->include = prog.include;
    q->backend = prog.backend;
    q->fv = with_output_domain(prog.fv, dims);
    q->sig = field_view_signature(q->fv);
    q->conns = prog.conns;
    q->cartesian = prog.cartesian;
    q->slots = call_slots(*q);
    slot = std::move(q);
  }
  return slot;
}

// Throws when domain[dim], `range`, reaches outside an array of out= that has dimension `dim`, in
// the caller's terms (the domain as given, out= or out[i]): the program run_with_domain calls
// checks it too, but names the output by its internal name at the operator's `def` line. Arrays
// of the wrong kind are left to the call's own checks.
void refuse_domain_outside_out(const PyProgram& prog, const std::string& dim, py::handle range,
                               py::handle out) {
  if (!out || !prog.fv.definition) return;
  std::int64_t lo = 0, hi = 0;
  try {
    lo = range[py::int_(0)].cast<std::int64_t>();
    hi = range[py::int_(1)].cast<std::int64_t>();
  } catch (const py::cast_error&) {
    return;  // past int64: the bounds' own argument checks say so
  }
  const auto results = result_outputs(*prog.fv.definition);
  const bool tuple = py::isinstance<py::tuple>(out);
  for (std::size_t i = 0; i < results.size(); ++i) {
    py::handle a =
        tuple ? (i < py::len(out) ? out[py::int_(i)] : py::handle()) : (i == 0 ? out : py::handle());
    if (!a || !py::isinstance<py::array>(a)) continue;
    const auto arr = py::reinterpret_borrow<py::array>(a);
    const auto& dims = results[i].second.dims;
    if (static_cast<std::size_t>(arr.ndim()) != dims.size()) continue;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const std::int64_t n = arr.shape(static_cast<py::ssize_t>(d));
      if (dims[d].name != dim || (lo >= 0 && hi <= n)) continue;
      throw ArgumentError("domain[" + squoted(dim) + "] = (" + std::to_string(lo) + ", " +
                          std::to_string(hi) + ") reaches outside " +
                          (tuple ? "out[" + std::to_string(i) + "]" : std::string("out")) + ", which is " +
                          std::to_string(n) + " long along " + dim + " (" + dim + ": [0, " +
                          std::to_string(n) + ")); the domain is a part of the output");
    }
  }
}

// A @field_operator called with out= and domain={D: (start, stop)}: computes only that part of
// out (gt4py's meaning), as the @program call runtime::with_output_domain makes.
void run_with_domain(const PyProgram& prog, const py::args& args, const py::kwargs& kwargs) {
  const std::string& pname = prog.sig.program_name;
  if (prog.result_params().empty())
    throw ArgumentTypeError(
        pname + "() takes no domain=: " +
        (prog.fv.orchestration ? std::string("it is an orchestration function, and the programs it calls set")
                               : std::string("it is a @program, which sets")) +
        " the domain of each call inside (domain= or a sliced out= on the call); domain= is "
        "for a @field_operator called with out=");
  py::kwargs rest;
  for (auto [key, value] : kwargs)
    if (std::string(py::str(key)) != "domain") rest[key] = value;
  // The operator's own argument errors, in its words (the program below takes more arguments).
  // On every call, not only the first of a layout: the results of one call must agree in size
  // (check_embedded_arguments), which the program below, a @program, does not ask of its outputs.
  {
    Gathered g = gather(prog, args, rest);
    refuse_overlaps(g);
    check_embedded_arguments(prog.fv, g.args);
  }
  py::handle domain = kwargs["domain"];
  if (!py::isinstance<py::dict>(domain))
    throw ArgumentTypeError("domain: expected a dict {dimension: (start, stop)} such as {'I': (1, 9)}, got " +
                            type_name(domain));
  std::vector<std::string> dims;
  for (auto [key, range] : py::reinterpret_borrow<py::dict>(domain)) {
    std::string dim = dimension_name(key);
    if (!(py::isinstance<py::tuple>(range) || py::isinstance<py::list>(range)) || py::len(range) != 2 ||
        !is_integer(range[py::int_(0)]) || !is_integer(range[py::int_(1)]))
      throw ArgumentTypeError("domain[" + squoted(dim) + "]: expected (start, stop), two integers, got " +
                              std::string(py::repr(range)));
    dims.push_back(dim);
    rest[py::str(domain_start_argument(dim))] = range[py::int_(0)];
    rest[py::str(domain_stop_argument(dim))] = range[py::int_(1)];
    refuse_domain_outside_out(prog, dim, range, rest.contains("out") ? rest["out"] : py::object());
  }
  run_call(*domain_program(prog, dims), args, rest);
}

std::map<std::string, std::int64_t> widths_from_kwargs(const PyProgram& prog, const py::kwargs& kwargs) {
  std::map<std::string, std::int64_t> widths;
  if (!kwargs.contains("offset_provider") || kwargs["offset_provider"].is_none()) return widths;
  py::handle offsets = kwargs["offset_provider"];
  if (!py::isinstance<py::dict>(offsets))
    throw ArgumentTypeError("offset_provider: expected a dict of connectivity tables, got " +
                            type_name(offsets));
  for (auto [key, value] : py::reinterpret_borrow<py::dict>(offsets)) {
    std::string k = py::str(key);
    if (prog.is_table(k) && py::isinstance<py::array>(value) &&
        py::reinterpret_borrow<py::array>(value).ndim() == 2)
      widths[k] = py::reinterpret_borrow<py::array>(value).shape(1);
  }
  return widths;
}

PyProgram make_program(std::string reference, py::object backend, std::vector<std::string> include) {
  PyProgram p;
  if (backend.is_none()) backend = py::module_::import("weir.backends").attr("embedded");
  p.backend = backend_argument(backend, "backend");
  p.backend_object = backend;
  p.reference = std::move(reference);
  p.include = std::move(include);
  py::gil_scoped_release nogil;
  p.fv = load_field_view_reference(p.reference, p.include);
  check_backend(*p.backend, p.fv);
  p.sig = field_view_signature(p.fv);
  p.conns = connectivities_of(p.fv);
  p.cartesian = cartesian_offsets_of(p.fv);
  p.slots = call_slots(p);
  return p;
}

}  // namespace

std::string PyProgram::cartesian_entry_problem(const std::string& name, py::handle value) const {
  auto it = cartesian.find(name);
  if (it == cartesian.end()) return "";
  const std::string expected =
      "the Dimension " + squoted(it->second) + " that " + squoted(name) + " moves along";
  // gt4py's Dimension or weir.gt4py_stand_in's (a heap type's tp_name is its bare name).
  if (std::strcmp(Py_TYPE(value.ptr())->tp_name, "Dimension") != 0 || !py::hasattr(value, "value"))
    return "expected " + expected + " (a Cartesian offset needs no table), got " + type_name(value);
  py::object dim = value.attr("value");
  if (!py::isinstance<py::str>(dim) || dim.cast<std::string>() != it->second)
    return "expected " + expected + ", got the Dimension " + py::repr(dim).cast<std::string>();
  return "";
}

void bind_programs(py::module_& m) {
  py::class_<PyProgram>(m, "Program",
                        "A field-view program (FILE.py::NAME) on a backend, called with NumPy arrays (never "
                        "copied), numbers, out= and offset_provider=.")
      .def("__call__", &call)
      .def_property_readonly("name", [](const PyProgram& p) { return p.sig.program_name; })
      .def_property_readonly("reference", [](const PyProgram& p) { return p.reference; })
      .def_property_readonly("backend", [](const PyProgram& p) { return p.backend_object; })
      .def_property_readonly(
          "parameters",
          [](const PyProgram& p) {
            std::vector<std::string> names;
            for (const Parameter* q : p.user_params()) names.push_back(q->name);
            return names;
          },
          "The arguments it takes by position or name (a @field_operator's result is out=)")
      .def_property_readonly(
          "offsets",
          [](const PyProgram& p) {
            std::vector<std::string> names;
            for (const auto& c : p.conns) names.push_back(c.name);
            return names;
          },
          "The connectivities offset_provider= must give")
      .def(
          "with_backend",
          [](const PyProgram& p, const py::object& backend) {
            PyProgram q = p;
            q.backend = backend_argument(backend, "with_backend(): backend");
            q.backend_object = backend;
            check_backend(*q.backend, q.fv);
            q.state = std::make_shared<ProgramState>();
            return q;
          },
          py::arg("backend"), "The same program on another backend (a new Program; this one is unchanged)")
      .def(
          "compile",
          [](const PyProgram& p, const py::kwargs& kwargs) {
            auto widths = widths_from_kwargs(p, kwargs);
            py::gil_scoped_release nogil;
            std::lock_guard<std::mutex> lock(p.state->mutex);
            prepared(p, widths);
          },
          "Compiles now (or finds it in the program cache) what a call with these offset_provider tables "
          "runs")
      .def(
          "__sdfg__",
          [](const PyProgram& p, const py::args&, const py::kwargs& kwargs) {
            frontend::LoweringOptions options;
            options.max_neighbors = widths_from_kwargs(p, kwargs);
            py::gil_scoped_release nogil;
            std::unique_ptr<SDFG> s = p.fv.orchestration
                                          ? frontend::lower_orchestration(*p.fv.orchestration, options)
                                          : frontend::lower_to_sdfg(*p.fv.definition, options);
            return PySDFG{std::shared_ptr<SDFG>(std::move(s))};
          },
          "A fresh SDFG of the program, as `weir sdfg` writes it (lowered, not optimized), every call a new "
          "one")
      .def(
          "__sdfg_signature__",
          [](const PyProgram& p) {
            std::vector<std::string> names;
            for (const auto& q : p.sig.params) names.push_back(q.name);
            return py::make_tuple(names, std::vector<std::string>{});
          },
          "(argument names of the SDFG in order, constant arguments) as DaCe's Python frontend asks")
      .def(
          "__sdfg_closure__", [](const PyProgram&, const py::object&) { return py::dict(); },
          py::arg("reevaluate") = py::none(), "No arrays are captured from outside the program: {}")
      .def("__repr__", [](const PyProgram& p) {
        return "<weir.Program '" + p.sig.program_name + "' (" + p.reference + ") on backend '" +
               p.backend->name() + "'>";
      });

  m.def(
      "load", &make_program, py::arg("reference"), py::kw_only(), py::arg("backend") = py::none(),
      py::arg("include") = std::vector<std::string>{},
      "Loads and type-checks FILE.py::NAME (a @program, a @field_operator or an orchestration function) for "
      "`backend` (default: weir.backends.embedded); `include`: folders searched for imported modules.");
}

}  // namespace weir::python
