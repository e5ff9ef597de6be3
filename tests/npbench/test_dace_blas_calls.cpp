// DaCe's CBLAS tasklets recognised as library nodes (transforms/dace_blas_calls.h, ADR 0035):
// the handmade SDFGs of tests/lit/Inputs/dace-blas (one C++ tasklet each, in the shapes DaCe's
// OpenBLAS expansions write) load as Gemm / Gemv / Dot, run without trust_code and give the
// values worked out by hand in each case; the near misses stay tasklets and are refused.
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>

#include "weir/codegen/cpu_codegen.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/program_source.h"
#include "weir/sdfg/serialize.h"
#include "weir/transforms/dace_blas_calls.h"

using namespace weir;

namespace {

std::string input(const std::string& name) {
  return (std::filesystem::path(WEIR_SOURCE_DIR) / "tests" / "lit" / "Inputs" / "dace-blas" /
          (name + ".sdfg"))
      .string();
}

runtime::Field field(const std::vector<std::int64_t>& shape, const std::vector<double>& values) {
  runtime::Field f = runtime::Allocator::cpu().allocate(ScalarType::Float64, shape);
  REQUIRE(static_cast<std::size_t>(f.size()) == values.size());
  std::memcpy(f.data(), values.data(), values.size() * sizeof(double));
  return f;
}

std::vector<double> values(const runtime::Field& f) {
  const auto* p = static_cast<const double*>(f.data());
  return {p, p + f.size()};
}

/// The classes of the library nodes and the number of tasklets of the SDFG's one state.
std::pair<std::vector<std::string>, int> nodes_of(const SDFG& s) {
  std::vector<std::string> classes;
  int tasklets = 0;
  for (const SDFGState* st : s.all_states())
    for (const Node* n : st->nodes()) {
      if (const auto* l = n->as<LibraryNode>()) classes.push_back(l->class_name());
      if (n->as<Tasklet>()) ++tasklets;
    }
  return {classes, tasklets};
}

/// Loads `name` as `weir run` does (no trust_code), checks it holds one `cls` node and no
/// tasklet, runs it and returns the arrays.
runtime::Arguments run_recognised(const std::string& name, const std::string& cls, runtime::Arguments args) {
  std::vector<std::string> notes;
  runtime::CompilableProgram p = runtime::load_program_source(input(name), notes);
  REQUIRE_FALSE(p.options.trust_code);
  auto [classes, tasklets] = nodes_of(*p.sdfg);
  CHECK(classes == std::vector<std::string>{cls});
  CHECK(tasklets == 0);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("-> " + cls) != std::string::npos);
  auto backend = runtime::make_cpu_backend();
  runtime::run(*backend, p, args);
  return args;
}

}  // namespace

TEST_CASE("dace-blas: DaCe's cblas_dgemm of a MatMul runs as Gemm without trust", "[dace-blas][npbench]") {
  runtime::Arguments args;
  args.values = {{"NI", std::int64_t{2}}, {"NK", std::int64_t{3}}, {"NJ", std::int64_t{2}}};
  args.arrays.emplace("A", field({2, 3}, {1, 2, 3, 4, 5, 6}));
  args.arrays.emplace("B", field({3, 2}, {1, 0, 0, 1, 2, -1}));
  args.arrays.emplace("C", field({2, 2}, {0, 0, 0, 0}));
  auto out = run_recognised("gemm", "Gemm", std::move(args));
  // [[1,2,3],[4,5,6]] @ [[1,0],[0,1],[2,-1]] = [[1+6, 2-3], [4+12, 5-6]].
  CHECK(values(out.arrays.at("C")) == std::vector<double>{7, -1, 16, -1});
}

TEST_CASE("dace-blas: cblas_dgemm with a transposed operand and alpha 2 runs as Gemm",
          "[dace-blas][npbench]") {
  runtime::Arguments args;
  args.values = {{"NI", std::int64_t{2}}, {"NK", std::int64_t{3}}, {"NJ", std::int64_t{2}}};
  // A stored transposed (NK x NI): A^T = [[1,2,3],[4,5,6]].
  args.arrays.emplace("A", field({3, 2}, {1, 4, 2, 5, 3, 6}));
  args.arrays.emplace("B", field({3, 2}, {1, 0, 0, 1, 2, -1}));
  args.arrays.emplace("C", field({2, 2}, {0, 0, 0, 0}));
  auto out = run_recognised("gemm-transa-alpha", "Gemm", std::move(args));
  CHECK(values(out.arrays.at("C")) == std::vector<double>{14, -2, 32, -2});
}

TEST_CASE("dace-blas: atax's two cblas_dgemv calls run as Gemv", "[dace-blas][npbench]") {
  SECTION("CblasTrans on a row-major A: y = A x") {
    runtime::Arguments args;
    args.values = {{"M", std::int64_t{2}}, {"N", std::int64_t{3}}};
    args.arrays.emplace("A", field({2, 3}, {1, 2, 3, 4, 5, 6}));
    args.arrays.emplace("x", field({3}, {1, -1, 2}));
    args.arrays.emplace("y", field({2}, {0, 0}));
    auto out = run_recognised("gemv", "Gemv", std::move(args));
    CHECK(values(out.arrays.at("y")) == std::vector<double>{1 - 2 + 6, 4 - 5 + 12});
  }
  SECTION("CblasNoTrans on a row-major A: y = A^T x") {
    runtime::Arguments args;
    args.values = {{"M", std::int64_t{2}}, {"N", std::int64_t{3}}};
    args.arrays.emplace("A", field({2, 3}, {1, 2, 3, 4, 5, 6}));
    args.arrays.emplace("x", field({2}, {2, 1}));
    args.arrays.emplace("y", field({3}, {0, 0, 0}));
    auto out = run_recognised("gemv-transposed", "Gemv", std::move(args));
    CHECK(values(out.arrays.at("y")) == std::vector<double>{2 + 4, 4 + 5, 6 + 6});
  }
}

TEST_CASE("dace-blas: cblas_ddot of a strided column runs as Dot", "[dace-blas][npbench]") {
  runtime::Arguments args;
  args.values = {{"N", std::int64_t{3}}};
  args.arrays.emplace("A", field({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
  args.arrays.emplace("y", field({3}, {1, -1, 2}));
  args.arrays.emplace("r", field({1}, {0}));
  auto out = run_recognised("dot", "Dot", std::move(args));
  // Column 1 of A, [2, 5, 8], dot [1, -1, 2].
  CHECK(values(out.arrays.at("r")) == std::vector<double>{2 - 5 + 16});
}

TEST_CASE("dace-blas: a row-major cblas_sgemv with alpha 2 runs as a float32 Gemv", "[dace-blas][npbench]") {
  runtime::Arguments args;
  args.values = {{"M", std::int64_t{2}}, {"N", std::int64_t{3}}};
  auto f32 = [](const std::vector<std::int64_t>& shape, const std::vector<float>& v) {
    runtime::Field f = runtime::Allocator::cpu().allocate(ScalarType::Float32, shape);
    std::memcpy(f.data(), v.data(), v.size() * sizeof(float));
    return f;
  };
  args.arrays.emplace("A", f32({2, 3}, {1, 2, 3, 4, 5, 6}));
  args.arrays.emplace("x", f32({3}, {1, -1, 2}));
  args.arrays.emplace("y", f32({2}, {0, 0}));
  auto out = run_recognised("sgemv-rowmajor", "Gemv", std::move(args));
  const auto* y = static_cast<const float*>(out.arrays.at("y").data());
  CHECK(y[0] == 2 * (1 - 2 + 6));
  CHECK(y[1] == 2 * (4 - 5 + 12));
}

TEST_CASE("dace-blas: near misses stay C++ tasklets, refused without trust", "[dace-blas][npbench]") {
  const std::vector<std::pair<std::string, std::string>> misses = {
      {"gemm-wrong-ld", "the leading dimension `NK` does not match NJ"},
      {"gemm-two-statements", "the code is not one statement ending in ';'"},
      {"gemm-unknown-function", "'cblas_dsymm' is not cblas_?gemm, cblas_?gemv or cblas_?dot"},
      {"gemv-beta", "beta is not 0"},
      {"dot-wrong-increment", "the increment of '_x' `1` does not match 3"},
  };
  for (const auto& [name, why] : misses) {
    INFO(name);
    auto sdfg = load_sdfg(input(name));
    transforms::BlasRecognition r = transforms::recognize_dace_blas_calls(*sdfg);
    CHECK(r.recognized.empty());
    REQUIRE(r.kept.size() == 1);
    CHECK(r.kept[0].reason.find(why) == 0);
    auto [classes, tasklets] = nodes_of(*sdfg);
    CHECK(classes.empty());
    CHECK(tasklets == 1);
    runtime::CompilableProgram p = runtime::load_program_source(input(name));
    auto backend = runtime::make_cpu_backend();
    runtime::Arguments args;
    CHECK_THROWS_WITH(runtime::run(*backend, p, args), Catch::Contains("is C++ written into the SDFG") &&
                                                           Catch::Contains("pass --trust-code"));
  }
}

TEST_CASE("dace-blas: a call on a memlet that disagrees with the call's sizes stays a tasklet",
          "[dace-blas][npbench]") {
  // The same gemm with C's memlet one column short: NJ in the call, NJ - 1 in the memlet.
  auto sdfg = load_sdfg(input("gemm"));
  for (SDFGState* st : sdfg->all_states())
    for (const DataflowEdge* e : st->edges())
      if (e->memlet.data == "C") {
        auto& m = st->edge(e->id).memlet;
        m.subset = Subset::parse("0:NI, 0:NJ - 1");
      }
  transforms::BlasRecognition r = transforms::recognize_dace_blas_calls(*sdfg);
  CHECK(r.recognized.empty());
  REQUIRE(r.kept.size() == 1);
  CHECK(r.kept[0].reason.find("does not match") != std::string::npos);
}
