// Helpers of the runtime tests: a fresh program cache per test, NumPy through Debian's python3.
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "corpus.h"

namespace weir::test {

/// Points WEIR_CACHE_DIR at a fresh empty directory under the build tree; returns it.
inline std::filesystem::path fresh_cache(const std::string& name) {
  auto dir = scratch_dir("runtime-cache-" + name);
  ::setenv("WEIR_CACHE_DIR", dir.c_str(), 1);
  return dir;
}

/// Debian's python3 with NumPy (not a pyenv/virtualenv one from PATH).
inline const char* kPython = "/usr/bin/python3";

/// Runs a Python script with Debian's python3 + NumPy; FAILs clearly if they are missing.
/// Returns the exit code.
inline int run_python(const std::filesystem::path& dir, const std::string& script) {
  static bool checked = false;
  if (!checked) {
    std::string probe = std::string(kPython) + " -c 'import numpy' >/dev/null 2>&1";
    if (std::system(probe.c_str()) != 0)
      FAIL("this test needs "
           << kPython << " with NumPy (Debian package python3-numpy; scripts/install-deps.sh installs it)");
    checked = true;
  }
  auto file = dir / "script.py";
  std::ofstream(file) << "import numpy as np\nimport sys\n" << script << "\n";
  std::string cmd = std::string(kPython) + " '" + file.string() + "'";
  int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace weir::test

#include <nlohmann/json.hpp>

#include "weir/runtime/arguments.h"
#include "weir/runtime/npy.h"
#include "weir/runtime/program_source.h"

namespace weir::test {

/// A corpus kernel's SDFG of one stage, e.g. corpus_program("hdiff", "simplified").
inline runtime::CompilableProgram corpus_program(const std::string& kernel, const std::string& stage) {
  return runtime::load_program_source(
      (dace_corpus_dir() / kernel / (kernel + "." + stage + ".sdfg")).string());
}

/// A corpus kernel's arguments: inputs/*.npy, symbols.json and scalars.json.
inline runtime::Arguments corpus_arguments(const std::string& kernel) {
  runtime::Arguments args;
  auto dir = dace_corpus_dir() / kernel;
  for (const auto& e : std::filesystem::directory_iterator(dir / "inputs"))
    args.arrays.emplace(e.path().stem().string(), runtime::read_npy(e.path()));
  for (const char* f : {"symbols.json", "scalars.json"}) {
    auto j = nlohmann::json::parse(read_text(dir / f));
    for (const auto& [k, v] : j.items()) {
      if (v.is_number_integer())
        args.values[k] = v.get<std::int64_t>();
      else
        args.values[k] = v.get<double>();
    }
  }
  return args;
}

/// Checks every expected/<name>.npy of a corpus kernel against `args`: |a - e| <= rtol * |e|
/// element by element (exact for integers). Returns the number of arrays compared.
inline int check_expected(const std::string& kernel, const runtime::Arguments& args, double rtol = 1e-12) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dace_corpus_dir() / kernel / "expected")) {
    std::string name = e.path().stem().string();
    INFO(kernel << ": expected/" << name << ".npy");
    runtime::Field want = runtime::read_npy(e.path());
    REQUIRE(args.arrays.count(name));
    const runtime::Field& got = args.arrays.at(name);
    REQUIRE(got.describe() == want.describe());
    std::int64_t bad = 0;
    double worst = 0;
    for (std::int64_t i = 0; i < want.size(); ++i) {
      double a = got.value_as_double(i), w = want.value_as_double(i);
      double err = std::abs(a - w);
      if (!(err <= rtol * std::abs(w))) {
        ++bad;
        worst = std::max(worst, err);
      }
    }
    INFO("largest absolute error of a mismatching element: " << worst);
    CHECK(bad == 0);
    ++n;
  }
  return n;
}

}  // namespace weir::test
