// `weir run PROGRAM`: run an SDFG file (or, with the frontend, FILE.py::PROGRAM) on a backend
// with arguments from .npy files and --set values; print a summary of the outputs and write
// them as .npy files.
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
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "commands.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/npy.h"
#include "weir/runtime/program_source.h"
#include "weir/sdfg/sdfg.h"

namespace weir::cli {
namespace {

namespace fs = std::filesystem;
using namespace weir::runtime;

struct Opts {
  std::string program;
  std::string backend = "embedded";
  std::vector<std::string> ins, sets, set_jsons;
  std::string in_dir, out_dir;
  bool random_inputs = false;
  std::uint64_t seed = 0;
  int repeat = 1;
};

// A usage problem in an option's value (exit code 2).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
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
  throw UsageError("--set " + name + "=" + v + ": '" + v + "' is not a number");
}

void read_set_json(const std::string& file, std::map<std::string, Number>& values) {
  std::ifstream in(file);
  if (!in) throw weir::Error(file + ": cannot read (--set-json)");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw weir::Error(file + ": not valid JSON: " + e.what());
  }
  if (!j.is_object()) throw weir::Error(file + ": expected a JSON object of names to numbers");
  for (const auto& [k, v] : j.items()) {
    if (v.is_boolean()) values[k] = v.get<bool>();
    else if (v.is_number_integer()) values[k] = v.get<std::int64_t>();
    else if (v.is_number()) values[k] = v.get<double>();
    else throw weir::Error(file + ": '" + k + "' is " + v.dump() + ", not a number");
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
  return s + "  checksum " + f.checksum();
}

std::string seconds(double s) {
  std::ostringstream os;
  if (s < 1e-3) os << std::fixed << std::setprecision(1) << s * 1e6 << " us";
  else if (s < 1) os << std::fixed << std::setprecision(3) << s * 1e3 << " ms";
  else os << std::fixed << std::setprecision(2) << s << " s";
  return os.str();
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Writes the outputs into a temporary directory beside `out`, then moves them into place, so
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
  fs::path parent = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  fs::create_directories(parent);
  fs::path tmp = parent / ("." + out.filename().string() + ".weir-tmp-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  try {
    for (const auto& [name, f] : outputs) write_npy(tmp / (name + ".npy"), *f);
    if (!fs::exists(out)) {
      fs::rename(tmp, out);
      return;
    }
    if (!fs::is_directory(out)) throw weir::Error("--out " + out.string() + ": exists and is not a directory");
    for (const auto& [name, f] : outputs) fs::rename(tmp / (name + ".npy"), out / (name + ".npy"));
    fs::remove_all(tmp);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
}

int run_command(const Opts& o) {
  std::unique_ptr<Backend> backend;
  try {
    backend = make_backend(o.backend);
  } catch (const BackendError& e) {
    std::cerr << "weir: error: --backend: " << e.what() << "\n";
    return kExitUsage;
  }
  if (o.repeat < 1) throw UsageError("--repeat must be at least 1");
  CompilableProgram program = load_program_source(o.program);
  check_backend(*backend, program);
  Signature sig = Signature::from_sdfg(*program.sdfg);

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
  for (const auto& s : o.ins) {
    auto [name, file] = split_assignment("--in", s);
    load_input(name, file);
  }
  for (const auto& f : o.set_jsons) read_set_json(f, args.values);
  for (const auto& s : o.sets) {
    auto [name, v] = split_assignment("--set", s);
    args.values[name] = parse_number(name, v);
  }
  if (o.random_inputs) {
    std::map<std::string, long long> symbols;
    for (const auto& [k, v] : args.values)
      if (auto* i = std::get_if<std::int64_t>(&v)) symbols[k] = *i;
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
        throw ArgumentError("--random-inputs: the shape of '" + p.name + "' (" + p.describe() + ") needs " + names +
                            "; give " + (need.size() == 1 ? "it" : "them") + " with --set NAME=VALUE");
      }
      Field f = backend->allocator().allocate(p.dtype, shape);
      fill_random(f, rng);
      args.arrays.insert_or_assign(p.name, std::move(f));
    }
  }
  // Check the arguments before compiling, so that mistakes show at once.
  bind_arguments(sig, args);

  std::cout << "program '" << sig.program_name << "' (" << program.origin << ") on backend '" << backend->name() << "'\n";
  auto t0 = std::chrono::steady_clock::now();
  auto runnable = prepare(*backend, program);
  std::cout << "prepared in " << seconds(since(t0)) << "\n";

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
    runnable->run(args);
    std::cout << "call " << (i + 1) << ": " << seconds(since(t)) << "\n";
  }

  std::vector<std::pair<std::string, const Field*>> outputs;
  for (const auto& p : sig.params)
    if (p.kind == Parameter::Kind::Array && p.written) outputs.emplace_back(p.name, &args.arrays.at(p.name));
  std::cout << "outputs (" << outputs.size() << "):\n";
  for (const auto& [name, f] : outputs) std::cout << summary(name, *f) << "\n";
  for (const auto& p : sig.params)
    if (p.kind == Parameter::Kind::Scalar && p.written) std::cout << "  " << p.name << " = " << to_string(args.values.at(p.name)) << "\n";
  if (!o.out_dir.empty()) {
    write_outputs(o.out_dir, outputs, input_files);
    std::cout << "wrote " << outputs.size() << " file" << (outputs.size() == 1 ? "" : "s") << " to " << o.out_dir << "\n";
  }
  return kExitOk;
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run a program (an SDFG file) on a backend with arguments from .npy files");
  auto o = std::make_shared<Opts>();
  cmd->add_option("program", o->program, "FILE.sdfg / FILE.sdfgz (FILE.py::PROGRAM with the frontend, later)")->required();
  cmd->add_option("--backend", o->backend, "embedded (default; field-view programs) or cpu (compiled C++/OpenMP)");
  cmd->add_option("--in", o->ins, "NAME=FILE.npy: an array argument (repeatable)");
  cmd->add_option("--in-dir", o->in_dir, "DIR: every array argument NAME that has a DIR/NAME.npy");
  cmd->add_option("--set", o->sets, "NAME=VALUE: a scalar argument or symbol (repeatable)");
  cmd->add_option("--set-json", o->set_jsons, "FILE: a JSON object of names to numbers (repeatable)");
  cmd->add_option("--out", o->out_dir, "DIR: write NAME.npy for every array the program writes (after it succeeded)");
  cmd->add_flag("--random-inputs", o->random_inputs,
                "Fill array arguments not given with seeded uniform values ([0,1) floats, 0..9 integers); sizes from --set");
  cmd->add_option("--seed", o->seed, "Seed of --random-inputs (default 0)");
  cmd->add_option("--repeat", o->repeat, "Run N times (each from the same inputs), printing each call's wall time");
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
