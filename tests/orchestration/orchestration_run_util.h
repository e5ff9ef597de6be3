// Running orchestration functions on the embedded backend (call by call) and the cpu backend
// (one SDFG), and checking both against a NumPy script written independently.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "corpus.h"
#include "orchestration_test_util.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/npy.h"

namespace weir::test::orchestration {

/// A float64 field of `shape` with element i = fn(i).
inline runtime::Field make(std::vector<std::int64_t> shape, const std::function<double(std::int64_t)>& fn) {
  runtime::Field f = runtime::Allocator::cpu().allocate(ScalarType::Float64, shape);
  for (std::int64_t i = 0; i < f.size(); ++i) static_cast<double*>(f.data())[i] = fn(i);
  return f;
}

inline runtime::Arguments clone(const runtime::Arguments& a) {
  runtime::Arguments c;
  for (const auto& [k, f] : a.arrays) c.arrays.emplace(k, f.clone());
  c.values = a.values;
  return c;
}

/// Largest |a - b| / max(1, |b|) over two fields of equal shape.
inline double max_rel_diff(const runtime::Field& a, const runtime::Field& b) {
  REQUIRE(a.describe() == b.describe());
  double worst = 0;
  for (std::int64_t i = 0; i < a.size(); ++i) {
    double x = a.value_as_double(i), y = b.value_as_double(i);
    worst = std::max(worst, std::abs(x - y) / std::max(1.0, std::abs(y)));
    if (std::isnan(x) != std::isnan(y)) return INFINITY;
  }
  return worst;
}

/// Writes the arrays of `args` to DIR/in/NAME.npy, runs `script` (NumPy; it reads `inp[NAME]`
/// and must fill `out[NAME]` for every name in `fields`), and returns the arrays it wrote.
inline std::map<std::string, runtime::Field> numpy_reference(const std::string& test,
                                                             const runtime::Arguments& args,
                                                             const std::string& script,
                                                             const std::vector<std::string>& fields) {
  std::filesystem::path dir = scratch_dir("orchestration-" + test);
  std::filesystem::create_directories(dir / "in");
  std::filesystem::create_directories(dir / "out");
  for (const auto& [k, f] : args.arrays) runtime::write_npy(dir / "in" / (k + ".npy"), f);
  std::ofstream py(dir / "ref.py");
  py << "import numpy as np, os\n"
     << "D = "
     << "'" << dir.string() << "'\n"
     << "inp = {f[:-4]: np.load(os.path.join(D, 'in', f)) for f in os.listdir(os.path.join(D, 'in'))}\n"
     << "out = {}\n"
     << script << "\n"
     << "for k, v in out.items():\n"
     << "    np.save(os.path.join(D, 'out', k + '.npy'), v)\n";
  py.close();
  std::string cmd = "/usr/bin/python3 '" + (dir / "ref.py").string() + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::map<std::string, runtime::Field> out;
  for (const auto& f : fields) out.emplace(f, runtime::read_npy(dir / "out" / (f + ".npy")));
  return out;
}

/// The message of the ProgramError that running `p` on `backend` throws, "" when it runs.
inline std::string program_error(const char* backend, const runtime::FieldViewProgram& p,
                                 runtime::Arguments& args) {
  try {
    runtime::run(*runtime::make_backend(backend), p, args);
  } catch (const runtime::ProgramError& e) {
    return e.what();
  }
  return "";
}

/// Runs `p` on the embedded and the cpu backend from copies of `args` and checks every field
/// in `ref` against it (relative 1e-12).
inline void check_both_backends(const runtime::FieldViewProgram& p, const runtime::Arguments& args,
                                const std::map<std::string, runtime::Field>& ref) {
  static const std::string cache = shared_cache_dir("orchestration").string();
  ::setenv("WEIR_CACHE_DIR", cache.c_str(), 1);
  for (const char* backend : {"embedded", "cpu"}) {
    INFO("backend " << backend);
    runtime::Arguments a = clone(args);
    runtime::run(*runtime::make_backend(backend), p, a);
    for (const auto& [k, want] : ref) {
      INFO("field " << k);
      CHECK(max_rel_diff(a.arrays.at(k), want) <= 1e-12);
    }
  }
}

/// The same for the function `name` of `body` (after the prelude).
inline void check_both_backends(const std::string& body, const std::string& name,
                                const runtime::Arguments& args,
                                const std::map<std::string, runtime::Field>& ref) {
  check_both_backends(load(body, name), args, ref);
}

}  // namespace weir::test::orchestration
