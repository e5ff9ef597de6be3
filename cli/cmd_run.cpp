// `weir run PROGRAM`: run a field-view program (FILE.py::PROGRAM; embedded or compiled) or an
// SDFG file (compiled) on a backend with arguments from .npy files and --set values; print a
// summary of the outputs and write them as .npy files.
#include <dlfcn.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "backend_choice.h"
#include "commands.h"
#include "gpu_on_host.h"
#include "progress.h"
#include "targets.h"
#include "weir/runtime/connectivity_check.h"
#include "weir/runtime/cuda_device.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/embedded.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/npy.h"
#include "weir/runtime/program_source.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/json_limits.h"
#include "weir/sdfg/sdfg.h"

namespace weir::cli {
namespace {

namespace fs = std::filesystem;
using namespace weir::runtime;

struct Opts {
  std::string program;
  std::string backend = "embedded", gpu_arch;
  std::vector<std::string> ins, sets, set_jsons, includes;
  std::string in_dir, out_dir;
  bool random_inputs = false, progress = false;
  bool trust_code = false;
  std::uint64_t seed = 0;
  int repeat = 1;
  unsigned threads = 0;
};

std::pair<std::string, std::string> split_assignment(const std::string& opt, const std::string& s) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw UsageError(opt + " " + s + ": expected NAME=VALUE");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

Number parse_number(const std::string& name, const std::string& v) {
  if (v == "true" || v == "True") return true;
  if (v == "false" || v == "False") return false;
  errno = 0;
  char* end = nullptr;
  long long i = std::strtoll(v.c_str(), &end, 10);
  if (*end == '\0' && errno == 0) return static_cast<std::int64_t>(i);
  errno = 0;
  double d = std::strtod(v.c_str(), &end);
  if (*end == '\0' && errno == 0) return d;
  if (*end == '\0' && errno == ERANGE && !v.empty())
    throw UsageError("--set " + name + "=" + v + ": '" + v + "' is out of range for float64");
  throw UsageError("--set " + name + "=" + v + ": '" + v + "' is not a number");
}

void read_set_json(const std::string& file, std::map<std::string, Number>& values) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw weir::Error(file + ": cannot read (--set-json)");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (auto problem = json_limit_problem(text)) throw weir::Error(file + ": not valid JSON: " + *problem);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw weir::Error(file + ": not valid JSON: " + e.what());
  }
  if (!j.is_object()) throw weir::Error(file + ": expected a JSON object of names to numbers");
  for (const auto& [k, v] : j.items()) {
    if (v.is_boolean())
      values[k] = v.get<bool>();
    else if (v.is_number_integer())
      values[k] = v.get<std::int64_t>();
    else if (v.is_number())
      values[k] = v.get<double>();
    else
      throw weir::Error(file + ": '" + k + "' is " + v.dump() + ", not a number");
  }
}

// Fills a field with seeded uniform values: [0, 1) for floats, 0..9 for integers, 0/1 for bool.
void fill_random(Field& f, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> real(0.0, 1.0);
  std::uniform_int_distribution<int> small(0, 9), bit(0, 1);
  auto* p = static_cast<unsigned char*>(f.data());
  auto put = [&]<class T>(std::int64_t i, T v) { std::memcpy(p + i * sizeof(T), &v, sizeof v); };
  for (std::int64_t i = 0; i < f.size(); ++i) {
    switch (f.dtype()) {
      case ScalarType::Float64: put(i, real(rng)); break;
      case ScalarType::Float32: put(i, static_cast<float>(real(rng))); break;
      case ScalarType::Bool: p[i] = static_cast<unsigned char>(bit(rng)); break;
      case ScalarType::Int8: put(i, static_cast<std::int8_t>(small(rng))); break;
      case ScalarType::Int16: put(i, static_cast<std::int16_t>(small(rng))); break;
      case ScalarType::Int32: put(i, static_cast<std::int32_t>(small(rng))); break;
      case ScalarType::Int64: put(i, static_cast<std::int64_t>(small(rng))); break;
      case ScalarType::UInt8: put(i, static_cast<std::uint8_t>(small(rng))); break;
      case ScalarType::UInt16: put(i, static_cast<std::uint16_t>(small(rng))); break;
      case ScalarType::UInt32: put(i, static_cast<std::uint32_t>(small(rng))); break;
      case ScalarType::UInt64: put(i, static_cast<std::uint64_t>(small(rng))); break;
      default: throw RuntimeError("--random-inputs: cannot fill " + f.describe());
    }
  }
}

std::string fmt(double v) {
  std::ostringstream os;
  os << std::setprecision(6) << v;
  return os.str();
}

std::string summary(const std::string& name, const Field& f) {
  double mn = std::numeric_limits<double>::infinity(), mx = -mn, sum = 0;
  std::int64_t nan = 0, n = 0;
  for (std::int64_t i = 0; i < f.size(); ++i) {
    double v = f.value_as_double(i);
    if (std::isnan(v)) {
      ++nan;
      continue;
    }
    mn = std::min(mn, v);
    mx = std::max(mx, v);
    sum += v;
    ++n;
  }
  std::string s = "  " + name + ": " + f.describe();
  if (n) s += "  min " + fmt(mn) + "  max " + fmt(mx) + "  mean " + fmt(sum / static_cast<double>(n));
  if (nan) s += "  NaN " + std::to_string(nan);
  return s + "  checksum " + f.checksum();  // (legend printed below the outputs)
}

std::string seconds(double s) {
  std::ostringstream os;
  if (s < 1e-3)
    os << std::fixed << std::setprecision(1) << s * 1e6 << " us";
  else if (s < 1)
    os << std::fixed << std::setprecision(3) << s * 1e3 << " ms";
  else
    os << std::fixed << std::setprecision(2) << s << " s";
  return os.str();
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// "640 GB", "1.5 MB": bytes for messages (decimal units).
std::string byte_size(long double bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (bytes >= 1000 && u < 6) bytes /= 1000, ++u;
  std::ostringstream os;
  os << std::setprecision(bytes < 10 && u > 0 ? 2 : 3) << static_cast<double>(bytes) << " " << units[u];
  return os.str();
}

// A --random-inputs array: refuses shapes larger than the machine's memory before trying, and
// names the argument when the allocation fails anyway.
Field allocate_input(const Backend& backend, const Parameter& p, const std::vector<std::int64_t>& shape) {
  long double bytes = static_cast<long double>(size_of(p.dtype));
  for (auto n : shape) {
    if (n < 0)
      throw ArgumentError("--random-inputs: argument '" + p.name + "': negative extent in shape " +
                          shape_str(shape));
    bytes *= static_cast<long double>(n);
  }
  long double memory =
      static_cast<long double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<long double>(::sysconf(_SC_PAGESIZE));
  std::string need = "argument '" + p.name + "': shape " + shape_str(shape) + " needs " + byte_size(bytes);
  if (memory > 0 && bytes > memory)
    throw ArgumentError(need + ", more than this machine's memory (" + byte_size(memory) + ")");
  try {
    return backend.allocator().allocate(p.dtype, shape);
  } catch (const std::bad_alloc&) {
    throw ArgumentError(need + ", which cannot be allocated");
  }
}

// Fails early (before compiling) when `out` cannot become a directory of outputs: makes and
// removes a probe directory in its nearest existing ancestor, which must be a directory.
void check_output_dir(const fs::path& out) {
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_directory(out, ec))
    throw weir::Error("--out " + out.string() + ": exists and is not a directory");
  fs::path base = fs::absolute(out, ec);
  while (!base.empty() && !fs::exists(base, ec) && base != base.parent_path()) base = base.parent_path();
  if (!fs::is_directory(base, ec))
    throw weir::Error("cannot write --out " + out.string() + ": " + base.string() + " is not a directory");
  fs::path probe = base / (".weir-probe-" + std::to_string(::getpid()));
  if (!fs::create_directory(probe, ec) || ec)
    throw weir::Error("cannot write --out " + out.string() + ": " +
                      (ec ? ec.message() : "cannot create a directory in " + base.string()));
  fs::remove(probe, ec);
}

// Writes the outputs into a temporary directory, then moves them into place, so
// `out` gets files only when every one could be written.
void write_outputs(const fs::path& out, const std::vector<std::pair<std::string, const Field*>>& outputs,
                   const std::vector<fs::path>& inputs) {
  for (const auto& [name, f] : outputs) {
    fs::path target = out / (name + ".npy");
    std::error_code ec;
    for (const auto& in : inputs)
      if (fs::exists(target, ec) && fs::equivalent(target, in, ec))
        throw weir::Error("--out " + out.string() + ": would overwrite the input file " + in.string() +
                          "; choose another output directory");
  }
  // The temporary directory is on the file system of the files' final place (renames across
  // file systems fail with "Invalid cross-device link"): inside `out` when it exists (it may be
  // a mount point), else beside it.
  std::error_code ec;
  bool existing = fs::is_directory(out, ec);
  fs::path parent = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  if (!existing) fs::create_directories(parent);
  fs::path tmp = existing
                     ? out / (".weir-tmp-" + std::to_string(::getpid()))
                     : parent / ("." + out.filename().string() + ".weir-tmp-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  try {
    for (const auto& [name, f] : outputs) write_npy(tmp / (name + ".npy"), *f);
    if (!existing) {
      fs::rename(tmp, out);
      return;
    }
    if (!fs::is_directory(out))
      throw weir::Error("--out " + out.string() + ": exists and is not a directory");
    for (const auto& [name, f] : outputs) fs::rename(tmp / (name + ".npy"), out / (name + ".npy"));
    fs::remove_all(tmp);
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
}

// Whether `symbol` is the size symbol of some field along `dim` (`__f_K_size` for K).
bool is_size_of(const std::string& symbol, const std::string& dim) {
  std::string suffix = "_" + dim + "_size";
  return symbol.size() > suffix.size() + 2 && symbol.rfind("__", 0) == 0 &&
         symbol.compare(symbol.size() - suffix.size(), std::string::npos, suffix) == 0;
}

// A value given with --set that names a dimension of a field-view program (`--set K=8`) rather
// than a parameter: with --random-inputs it is the extent of that dimension in every array that
// has it (size symbols `__f_K_size`). Returns the dimension names so used.
std::set<std::string> size_hints(const Signature& sig, const Arguments& args) {
  std::set<std::string> hints;
  for (const auto& [name, v] : args.values) {
    // (A connectivity table may share its name with its local dimension: E2V.)
    if (const Parameter* p = sig.find(name); p && p->kind != Parameter::Kind::Array) continue;
    if (!std::holds_alternative<std::int64_t>(v)) continue;
    for (const auto& p : sig.params)
      for (const auto& e : p.shape)
        for (const auto& s : e.free_symbols())
          if (is_size_of(s, name)) hints.insert(name);
  }
  return hints;
}

// The program to run: a field-view program on the embedded backend (interpreted), or an SDFG
// (from a file, or lowered from a field-view program) on a compiled backend.
struct Target {
  std::optional<FieldViewProgram> field_view;  // set when interpreted
  CompilableProgram sdfg;                      // set when compiled
  Signature sig;
  std::vector<ConnectivityParameter> connectivities;
};

Target load_target(const Opts& o, const Backend& backend) {
  Target t;
  if (is_field_view_reference(o.program)) require_definition_reference("run", o.program);
  bool compiled = dynamic_cast<const CompiledBackend*>(&backend) != nullptr;
  if (is_field_view_reference(o.program)) {
    FieldViewProgram fv = load_field_view_reference(o.program, o.includes);
    check_backend(backend, fv);
    t.connectivities = connectivities_of(fv);
    if (compiled) {
      t.sdfg = lower(fv);
    } else {
      t.sig = field_view_signature(fv);
      t.field_view = std::move(fv);
      return t;
    }
  } else {
    t.sdfg = load_program_source(o.program);
    t.sdfg.options.trust_code = o.trust_code;
    check_backend(backend, t.sdfg);
    t.connectivities = recorded_connectivities(*t.sdfg.sdfg);  // an SDFG lowered from a .py
  }
  t.sig = Signature::from_sdfg(*t.sdfg.sdfg);
  return t;
}

// The dimension a size symbol `__f_K_size` is along ("K"), or "" for other names.
std::string size_dimension(const std::string& symbol) {
  const std::string suffix = "_size";
  if (symbol.rfind("__", 0) != 0 || symbol.size() <= suffix.size() + 3 ||
      symbol.compare(symbol.size() - suffix.size(), std::string::npos, suffix) != 0)
    return "";
  std::string stem = symbol.substr(0, symbol.size() - suffix.size());
  return stem.substr(stem.rfind('_') + 1);
}

// Names --set may give: parameters, symbols, dimensions of fields (--set K=8) and of
// connectivity tables. Internal size symbols (`__f_K_size`) are accepted but never listed.
struct KnownNames {
  std::vector<std::string> order;  // parameters in call order, for messages
  std::set<std::string> params, dims;
  bool has(const std::string& n) const {
    return params.count(n) || dims.count(n) || !size_dimension(n).empty();
  }
  std::string listed() const {
    std::string s;
    for (const auto& p : order)
      if (size_dimension(p).empty()) s += (s.empty() ? "" : ", ") + p;
    std::string d;
    for (const auto& x : dims) d += (d.empty() ? "" : ", ") + x;
    return (s.empty() ? "no parameters" : "parameters: " + s) + (d.empty() ? "" : "; dimensions: " + d);
  }
};

KnownNames known_names(const Target& t) {
  KnownNames k;
  for (const auto& p : t.sig.params) {
    k.params.insert(p.name);
    k.order.push_back(p.name);
    for (const auto& e : p.shape)
      for (const auto& s : e.free_symbols())
        if (auto d = size_dimension(s); !d.empty()) k.dims.insert(d);
  }
  for (const auto& c : t.connectivities) k.dims.insert({c.from, c.to, c.local});
  return k;
}

// The extent of each dimension: `--set DIM=N` first, then what the arrays given say (a field's
// extent along DIM, a connectivity table's rows and neighbours), then the neighbours per row a
// compiled program fixes (V2E: int32[__V2E_rows, 6]).
std::map<std::string, std::int64_t> dimension_extents(const Target& t, const Arguments& args,
                                                      const std::set<std::string>& hints) {
  std::map<std::string, std::int64_t> dims;
  auto given_int = [&](const std::string& n) -> const std::int64_t* {
    auto it = args.values.find(n);
    return it == args.values.end() ? nullptr : std::get_if<std::int64_t>(&it->second);
  };
  for (const auto& h : hints)
    if (auto* v = given_int(h)) dims.emplace(h, *v);
  for (const auto& c : t.connectivities)
    for (const auto& d : {c.from, c.to, c.local})
      if (auto* v = given_int(d)) dims.emplace(d, *v);
  for (const auto& p : t.sig.params) {
    auto a = args.arrays.find(p.name);
    if (p.kind != Parameter::Kind::Array || a == args.arrays.end()) continue;
    for (std::size_t i = 0; i < p.shape.size() && i < a->second.ndim(); ++i)
      if (auto d = size_dimension(p.shape[i].str()); !d.empty()) dims.emplace(d, a->second.shape()[i]);
  }
  for (const auto& c : t.connectivities) {
    if (auto a = args.arrays.find(c.name); a != args.arrays.end() && a->second.ndim() == 2) {
      dims.emplace(c.from, a->second.shape()[0]);
      dims.emplace(c.local, a->second.shape()[1]);
    }
    if (const Parameter* p = t.sig.find(c.name); p && p->shape.size() == 2)
      if (auto n = p->shape[1].try_evaluate({})) dims.emplace(c.local, *n);
  }
  return dims;
}

// --set names the program lacks are errors (a typo must not run with a default); names from a
// --set-json file (often shared between programs) only warn.
void check_value_names(const Target& t, const Arguments& args,
                       const std::map<std::string, Number>& from_json) {
  KnownNames k = known_names(t);
  for (const auto& [name, v] : args.values) {
    if (k.has(name)) continue;
    std::string what = "program '" + t.sig.program_name + "' has no parameter, symbol or dimension '" + name +
                       "' (" + k.listed() + ")";
    if (!from_json.count(name)) throw UsageError("--set " + name + "=" + to_string(v) + ": " + what);
    std::cerr << "weir: warning: --set-json: " << what << "; ignored\n";
  }
}

// `--set K=8` sizes only the fields --random-inputs makes: say so when no such field is left.
void warn_unused_hints(const Opts& o, const Signature& sig, const Arguments& args,
                       const std::set<std::string>& hints) {
  for (const auto& h : hints) {
    bool used = false;
    for (const auto& p : sig.params)
      if (o.random_inputs && p.kind == Parameter::Kind::Array && !args.arrays.count(p.name))
        for (const auto& e : p.shape)
          for (const auto& s : e.free_symbols()) used = used || is_size_of(s, h);
    if (used) continue;
    std::cerr << "weir: warning: --set " << h << "=" << to_string(args.values.at(h)) << " is not used: "
              << (o.random_inputs
                      ? "every field along " + h + " was given, and sizes come from the arrays given"
                      : "sizes come from the arrays given (--set DIM=N sizes fields made by --random-inputs)")
              << "\n";
  }
}

// --threads for a program whose OpenMP runtime is already loaded (OMP_NUM_THREADS is read only
// when libgomp starts): sets the thread count of later parallel regions of this thread.
void set_openmp_threads(unsigned n) {
  if (!n) return;
  if (void* gomp = ::dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD)) {
    if (auto* set = reinterpret_cast<void (*)(int)>(::dlsym(gomp, "omp_set_num_threads")))
      set(static_cast<int>(n));
    ::dlclose(gomp);
  }
}

int run_command(const Opts& o) {
  std::unique_ptr<Backend> backend = choose_backend(o.backend, o.gpu_arch);
  // Running needs a device before anything is compiled for it.
  if (o.backend == "gpu") require_cuda_device();
  if (o.repeat < 1) throw UsageError("--repeat must be at least 1");
  if (!o.out_dir.empty()) check_output_dir(o.out_dir);
  Target target = load_target(o, *backend);
  const Signature& sig = target.sig;

  // Arguments: --in-dir, then --in (which wins), --set-json, then --set (which wins).
  Arguments args;
  std::vector<fs::path> input_files;
  auto load_input = [&](const std::string& name, const fs::path& file) {
    args.arrays.insert_or_assign(name, read_npy(file, backend->allocator()));
    input_files.push_back(file);
  };
  if (!o.in_dir.empty()) {
    if (!fs::is_directory(o.in_dir)) throw weir::Error("--in-dir " + o.in_dir + ": not a directory");
    for (const auto& p : sig.params)
      if (p.kind == Parameter::Kind::Array && fs::exists(fs::path(o.in_dir) / (p.name + ".npy")))
        load_input(p.name, fs::path(o.in_dir) / (p.name + ".npy"));
  }
  std::map<std::string, std::string> given_in;  // --in NAME -> FILE, to catch a name given twice
  for (const auto& s : o.ins) {
    auto [name, file] = split_assignment("--in", s);
    if (auto [it, fresh] = given_in.emplace(name, file); !fresh)
      throw UsageError("--in " + name + " is given twice (" + it->second + " and " + file + ")");
    load_input(name, file);
  }
  std::map<std::string, Number> from_json;
  for (const auto& f : o.set_jsons) read_set_json(f, from_json);
  for (const auto& [k, v] : from_json) args.values[k] = v;
  for (const auto& s : o.sets) {
    auto [name, v] = split_assignment("--set", s);
    if (args.values.count(name) && !from_json.count(name))
      throw UsageError("--set " + name + " is given twice");
    args.values[name] = parse_number(name, v);
  }
  std::set<std::string> hints = size_hints(sig, args);
  check_value_names(target, args, from_json);
  warn_unused_hints(o, sig, args, hints);
  if (o.random_inputs) {
    std::map<std::string, long long> symbols;
    for (const auto& [k, v] : args.values)
      if (auto* i = std::get_if<std::int64_t>(&v)) symbols[k] = *i;
    // The extent of each dimension (`--set K=8`, or from the arrays given) sizes every
    // `__f_K_size` not given otherwise, and the rows of connectivity tables.
    // Symbols an array given spells out as an extent (`A: [N, M]` of shape (64, 32): N=64, M=32).
    for (const auto& p : sig.params)
      if (auto a = args.arrays.find(p.name); p.kind == Parameter::Kind::Array && a != args.arrays.end())
        for (std::size_t i = 0; i < p.shape.size() && i < a->second.ndim(); ++i)
          if (auto fs = p.shape[i].free_symbols(); fs.size() == 1 && p.shape[i].str() == *fs.begin())
            symbols.emplace(*fs.begin(), a->second.shape()[i]);
    std::map<std::string, std::int64_t> dims = dimension_extents(target, args, hints);
    for (const auto& p : sig.params)
      for (const auto& e : p.shape)
        for (const auto& s : e.free_symbols())
          if (auto d = dims.find(size_dimension(s)); !symbols.count(s) && d != dims.end())
            symbols[s] = d->second;
    for (const auto& c : target.connectivities)
      if (const Parameter* p = sig.find(c.name); p && !p->shape.empty() && dims.count(c.from))
        if (auto rows = p->shape[0].free_symbols(); rows.size() == 1 && p->shape[0].str() == *rows.begin())
          symbols.emplace(*rows.begin(), dims.at(c.from));
    std::mt19937_64 rng(o.seed);
    for (const auto& p : sig.params) {
      if (p.kind != Parameter::Kind::Array || args.arrays.count(p.name)) continue;
      std::vector<std::int64_t> shape;
      std::set<std::string> need;
      for (const auto& e : p.shape) {
        if (auto v = e.try_evaluate(symbols)) shape.push_back(*v);
        for (const auto& s : e.free_symbols())
          if (!symbols.count(s)) need.insert(s);
      }
      if (!need.empty()) {
        std::string names;
        for (const auto& s : need) names += (names.empty() ? "" : ", ") + s;
        throw ArgumentError("--random-inputs: the shape of '" + p.name + "' (" + p.describe() + ") needs " +
                            names + "; give " + (need.size() == 1 ? "it" : "them") +
                            " with --set NAME=VALUE" +
                            (target.field_view || !target.connectivities.empty()
                                 ? " (or --set DIM=N for every field's extent along DIM)"
                                 : ""));
      }
      Field f = allocate_input(*backend, p, shape);
      const ConnectivityParameter* conn = nullptr;
      for (const auto& c : target.connectivities)
        if (c.name == p.name) conn = &c;
      if (conn) {
        // Valid neighbour indices: uniform in [0, extent of the dimension the table indexes).
        auto it = dims.find(conn->to);
        if (it == dims.end())
          throw ArgumentError("--random-inputs: the connectivity table '" + p.name + "' indexes dimension '" +
                              conn->to + "'; give its extent with --set " + conn->to +
                              "=N (or an array along " + conn->to + ")");
        std::uniform_int_distribution<std::int64_t> idx(0, std::max<std::int64_t>(0, it->second - 1));
        for (std::int64_t i = 0; i < f.size(); ++i) {
          auto v = idx(rng);
          if (f.dtype() == ScalarType::Int32)
            static_cast<std::int32_t*>(f.data())[i] = static_cast<std::int32_t>(v);
          else
            static_cast<std::int64_t*>(f.data())[i] = v;
        }
      } else {
        fill_random(f, rng);
      }
      args.arrays.insert_or_assign(p.name, std::move(f));
    }
  }
  for (const auto& h : hints) args.values.erase(h);
  // `--set V2E=6` names the neighbours per row of table V2E (its local dimension) on every
  // backend: a compiled program fixes that number, so it is checked, not passed.
  for (const auto& c : target.connectivities) {
    auto v = args.values.find(c.local);
    const Parameter* p = sig.find(c.local);
    if (v == args.values.end() || (p && p->kind != Parameter::Kind::Array)) continue;
    if (const Parameter* t = sig.find(c.name); t && t->shape.size() == 2)
      if (auto n = t->shape[1].try_evaluate({});
          n && std::get_if<std::int64_t>(&v->second) && *n != std::get<std::int64_t>(v->second))
        throw UsageError("--set " + c.local + "=" + to_string(v->second) + ": this program has " +
                         std::to_string(*n) + " neighbours per row in '" + c.name + "'");
    args.values.erase(v);
  }
  // Check the arguments before compiling, so that mistakes show at once.
  if (target.field_view)
    check_embedded_arguments(*target.field_view, args);
  else
    with_int32_tables(target.connectivities, sig, args, [&] { bind_arguments(sig, args); });
  check_connectivities(target.connectivities, sig, args);

  std::string origin = target.field_view ? target.field_view->origin : target.sdfg.origin;
  std::cout << "program '" << sig.program_name << "' (" << origin << ") on backend '" << backend->name()
            << "'\n";
  if (!target.field_view && target.sdfg.sdfg)
    if (std::string note = gpu_on_host_note(*target.sdfg.sdfg); !note.empty()) std::cout << note << "\n";
  if (o.threads) ::setenv("OMP_NUM_THREADS", std::to_string(o.threads).c_str(), 1);  // before OpenMP starts
  bool progress = progress_wanted(o.progress);
  auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<Program> runnable;
  if (target.field_view) {
    runnable = prepare(*backend, *target.field_view);
    std::cout << "interpreted by the embedded backend (nothing to compile)\n";
  } else {
    CompilationArtifact a;
    {
      Progress p("compiling '" + sig.program_name + "' (C++/OpenMP)", progress);
      a = compile(*backend, target.sdfg);
    }
    double compile_s = since(t0);
    runnable = prepare(*backend, target.sdfg);  // from the cache now
    if (a.cache_hit)
      std::cout << "loaded from cache in " << seconds(since(t0)) << " (" << a.library.string() << ")\n";
    else
      std::cout << "compiled in " << seconds(compile_s) << " (cached for the next run: " << a.library.string()
                << ")\n";
  }
  set_openmp_threads(o.threads);

  // Every call starts from the inputs: arrays the program writes are restored before each repeat.
  std::map<std::string, Field> pristine;
  if (o.repeat > 1)
    for (const auto& p : sig.params)
      if (p.written && args.arrays.count(p.name)) pristine.emplace(p.name, args.arrays.at(p.name).clone());
  for (int i = 0; i < o.repeat; ++i) {
    if (i > 0)
      for (const auto& [name, f] : pristine) {
        Field& dst = args.arrays.at(name);
        std::memcpy(dst.data(), f.data(), f.nbytes());
      }
    auto t = std::chrono::steady_clock::now();
    try {
      Progress p("call " + std::to_string(i + 1) + (target.field_view ? " (embedded backend)" : ""),
                 progress);
      runnable->run(args);
    } catch (const weir::Error& e) {
      // A @field_operator run directly writes its result over all of `__out`, which a stencil
      // with shifted reads cannot cover: say how to give it a smaller domain.
      if (!sig.find("__out")) throw;
      throw weir::Error(
          std::string(e.what()) + "\n  hint: '" + sig.program_name +
          "' is a @field_operator run directly, so its result must cover the whole output array "
          "'__out' (shaped like its inputs); to compute it on part of the domain, run a @program that "
          "calls it with a sliced out=, e.g. " +
          sig.program_name + "(..., out=out[1:-1, 1:-1])");
    }
    std::cout << "call " << (i + 1) << ": " << seconds(since(t)) << "\n";
  }

  std::vector<std::pair<std::string, const Field*>> outputs;
  for (const auto& p : sig.params)
    if (p.kind == Parameter::Kind::Array && p.written) outputs.emplace_back(p.name, &args.arrays.at(p.name));
  std::cout << "outputs (" << outputs.size() << "):\n";
  for (const auto& [name, f] : outputs) std::cout << summary(name, *f) << "\n";
  if (!outputs.empty())
    std::cout
        << "  (checksum: the first 16 hex digits of the SHA-256 of the array's bytes; equal checksums mean "
           "bit-identical results)\n";
  for (const auto& p : sig.params)
    if (p.kind == Parameter::Kind::Scalar && p.written)
      std::cout << "  " << p.name << " = " << to_string(args.values.at(p.name)) << "\n";
  if (!o.out_dir.empty()) {
    write_outputs(o.out_dir, outputs, input_files);
    std::cout << "wrote " << outputs.size() << " file" << (outputs.size() == 1 ? "" : "s") << " to "
              << o.out_dir << "\n";
  }
  return kExitOk;
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "run", "Run a program (FILE.py::PROGRAM or an SDFG file) on a backend with arguments from .npy files");
  auto o = std::make_shared<Opts>();
  cmd->add_option("program", o->program,
                  "FILE.py::NAME (a field-view @program or @field_operator) or FILE.sdfg / FILE.sdfgz")
      ->required();
  cmd->add_option(
      "--backend", o->backend,
      "embedded (default; interprets field-view programs), cpu (compiled C++/OpenMP; needed for SDFG files) "
      "or gpu (CUDA, compiled by nvcc: needs a CUDA device)");
  cmd->add_option("--gpu-arch", o->gpu_arch, kGpuArchHelp);
  cmd->add_option("-I,--include", o->includes,
                  "Directory searched for modules a .py program imports (repeatable; "
                  "WEIR_PATH is searched too)");
  cmd->add_option("--in", o->ins, "NAME=FILE.npy: an array argument (repeatable)");
  cmd->add_option("--in-dir", o->in_dir, "DIR: every array argument NAME that has a DIR/NAME.npy");
  cmd->add_option("--set", o->sets, "NAME=VALUE: a scalar argument or symbol (repeatable)");
  cmd->add_option("--set-json", o->set_jsons, "FILE: a JSON object of names to numbers (repeatable)");
  cmd->add_option("--out", o->out_dir,
                  "DIR: write NAME.npy for every array the program writes (after it succeeded)");
  cmd->add_flag(
      "--random-inputs", o->random_inputs,
      "Fill array arguments not given with seeded uniform values ([0,1) floats, 0..9 integers, valid indices "
      "in "
      "connectivity tables); sizes from --set (for .py programs --set DIM=N sizes every field along DIM)");
  cmd->add_option("--seed", o->seed, "Seed of --random-inputs (default 0)")
      ->check(CLI::Validator(
          [](std::string& v) {
            return !v.empty() && v.find_first_not_of("0123456789") == std::string::npos
                       ? std::string()
                       : "--seed: '" + v + "' is not a non-negative integer";
          },
          "UINT"));
  cmd->add_flag("--trust-code", o->trust_code, kTrustCodeHelp);
  cmd->add_option("--repeat", o->repeat,
                  "Run N times (each from the same inputs), printing each call's wall time");
  cmd->add_option(
      "--threads", o->threads,
      "OpenMP threads of a compiled program (default: OMP_NUM_THREADS if set, else one per hardware "
      "thread); the embedded backend runs on one thread");
  cmd->add_flag(
      "--progress", o->progress,
      "Report the elapsed time of compiling and of each call on stderr also when stderr is not a terminal");
  return [o]() {
    try {
      return run_command(*o);
    } catch (const UsageError& e) {
      std::cerr << "weir: error: " << e.what() << "\n";
      return kExitUsage;
    }
  };
}

}  // namespace weir::cli
