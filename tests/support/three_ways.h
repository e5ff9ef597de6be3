// Runs one field-view program the three ways a user can run it: the embedded backend, the cpu
// backend on the SDFG exactly as lowered, and the cpu backend after auto_optimize (what `weir run
// --backend cpu` does). Each path gets its own copy of the arguments, so a test checks all three
// against one independently computed reference, or checks that all three refuse alike.
#pragma once

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "corpus.h"
#include "weir/frontend/lowering.h"
#include "weir/runtime/connectivity_check.h"
#include "weir/runtime/dispatch.h"
#include "weir/sdfg/validate.h"

namespace weir::test {

/// What one path did: the arguments after the run, or the error text it refused with.
struct PathResult {
  std::string path;  ///< "embedded", "cpu", "cpu+auto-optimize"
  runtime::Arguments args;
  std::string error;  ///< empty when the run succeeded
};

/// An independent copy of `a` (arrays cloned).
inline runtime::Arguments clone_arguments(const runtime::Arguments& a) {
  runtime::Arguments c;
  for (const auto& [k, f] : a.arrays) c.arrays.emplace(k, f.clone());
  c.values = a.values;
  return c;
}

/// Runs `p` on the three paths. Errors (weir::Error) are caught and recorded per path; the
/// lowered SDFG must validate. The cpu paths compile into one program cache shared by the test
/// processes (shared_cache_dir).
inline std::vector<PathResult> run_three_ways(const runtime::FieldViewProgram& p,
                                              const runtime::Arguments& args) {
  static const std::string cache = shared_cache_dir("three-ways").string();
  ::setenv("WEIR_CACHE_DIR", cache.c_str(), 1);
  std::vector<PathResult> out;
  auto attempt = [&](const std::string& path, auto&& fn) {
    PathResult r{path, clone_arguments(args), {}};
    try {
      fn(r.args);
    } catch (const weir::Error& e) {
      r.error = e.what();
      if (r.error.empty()) r.error = "(error without text)";
    }
    out.push_back(std::move(r));
  };
  auto embedded = runtime::make_backend("embedded");
  auto cpu = runtime::make_backend("cpu");
  attempt("embedded", [&](runtime::Arguments& a) { runtime::run(*embedded, p, a); });
  attempt("cpu", [&](runtime::Arguments& a) {
    std::shared_ptr<SDFG> sdfg = frontend::lower_to_sdfg(*p.definition);
    std::string diags;
    for (const Diagnostic& d : validate(*sdfg)) diags += d.str() + "\n";
    REQUIRE(diags == "");
    runtime::CompilableProgram c{sdfg, p.options, p.origin};
    runtime::prepare(*cpu, c)->run(a);  // as an SDFG file runs: the checks come with the SDFG
  });
  attempt("cpu+auto-optimize", [&](runtime::Arguments& a) { runtime::run(*cpu, p, a); });
  return out;
}

}  // namespace weir::test
