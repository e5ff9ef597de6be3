#include "npbench_case.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "corpus.h"
#include "cuda_emulation.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/npy.h"
#include "weir/runtime/program_source.h"
#include "weir/sdfg/library_implementations.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/auto_optimize.h"

namespace weir::test {
namespace {

/// The first library node of the SDFG JSON `j` (nested SDFGs and regions included) whose
/// `implementation` DaCe has no expansion of for its type (DaCe: "Unknown implementation for
/// node MatMul: OpenBLAS"), as a message; "" when there is none.
std::string dace_vocabulary_problem(const nlohmann::json& j) {
  if (j.is_object()) {
    if (j.contains("classpath") && j.contains("attributes")) {
      // The class: the last part of the classpath (DaCe writes `type` "LibraryNode").
      const std::string path = j["classpath"].is_string() ? j["classpath"].get<std::string>() : "";
      const std::string type = path.empty() ? j.value("type", "") : path.substr(path.rfind('.') + 1);
      const auto& impl =
          j["attributes"].contains("implementation") ? j["attributes"]["implementation"] : nlohmann::json();
      const std::set<std::string>* names = dace_implementations(type);
      if (names && impl.is_string() && !names->count(impl.get<std::string>()))
        return "library node '" + j["attributes"].value("label", type) + "' (" + type +
               ") has implementation '" + impl.get<std::string>() + "', which DaCe does not have for " + type;
    }
    for (const auto& [k, v] : j.items())
      if (std::string why = dace_vocabulary_problem(v); !why.empty()) return why;
  } else if (j.is_array()) {
    for (const auto& v : j)
      if (std::string why = dace_vocabulary_problem(v); !why.empty()) return why;
  }
  return "";
}

using runtime::Field;

bool is_complex(ScalarType t) { return t == ScalarType::Complex64 || t == ScalarType::Complex128; }
bool is_float(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::Float32 || t == ScalarType::Float64;
}

std::complex<double> element(const Field& f, std::int64_t i) {
  const auto* p = static_cast<const unsigned char*>(f.data()) + static_cast<std::size_t>(i) * f.itemsize();
  if (f.dtype() == ScalarType::Complex128) {
    double v[2];
    std::memcpy(v, p, sizeof v);
    return {v[0], v[1]};
  }
  if (f.dtype() == ScalarType::Complex64) {
    float v[2];
    std::memcpy(v, p, sizeof v);
    return {v[0], v[1]};
  }
  return {f.value_as_double(i), 0.0};
}

// "" when `got` matches `want`, else why not.
std::string compare(const Field& got, const Field& want, const nlohmann::json& cmp) {
  // A scalar result: DaCe returns it in a shape-(1,) __return, NumPy gives a 0-d value.
  bool scalar_result = got.dtype() == want.dtype() && got.size() == 1 && want.size() == 1 && want.ndim() == 0;
  if (got.describe() != want.describe() && !scalar_result)
    return "got " + got.describe() + ", expected " + want.describe();
  bool exact = !is_float(want.dtype()) && !is_complex(want.dtype());
  double rtol = cmp.value("rtol", 1e-10);
  if (want.dtype() == ScalarType::Float32 || want.dtype() == ScalarType::Complex64)
    rtol = std::max(rtol, 1e-5);
  double max_abs = 0;
  for (std::int64_t i = 0; i < want.size(); ++i) max_abs = std::max(max_abs, std::abs(element(want, i)));
  double atol = cmp.value("atol_rel_to_max", 0.0) * max_abs;
  std::int64_t bad = 0, first = -1;
  double worst = 0, diff2 = 0, norm2 = 0;
  for (std::int64_t i = 0; i < want.size(); ++i) {
    auto a = element(got, i), w = element(want, i);
    double err = std::abs(a - w);
    diff2 += err * err;
    norm2 += std::norm(w);
    bool ok = exact ? a == w : err <= atol + rtol * std::abs(w);
    if (!ok) {
      if (first < 0) first = i;
      ++bad;
      worst = std::max(worst, std::isnan(err) ? INFINITY : err);
    }
  }
  if (bad == 0) return "";
  if (cmp.contains("norm_error") && cmp["norm_error"].is_number() && norm2 > 0 &&
      std::sqrt(diff2 / norm2) <= cmp["norm_error"].get<double>())
    return "";
  std::ostringstream os;
  os << bad << " of " << want.size() << " elements differ (first at flat index " << first << ": got "
     << element(got, first) << ", expected " << element(want, first) << "; largest error " << worst << ")";
  return os.str();
}

NpbenchOutcome run_case(const std::string& kernel, const std::string& stage, bool weir_optimized,
                        DeviceType device, bool cuda_emulation) {
  auto dir = npbench_corpus_dir() / kernel;
  auto meta = nlohmann::json::parse(read_text(dir / "meta.json"));
  runtime::Arguments args;
  if (std::filesystem::is_directory(dir / "inputs"))  // mandelbrot1 takes scalars only
    for (const auto& e : std::filesystem::directory_iterator(dir / "inputs"))
      args.arrays.emplace(e.path().stem().string(), runtime::read_npy(e.path()));
  for (const char* f : {"symbols.json", "scalars.json"}) {
    if (!std::filesystem::exists(dir / f)) continue;
    auto values = nlohmann::json::parse(read_text(dir / f));
    for (const auto& [k, v] : values.items()) {
      if (v.is_boolean())
        args.values[k] = v.get<bool>();
      else if (v.is_number_integer())
        args.values[k] = v.get<std::int64_t>();
      else
        args.values[k] = v.get<double>();
    }
  }
  std::unique_ptr<runtime::CompiledBackend> backend =
      cuda_emulation ? make_cuda_emulation_backend() : runtime::make_cpu_backend();
  auto program = runtime::load_program_source((dir / (kernel + "." + stage + ".sdfg")).string());
  // No --trust-code: DaCe's auto-optimized stages call BLAS from C++ tasklets, which loading
  // maps back to library nodes (ADR 0035); a tasklet left as C++ would fail the case.
  program.options.trust_code = false;
  if (weir_optimized) {
    auto sdfg = program.sdfg->clone_sdfg();
    transforms::auto_optimize(*sdfg, device);
    auto problems = validate(*sdfg);
    if (!problems.empty()) return {false, "invalid after auto-optimize: " + problems.front().str()};
    // What weir writes must expand in DaCe (issue 37), and what it reads back runs here: the
    // case runs the SDFG as written and read.
    const std::string text = sdfg_to_json_text(*sdfg);
    if (std::string why = dace_vocabulary_problem(nlohmann::json::parse(text)); !why.empty())
      return {false, "written for DaCe: " + why};
    program.sdfg = sdfg_from_json_text(text, kernel + " after auto-optimize");
  }
  runtime::run(*backend, program, args);
  std::vector<std::filesystem::path> expected;
  for (const auto& e : std::filesystem::directory_iterator(dir / "expected")) expected.push_back(e.path());
  std::sort(expected.begin(), expected.end());
  if (expected.empty()) return {false, "no expected/*.npy"};
  for (const auto& p : expected) {
    std::string name = p.stem().string();
    auto it = args.arrays.find(name);
    if (it == args.arrays.end()) return {false, "the run gave no '" + name + "'"};
    std::string why =
        compare(it->second, runtime::read_npy(p), meta.value("compare", nlohmann::json::object()));
    if (!why.empty()) return {false, name + ": " + why};
  }
  return {true, ""};
}

}  // namespace

const std::vector<std::string>& npbench_stages() {
  static const std::vector<std::string> stages = {"frontend", "simplified", "auto_optimized_cpu"};
  return stages;
}

std::vector<std::string> npbench_kernels() {
  std::vector<std::string> ks;
  for (const auto& e : std::filesystem::directory_iterator(npbench_corpus_dir()))
    if (e.is_directory()) ks.push_back(e.path().filename().string());
  std::sort(ks.begin(), ks.end());
  return ks;
}

NpbenchOutcome run_npbench_case(const std::string& kernel, const std::string& stage, bool weir_optimized,
                                DeviceType device, bool cuda_emulation) {
  auto cache = scratch_dir("npbench-cache-" + kernel + "-" + stage +
                           (weir_optimized ? device == DeviceType::GPU ? "-weir-opt-gpu" : "-weir-opt" : "") +
                           (cuda_emulation ? "-emulated" : ""));
  ::setenv("WEIR_CACHE_DIR", cache.c_str(), 1);
  try {
    return run_case(kernel, stage, weir_optimized, device, cuda_emulation);
  } catch (const std::exception& e) {
    std::string msg = e.what();
    return {false, msg};
  }
}

}  // namespace weir::test
