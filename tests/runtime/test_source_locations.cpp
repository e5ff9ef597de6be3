// Source locations at load time (ADR 0061): the runtime's backends generate code that names no
// `.py` path and no line (tokens of GeneratedCode::locations), so the same program from two
// folders, or with lines added above it, or a DaCe SDFG whose debuginfo names another file and
// line, is one compiled program; the loader expands the tokens, so each run's error names its
// own file, line and column, on the cpu backend and on the GPU host emulation.
#include <catch2/catch.hpp>
#include <functional>
#include <nlohmann/json.hpp>

#include "copy_program.h"
#include "cuda_emulation.h"
#include "runtime_test_util.h"
#include "weir/codegen/source_locations.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/program_source.h"
#include "weir/sdfg/serialize.h"

namespace fs = std::filesystem;
using namespace weir;

namespace {

/// The error of running `program` (copy.py's copy) with f of 4 points and out of 6.
std::string fault_of(const runtime::CompiledBackend& backend, const runtime::CompilableProgram& program) {
  runtime::Arguments args;
  runtime::Field f = runtime::Allocator::cpu().allocate(ScalarType::Float64, {4});
  runtime::Field out = runtime::Allocator::cpu().allocate(ScalarType::Float64, {6});
  args.arrays.emplace("f", std::move(f));
  args.arrays.emplace("out", std::move(out));
  try {
    runtime::run(backend, program, args);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "it ran";
}

runtime::CompilableProgram lowered_copy(const fs::path& file) {
  return runtime::lower(runtime::load_field_view_reference(file.string() + "::copy"));
}

std::string read_source(const runtime::CompilationArtifact& a) { return test::read_text(a.source); }

}  // namespace

TEST_CASE("one compiled program for copies at other paths and lines, each error naming its own location",
          "[runtime][cache][locations]") {
  auto dir = test::scratch_dir("runtime-source-locations");
  runtime::CompiledBackendConfig config;
  config.cache_dir = dir / "cache";
  auto cpu = runtime::make_cpu_backend(config);
  auto emulation = test::make_cuda_emulation_backend();

  const fs::path a = test::write_copy_program(dir / "checkout-a"),
                 b = test::write_copy_program(dir / "checkout-b", 2);
  for (const runtime::CompiledBackend* backend : {cpu.get(), emulation.get()}) {
    INFO(backend->name());
    runtime::CompilableProgram pa = lowered_copy(a), pb = lowered_copy(b);
    runtime::CompilationArtifact ca = runtime::compile(*backend, pa), cb = runtime::compile(*backend, pb);
    CHECK(ca.fingerprint == cb.fingerprint);
    CHECK(cb.cache_hit);
    // The call (line 9, column 5) and the read of f in `return f` (line 6, column 12).
    const std::string fa = fs::canonical(a).string(), fb = fs::canonical(b).string();
    CHECK(ca.locations == std::vector<std::string>{fa + ":9:5", fa + ":6:12"});
    CHECK(cb.locations == std::vector<std::string>{fb + ":11:5", fb + ":8:12"});
    const std::string source = read_source(cb);
    CHECK_THAT(source, Catch::Contains(codegen::location_token(0)) && !Catch::Contains("copy.py") &&
                           !Catch::Contains(dir.string()));
    CHECK_THAT(fault_of(*backend, pa), Catch::Contains(test::copy_bounds_head(fs::canonical(a), 9)));
    CHECK_THAT(fault_of(*backend, pb), Catch::Contains(test::copy_bounds_head(fs::canonical(b), 11)));
  }
}

TEST_CASE("a DaCe SDFG's debuginfo at another file and line: the same program, the error names it",
          "[runtime][cache][locations]") {
  auto dir = test::scratch_dir("runtime-source-locations-dace");
  runtime::CompiledBackendConfig config;
  config.cache_dir = dir / "cache";
  auto cpu = runtime::make_cpu_backend(config);
  const fs::path a = test::write_copy_program(dir / "model");
  const std::string json = sdfg_to_json_text(*lowered_copy(a).sdfg);
  // As DaCe writes it: the debuginfo names the file of the @dace.program, at its own lines.
  const std::string from = fs::canonical(a).string(), to = "/home/someone/dace_kernels/copy_prog.py";
  nlohmann::json j = nlohmann::json::parse(json);
  std::function<void(nlohmann::json&)> move_debuginfo = [&](nlohmann::json& n) {
    if (n.is_object() && n.value("type", "") == "DebugInfo" && n.value("filename", "") == from) {
      n["filename"] = to;
      n["start_line"] = n["start_line"].get<int>() + 38;
      n["end_line"] = n["end_line"].get<int>() + 38;
    }
    if (n.is_object() || n.is_array())
      for (auto& c : n) move_debuginfo(c);
  };
  move_debuginfo(j);
  const std::string moved = j.dump();
  REQUIRE(moved != json);
  runtime::CompilableProgram pa, pb;
  pa.sdfg = sdfg_from_json_text(json);
  pb.sdfg = sdfg_from_json_text(moved);
  runtime::CompilationArtifact ca = runtime::compile(*cpu, pa), cb = runtime::compile(*cpu, pb);
  CHECK(ca.fingerprint == cb.fingerprint);
  CHECK(cb.cache_hit);
  CHECK_THAT(fault_of(*cpu, pa), Catch::Contains(test::copy_bounds_head(from, 9)));
  CHECK_THAT(fault_of(*cpu, pb), Catch::Contains(test::copy_bounds_head(to, 47)));
}

TEST_CASE("expand_locations: tokens of the table become its entries, anything else stays",
          "[runtime][locations]") {
  const std::vector<std::string> table = {"/a/x.py:9:5", "/b/y.py:12:16"};
  CHECK(codegen::location_token(1) == "@weirloc1@");
  CHECK(codegen::expand_locations("@weirloc1@: a read of 'v'; @weirloc0@ and @weirloc1@", table) ==
        "/b/y.py:12:16: a read of 'v'; /a/x.py:9:5 and /b/y.py:12:16");
  // Not tokens of this table: an index past its end, no digits, no closing '@'.
  CHECK(codegen::expand_locations("@weirloc2@ @weirloc@ @weirloc1 x@weirloc0@", table) ==
        "@weirloc2@ @weirloc@ @weirloc1 x/a/x.py:9:5");
  CHECK(codegen::expand_locations("no tokens", {}) == "no tokens");
}
