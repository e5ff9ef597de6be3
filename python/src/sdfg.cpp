// weir.SDFG (load, save, JSON, validation, equality) and weir.optimize
// (docs/adr/0042-python-api.md, "SDFGs").
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bindings.h"
#include "call_cache.h"
#include "run_profile.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/run_for_symbols.h"
#include "weir/sdfg/json_text.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/compose.h"
#include "weir/transforms/pipeline.h"
#include "weir/transforms/registry.h"
#include "weir/transforms/script.h"

namespace weir::python {

namespace {

SDFG& graph(const PySDFG& s) {
  if (!s.sdfg) throw py::value_error("empty weir.SDFG");
  return *s.sdfg;
}

PySDFG copy(const PySDFG& s) { return PySDFG{std::shared_ptr<SDFG>(graph(s).clone_sdfg())}; }

std::string path_text(py::handle path) { return py::str(py::module_::import("os").attr("fspath")(path)); }

// JSON text from a dict/list (json.dumps) or a str.
std::string json_text(py::handle obj) {
  if (py::isinstance<py::str>(obj)) return obj.cast<std::string>();
  return py::str(py::module_::import("json").attr("dumps")(obj));
}

// The text of optimize()'s script=: JSON text (a str whose first non-blank character is '[' or
// '{'), a file (any other str, or a path object), or the script as Python objects (a list or
// dict, json.dumps). `origin` becomes the file's name where it is one (errors name it).
std::string script_text(py::handle script, std::string& origin) {
  if (py::isinstance<py::list>(script) || py::isinstance<py::dict>(script)) return json_text(script);
  const bool is_str = py::isinstance<py::str>(script);
  if (!is_str && !py::hasattr(script, "__fspath__"))
    throw py::type_error(
        "optimize(): script= must be a script file (a str or path), its JSON text (a str starting with "
        "'[' or '{') or its JSON as a list or dict, not " +
        type_name(script));
  if (is_str) {
    std::string text = script.cast<std::string>();
    auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && (text[first] == '[' || text[first] == '{')) return text;
  }
  origin = path_text(script);
  std::error_code ec;
  if (!std::filesystem::exists(origin, ec))
    throw weir::Error("script '" + origin +
                      "': no such file (script= takes a file, the script's JSON text starting with '[' or "
                      "'{', or a list or dict)");
  if (std::filesystem::is_directory(origin, ec))
    throw weir::Error("script '" + origin + "': is a directory, not a script file");
  std::ifstream f(origin, std::ios::binary);
  if (!f) throw weir::Error("cannot read script '" + origin + "': " + std::strerror(errno));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

PySDFG optimize(const PySDFG& s, py::object automatic, py::object passes, py::object script) {
  int given = !automatic.is_none() + !passes.is_none() + !script.is_none();
  if (given != 1)
    throw py::type_error(
        "optimize(): give exactly one of auto= ('cpu' or 'gpu'), passes= (pipeline text) and "
        "script= (a script file, its JSON text, or its JSON as a list or dict)");
  std::unique_ptr<transforms::Pass> pipeline;
  std::vector<transforms::ScriptStep> steps;
  std::string origin = "<script>";
  if (!automatic.is_none()) {
    std::string device = py::str(automatic);
    for (char& c : device) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    pipeline = transforms::make_pass("auto-optimize-" + device);
    if (!pipeline) {
      std::string devices;
      for (const auto& n : transforms::pass_names())
        if (n.rfind("auto-optimize-", 0) == 0) devices += (devices.empty() ? "" : ", ") + n.substr(14);
      throw py::value_error("optimize(): unknown device '" + std::string(py::str(automatic)) +
                            "' for auto= (devices: " + devices + ")");
    }
  } else if (!passes.is_none()) {
    pipeline = transforms::parse_pipeline(passes.cast<std::string>());
  } else {
    std::string text = script_text(script, origin);
    steps = transforms::parse_script(text, origin);
  }
  PySDFG out = copy(s);
  py::gil_scoped_release nogil;
  if (pipeline)
    transforms::run_recorded(*out.sdfg, *pipeline);
  else
    transforms::apply_script(*out.sdfg, steps, origin);
  return out;
}

// weir.compose: the SDFG `weir compose SPEC.json` writes. `spec` is the description's file (its
// stages are read relative to its folder) or the description itself as a dict (stages relative
// to `base_dir`, default the working directory); errors name the file as the CLI's do.
PySDFG compose(py::object spec, py::object base_dir) {
  std::string text;
  std::string origin = "composition description";
  std::string base = ".";
  if (py::isinstance<py::str>(spec) || py::hasattr(spec, "__fspath__")) {
    origin = path_text(spec);
    std::ifstream f(origin, std::ios::binary);
    if (!f) throw weir::Error(origin + ": cannot be read");
    std::stringstream ss;
    ss << f.rdbuf();
    text = ss.str();
    base = std::filesystem::path(origin).parent_path().string();
  } else if (py::isinstance<py::dict>(spec)) {
    text = json_text(spec);
  } else {
    throw py::type_error(
        "compose(): expected the description's file (a str or path) or the description as a "
        "dict, got " +
        type_name(spec));
  }
  if (!base_dir.is_none()) base = path_text(base_dir);
  try {
    py::gil_scoped_release nogil;
    return PySDFG{std::shared_ptr<SDFG>(transforms::compose_sdfgs(text, base, origin))};
  } catch (const InvalidJsonError&) {  // located in the file already
    throw;
  } catch (const weir::Error& e) {
    raise_error(python_error_class(std::current_exception()), origin + ": " + e.what());
  }
}

// An SDFG compiled for a backend (SDFG.compile): called with arguments by name as `weir run`
// binds them (SDFG::arglist()), arrays borrowed, never copied. Compiled with profile=True, its
// timers are read after every call (`profiler`, as `weir run --profile`; `symbols`: the last
// call's symbol values, which the static costs are evaluated with).
struct CompiledSDFG {
  py::object backend;
  runtime::Signature sig;
  std::shared_ptr<runtime::Program> program;
  std::shared_ptr<std::mutex> mutex = std::make_shared<std::mutex>();
  std::shared_ptr<cli::RunProfiler> profiler;
  std::shared_ptr<std::map<std::string, std::int64_t>> symbols =
      std::make_shared<std::map<std::string, std::int64_t>>();
  /// The fast path of repeated calls (call_cache.h): one slot per parameter in arglist order;
  /// empty (every call checked) for a program that returns arrays, which each call allocates.
  std::vector<CallSlot> slots;
  std::shared_ptr<std::vector<CachedCall>> calls = std::make_shared<std::vector<CachedCall>>();

  CallSite call_site() const {
    CallSite site;
    site.slots = &slots;
    site.users = slots.size();
    site.mutex = mutex.get();
    site.calls = calls.get();
    if (profiler)  // the report's symbol values and the call's time, as the checked call keeps them
      site.after_run = [this](const std::map<std::string, std::int64_t>& values, double seconds) {
        *symbols = values;
        profiler->after_call(seconds);
      };
    return site;
  }
};

// The slots of an SDFG's calls: its parameters in arglist order (CompiledSDFG::slots).
std::vector<CallSlot> sdfg_call_slots(const runtime::Signature& sig) {
  using runtime::Parameter;
  std::vector<CallSlot> slots;
  for (const Parameter& p : sig.params) {
    if (p.returned) return {};
    const CallSlot::Kind kind = p.kind == Parameter::Kind::Array    ? CallSlot::Kind::Array
                                : p.kind == Parameter::Kind::Symbol ? CallSlot::Kind::Symbol
                                                                    : CallSlot::Kind::Scalar;
    slots.push_back({p.name, kind, p.dtype, p.shape.size(), p.written});
  }
  return slots;
}

CompiledSDFG compile_sdfg(const PySDFG& s, py::object backend, bool trust_code, bool profile,
                          std::optional<int> depth) {
  // None (the default): only elements timed a bounded number of times per call (as `weir run
  // --profile` without --profile-depth).
  const int profile_depth = depth.value_or(0);
  if (profile_depth < 0)
    throw py::value_error("SDFG.compile(): profile_depth must be 0 or more, not " +
                          std::to_string(profile_depth));
  if (depth && !profile)
    throw py::value_error(
        "SDFG.compile(): profile_depth limits the timers of profile=True: give profile=True too");
  if (backend.is_none()) backend = py::module_::import("weir.backends").attr("cpu");
  std::shared_ptr<const runtime::Backend> b = backend_argument(backend, "SDFG.compile(): backend");
  // An embedded backend fails in prepare() as without timers (BackendError: nothing compiled).
  if (profile && b->name() == "gpu")
    throw runtime::BackendError(
        "SDFG.compile(profile=True) times CPU code only so far (CUDA events are not implemented): use "
        "weir.backends.cpu");
  runtime::CompilableProgram p;
  std::size_t omitted = 0;
  p.sdfg = profile ? cli::with_timers(graph(s), profile_depth, !depth, &omitted)
                   : std::shared_ptr<const SDFG>(graph(s).clone_sdfg());
  p.options.trust_code = trust_code;
  p.origin = "SDFG '" + p.sdfg->name + "'";
  CompiledSDFG c;
  c.backend = backend;
  py::gil_scoped_release nogil;
  runtime::CompilationArtifact loaded;
  c.program = runtime::prepare(*b, p, &loaded);
  c.sig = runtime::Signature::from_sdfg(*p.sdfg);
  if (profile) {
    c.profiler = std::make_shared<cli::RunProfiler>(loaded.library, p.sdfg);
    c.profiler->set_omitted(omitted);
  }
  c.slots = sdfg_call_slots(c.sig);
  return c;
}

// CompiledSDFG.profile(): the report of the calls so far as weir._profile.Profile(report, table).
py::object profile_of(const CompiledSDFG& c, bool probe) {
  if (!c.profiler)
    throw py::value_error("CompiledSDFG.profile(): '" + c.sig.program_name +
                          "' was compiled without timers: compile it with SDFG.compile(profile=True)");
  py::module_ helpers = py::module_::import("weir._profile");
  const std::string library = probe ? py::str(helpers.attr("probe_library")()).cast<std::string>() : "";
  std::string report, table;
  {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(*c.mutex);
    if (c.profiler->calls() == 0)
      throw runtime::ArgumentError("CompiledSDFG.profile(): '" + c.sig.program_name +
                                   "' has not been called yet: call it, then ask for its profile");
    const cli::ProfileData& data = c.profiler->complete(*c.symbols, library);
    report = cli::profile_report_json(data).dump();
    std::ostringstream text;
    text << cli::profile_headline(data) << "\n";
    cli::print_profile_table(data, text);
    table = text.str();
  }
  return helpers.attr("Profile")(py::module_::import("json").attr("loads")(report), table);
}

// A field the program returned (DaCe's __return), as a new NumPy array.
py::object returned_array(const runtime::Field& f) {
  std::vector<py::ssize_t> shape(f.shape().begin(), f.shape().end());
  py::array a(py::dtype(std::string(to_string(f.dtype()))), shape);
  std::memcpy(a.mutable_data(), f.data(), f.nbytes());
  return a;
}

py::object call_sdfg(const CompiledSDFG& c, const py::args& args, const py::kwargs& kwargs) {
  using runtime::Parameter;
  // Arrays laid out as in an earlier call that passed every check, the same symbol values: only
  // what can differ between such calls is checked (docs/adr/0042-python-api.md, "Fast path").
  const CallSite site = c.call_site();
  const CallLayout layout = call_layout(site, args, kwargs);
  if (run_cached(site, layout)) return py::none();
  std::vector<const Parameter*> positional;
  for (const auto& p : c.sig.params)
    if (!p.returned) positional.push_back(&p);
  if (args.size() > positional.size())
    throw ArgumentTypeError(c.sig.program_name + "() takes " + std::to_string(positional.size()) +
                            " positional arguments (" + c.sig.names() + ") but " +
                            std::to_string(args.size()) + " were given");
  std::map<std::string, py::handle> given;
  for (std::size_t i = 0; i < args.size(); ++i) given[positional[i]->name] = args[i];
  for (auto [key, value] : kwargs) {
    std::string k = py::str(key);
    const Parameter* p = c.sig.find(k);
    if (!p)
      throw ArgumentTypeError(c.sig.program_name + "() got an unexpected argument '" + k + "' (it takes " +
                              c.sig.names() + ")");
    if (given.count(k))
      throw ArgumentTypeError(c.sig.program_name + "() got multiple values for argument '" + k + "'");
    given[k] = value;
  }
  Gathered g;
  for (const auto& [name, value] : given) {
    const Parameter& p = *c.sig.find(name);
    const std::string what = "argument '" + name + "'";
    if (p.kind == Parameter::Kind::Array)
      g.args.arrays.emplace(name,
                            borrow_array(what, value, p.dtype, p.shape.size(), p.written, false, g, name));
    else
      g.args.values.emplace(name, number_argument(what, value, p.dtype));
  }
  refuse_overlaps(g);
  {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(*c.mutex);
    const auto t0 = std::chrono::steady_clock::now();
    if (c.profiler) {
      // The report's symbol values from the call's own binding: binding the arguments again
      // after the call cost ~10 us per call (docs/adr/0048-profiling.md, session 37).
      runtime::run_for_symbols(*c.program, g.args, *c.symbols);
      c.profiler->after_call(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      remember_call(site, layout, c.program, g.args);
    } else {
      c.program->run(g.args);
      remember_call(site, layout, c.program, g.args);
    }
    write_back(g);
  }
  // Return values the caller did not give (allocated by argument binding), as DaCe returns them.
  std::vector<py::object> results;
  for (const auto& p : c.sig.params) {
    if (!p.returned || given.count(p.name)) continue;
    if (auto a = g.args.arrays.find(p.name); a != g.args.arrays.end())
      results.push_back(returned_array(a->second));
    else if (auto v = g.args.values.find(p.name); v != g.args.values.end())
      results.push_back(std::visit([](auto x) { return py::cast(x); }, v->second));
  }
  if (results.empty()) return py::none();
  if (results.size() == 1) return results[0];
  py::tuple t(results.size());
  for (std::size_t i = 0; i < results.size(); ++i) t[i] = results[i];
  return t;
}

}  // namespace

void bind_sdfg(py::module_& m) {
  py::class_<CompiledSDFG>(m, "CompiledSDFG",
                           "An SDFG compiled for a backend: call it with its arguments (arglist order or by "
                           "name); arrays are passed without copying, return values are returned.")
      .def("__call__", &call_sdfg)
      .def("profile", &profile_of, py::kw_only(), py::arg("probe") = true,
           "The profile of the calls so far (compiled with profile=True), as `weir run --profile` makes it: "
           "a weir.Profile with `report` (a dict in DaCe's instrumentation-report format, weir's summary "
           "under 'weir_profile') and `table` (the 10 elements of largest median time, as text); probe=False "
           "skips the bandwidth probe (no '% of probe')")
      .def_property_readonly("backend", [](const CompiledSDFG& c) { return c.backend; })
      .def_property_readonly("arglist",
                             [](const CompiledSDFG& c) {
                               std::vector<std::string> names;
                               for (const auto& p : c.sig.params) names.push_back(p.name);
                               return names;
                             })
      .def("__repr__",
           [](const CompiledSDFG& c) { return "<weir.CompiledSDFG '" + c.sig.program_name + "'>"; });

  py::class_<Diagnostic>(m, "Problem", "A problem validate() found, with the element it is about.")
      .def_readonly("code", &Diagnostic::code)
      .def_readonly("message", &Diagnostic::message)
      .def_property_readonly("element", [](const Diagnostic& d) { return d.where.describe(); })
      .def("__str__", &Diagnostic::str)
      .def("__repr__", [](const Diagnostic& d) { return "<weir.Problem " + d.str() + ">"; });

  py::class_<PySDFG>(m, "SDFG",
                     "A stateful dataflow graph in DaCe's format. Each object owns its graph: changing it "
                     "changes nothing else.")
      .def_static(
          "load",
          [](py::object path) {
            std::string p = path_text(path);
            py::gil_scoped_release nogil;
            return PySDFG{std::shared_ptr<SDFG>(load_sdfg(p))};
          },
          py::arg("path"), "Reads a .sdfg or .sdfgz file")
      .def_static(
          "from_json",
          [](py::object json) { return PySDFG{std::shared_ptr<SDFG>(sdfg_from_json_text(json_text(json)))}; },
          py::arg("json"), "From DaCe's JSON: a dict (as to_json() returns) or its text")
      .def(
          "save",
          [](const PySDFG& s, py::object path, int indent) {
            SaveOptions o;
            o.indent = indent;
            std::string p = path_text(path);
            py::gil_scoped_release nogil;
            save_sdfg(graph(s), p, o);
          },
          py::arg("path"), py::arg("indent") = -1,
          "Writes the SDFG (atomically; .sdfgz: gzip-compressed); indent -1 writes compact JSON as DaCe")
      .def(
          "to_json",
          [](const PySDFG& s) {
            return py::module_::import("json").attr("loads")(sdfg_to_json_text(graph(s)));
          },
          "DaCe's JSON of the SDFG as a dict")
      .def(
          "validate", [](const PySDFG& s) { return validate(graph(s)); },
          "Every problem of the SDFG and its nested SDFGs (an empty list when it is valid)")
      .def_property(
          "name", [](const PySDFG& s) { return graph(s).name; },
          [](PySDFG& s, std::string name) { graph(s).name = std::move(name); })
      .def_property_readonly(
          "arglist", [](const PySDFG& s) { return graph(s).arglist(); },
          "The arguments of the program it compiles to, in order")
      .def_property_readonly(
          "history",
          [](const PySDFG& s) {
            py::list out;
            py::object loads = py::module_::import("json").attr("loads");
            for (const auto& e : transforms::transformation_history(graph(s))) out.append(loads(e));
            return out;
          },
          "The transformations recorded in the SDFG (DaCe's, then weir's), each as a dict")
      .def(
          "compile", &compile_sdfg, py::kw_only(), py::arg("backend") = py::none(),
          py::arg("trust_code") = false, py::arg("profile") = false, py::arg("profile_depth") = py::none(),
          "Compiles a copy of the SDFG for `backend` (default weir.backends.cpu; from the program cache when "
          "compiled before) into a callable weir.CompiledSDFG; trust_code: compile C++ written in the SDFG "
          "(as `weir run --trust-code`); profile: with timers (the instrument-timers pass, as `weir run "
          "--profile`), read after every call: CompiledSDFG.profile() gives the report; profile_depth: time "
          "elements down to that nesting level only (as `--profile-depth`; 1: outside maps; 0: every level; "
          "None: only elements timed a bounded number of times per call)")
      .def("copy", &copy)
      .def("__copy__", &copy)
      .def("__deepcopy__", [](const PySDFG& s, py::object) { return copy(s); })
      .def(
          "difference", [](const PySDFG& a, const PySDFG& b) { return sdfg_difference(graph(a), graph(b)); },
          py::arg("other"), "The first difference from `other` ('' when they are equal)")
      .def("__eq__",
           [](const PySDFG& a, py::object b) {
             return py::isinstance<PySDFG>(b) &&
                    sdfg_difference(graph(a), graph(b.cast<const PySDFG&>())).empty();
           })
      .def("__repr__", [](const PySDFG& s) { return "<weir.SDFG '" + graph(s).name + "'>"; });
  // __eq__ without __hash__: SDFGs are mutable, hence unhashable (as Python's lists).
  m.attr("SDFG").attr("__hash__") = py::none();

  m.def(
      "compose", &compose, py::arg("spec"), py::kw_only(), py::arg("base_dir") = py::none(),
      "The SDFG `weir compose` builds (docs/compose.md): SDFG files called in a sequence on the arrays of "
      "one "
      "SDFG. `spec`: the description's .json file (stage files relative to its folder) or the description as "
      "a dict (stage files relative to base_dir, default the working directory).");
  m.def("optimize", &optimize, py::arg("sdfg"), py::kw_only(), py::arg("auto") = py::none(),
        py::arg("passes") = py::none(), py::arg("script") = py::none(),
        "A new SDFG: `sdfg` optimized by auto-optimize for a device (auto='cpu' or 'gpu'), a pipeline "
        "(passes='simplify,map-fusion') or a transformation script (script=: a file path, its JSON text -- a "
        "str "
        "starting with '[' or '{' -- or its JSON as a list or dict), every application "
        "recorded in its history (as `weir optimize`); `sdfg` is unchanged.");
}

}  // namespace weir::python
