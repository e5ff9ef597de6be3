// End to end: every stage of the DaCe corpus kernels (laplace2d, jacobi_2d, hdiff) is generated,
// compiled with the system compiler (g++ -O2 -fopenmp -shared), loaded and run on the corpus
// inputs; every array in expected/ must match within rtol 1e-12 (atol 0). The GPU stages run
// on the CPU (GPU_Global as host memory, GPU_Device maps as parallel loops). The doc samples
// are generated and compiled, and run where the result is easy to state.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "npy_test.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/sdfg/serialize.h"

using namespace weir;
using namespace weir::codegen;

namespace {

/// 64-byte aligned, zero-initialised bytes.
struct Buffer {
  std::vector<std::uint64_t> words;
  void* data() { return words.data(); }
  explicit Buffer(std::size_t bytes) : words((bytes + 7) / 8 + 1, 0) {}
};

void run_kernel(const std::string& kernel, const std::string& stage) {
  auto dir = test::dace_corpus_dir() / kernel;
  auto file = dir / (kernel + "." + stage + ".sdfg");
  INFO("SDFG " << file.string());
  auto sdfg = load_sdfg(file.string());
  GeneratedCode g = generate_cpu(*sdfg);
  auto so = test::compile_shared(g.source, test::scratch_dir("codegen_e2e_" + kernel + "_" + stage));
  test::LoadedProgram prog(so);

  auto symbols = test::read_flat_json(dir / "symbols.json");
  auto scalars = test::read_flat_json(dir / "scalars.json");
  std::map<std::string, long long> symvals;
  for (const auto& [k, v] : symbols) symvals[k] = std::stoll(v);

  std::vector<std::unique_ptr<Buffer>> buffers;
  std::map<std::string, Buffer*> arrays;
  std::vector<void*> args;
  for (const auto& a : g.args) {
    INFO("argument " << a.name);
    if (a.kind == ArgKind::Symbol) {
      REQUIRE(symvals.count(a.name));
      auto b = std::make_unique<Buffer>(8);
      std::int64_t v = symvals.at(a.name);
      std::memcpy(b->data(), &v, 8);
      args.push_back(b->data());
      buffers.push_back(std::move(b));
      continue;
    }
    const DataDescriptor& d = sdfg->arrays.at(a.name);
    std::size_t item = size_of(d.dtype.base);
    if (a.kind == ArgKind::Scalar) {
      REQUIRE(scalars.count(a.name));
      auto b = std::make_unique<Buffer>(8);
      const std::string& text = scalars.at(a.name);
      switch (d.dtype.base) {
        case ScalarType::Int64: {
          std::int64_t v = std::stoll(text);
          std::memcpy(b->data(), &v, 8);
          break;
        }
        case ScalarType::Int32: {
          std::int32_t v = std::stoi(text);
          std::memcpy(b->data(), &v, 4);
          break;
        }
        case ScalarType::Float64: {
          double v = std::stod(text);
          std::memcpy(b->data(), &v, 8);
          break;
        }
        default: FAIL("unsupported scalar type for " << a.name);
      }
      args.push_back(b->data());
      buffers.push_back(std::move(b));
      continue;
    }
    long long count = 1;
    for (const auto& s : d.shape) count *= s.evaluate(symvals);
    auto b = std::make_unique<Buffer>(static_cast<std::size_t>(count) * item);
    auto input = dir / "inputs" / (a.name + ".npy");
    if (std::filesystem::exists(input)) {
      test::NpyArray arr = test::read_npy(input);
      REQUIRE(arr.item_size == item);
      REQUIRE(arr.size() == static_cast<std::size_t>(count));
      std::memcpy(b->data(), arr.data.data(), arr.data.size());
    }
    arrays[a.name] = b.get();
    args.push_back(b->data());
    buffers.push_back(std::move(b));
  }
  prog.call(args);

  std::size_t compared = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "expected")) {
    std::string name = e.path().stem().string();
    INFO("expected output " << name);
    REQUIRE(arrays.count(name));
    test::NpyArray exp = test::read_npy(e.path());
    REQUIRE(exp.descr == "<f8");
    const double* got = static_cast<const double*>(arrays.at(name)->data());
    std::size_t bad = 0;
    double worst = 0;
    std::size_t worst_at = 0;
    for (std::size_t i = 0; i < exp.size(); ++i) {
      double ev = exp.at(i);
      double err = std::abs(got[i] - ev);
      if (!(err <= 1e-12 * std::abs(ev))) {
        ++bad;
        if (!(err <= worst)) {
          worst = err;
          worst_at = i;
        }
      }
    }
    INFO(bad << " of " << exp.size() << " elements differ; worst at " << worst_at << ": got " << got[worst_at]
             << ", expected " << exp.at(worst_at));
    CHECK(bad == 0);
    ++compared;
  }
  CHECK(compared > 0);
}

}  // namespace

#define WEIR_E2E(kernel, stage) \
  TEST_CASE("end to end: " kernel "." stage, "[codegen][e2e]") { run_kernel(kernel, stage); }

WEIR_E2E("laplace2d", "frontend")
WEIR_E2E("laplace2d", "simplified")
WEIR_E2E("laplace2d", "auto_optimized_cpu")
WEIR_E2E("laplace2d", "auto_optimized_gpu")
WEIR_E2E("jacobi_2d", "frontend")
WEIR_E2E("jacobi_2d", "simplified")
WEIR_E2E("jacobi_2d", "auto_optimized_cpu")
WEIR_E2E("jacobi_2d", "auto_optimized_gpu")
WEIR_E2E("hdiff", "frontend")
WEIR_E2E("hdiff", "simplified")
WEIR_E2E("hdiff", "auto_optimized_cpu")
WEIR_E2E("hdiff", "auto_optimized_gpu")

TEST_CASE("end to end: DaCe doc samples", "[codegen][e2e]") {
  auto dir = test::dace_corpus_dir() / "doc-samples";
  SECTION("reference.sdfg uses a Reference, which the code generator reports") {
    auto s = load_sdfg((dir / "reference.sdfg").string());
    CHECK_THROWS_WITH(generate_cpu(*s), Catch::Contains("container 'ref'") && Catch::Contains("Reference"));
  }
  SECTION("example.sdfg: a loop of interstate edges doubling A five times") {
    auto s = load_sdfg((dir / "example.sdfg").string());
    GeneratedCode g = generate_cpu(*s);
    test::LoadedProgram p(test::compile_shared(g.source, test::scratch_dir("codegen_doc_example")));
    // Arguments: A, __return, N (int32 symbol at the ABI's int64).
    REQUIRE(g.args.size() == 3);
    std::vector<double> A = {1, 2, 3, 4}, R(4, 0.0);
    std::int64_t n = 2;
    p.call({A.data(), R.data(), &n});
    CHECK(R == std::vector<double>{32, 64, 96, 128});
  }
  SECTION("gpu-notb.sdfg and gpu-tb.sdfg: B = A + 1 through GPU transients") {
    for (const char* f : {"gpu-notb.sdfg", "gpu-tb.sdfg"}) {
      INFO(f);
      auto s = load_sdfg((dir / f).string());
      GeneratedCode g = generate_cpu(*s);
      test::LoadedProgram p(
          test::compile_shared(g.source, test::scratch_dir(std::string("codegen_doc_") + f)));
      // N = 32: gpu-tb's memlets (32*i + j with i stepping by 32) only stay in bounds for N <= 32.
      std::vector<double> A(32), B(32, 0.0);
      for (int i = 0; i < 32; ++i) A[static_cast<std::size_t>(i)] = i;
      std::int64_t n = 32;
      p.call({A.data(), B.data(), &n});
      for (int i = 0; i < 32; ++i) CHECK(B[static_cast<std::size_t>(i)] == i + 1.0);
    }
  }
  SECTION("scalarsym.sdfg: a symbol assigned from a scalar indexes a copy") {
    auto s = load_sdfg((dir / "scalarsym.sdfg").string());
    GeneratedCode g = generate_cpu(*s);
    test::LoadedProgram p(test::compile_shared(g.source, test::scratch_dir("codegen_doc_scalarsym")));
    std::vector<double> A(20);
    for (int i = 0; i < 20; ++i) A[static_cast<std::size_t>(i)] = i * 1.5;
    double B = 0;
    p.call({A.data(), &B});
    CHECK(B == 6.0);  // sym = 2, B[0] = A[sym**2]
  }
  SECTION("spmv.sdfg: CSR matrix-vector product with dynamic map ranges and WCR") {
    auto s = load_sdfg((dir / "spmv.sdfg").string());
    GeneratedCode g = generate_cpu(*s);
    test::LoadedProgram p(test::compile_shared(g.source, test::scratch_dir("codegen_doc_spmv")));
    // 3x3 matrix [[1,0,2],[0,3,0],[4,0,5]]
    std::vector<std::uint32_t> row = {0, 2, 3, 5}, col = {0, 2, 1, 0, 2};
    std::vector<float> val = {1, 2, 3, 4, 5}, x = {1, 2, 3}, b(3, 0.0f);
    std::map<std::string, void*> by_name = {{"A_row", row.data()},
                                            {"A_col", col.data()},
                                            {"A_val", val.data()},
                                            {"x", x.data()},
                                            {"b", b.data()}};
    std::int64_t H = 3, W = 3, nnz = 5;
    std::map<std::string, std::int64_t*> syms = {{"H", &H}, {"W", &W}, {"nnz", &nnz}};
    std::vector<void*> args;
    for (const auto& a : g.args) {
      // Dynamic map-range connectors (__map_33_b0) are defined in the map scope, not arguments.
      REQUIRE((by_name.count(a.name) || syms.count(a.name)));
      if (by_name.count(a.name))
        args.push_back(by_name[a.name]);
      else
        args.push_back(syms[a.name]);
    }
    p.call(args);
    CHECK(b == std::vector<float>{7, 6, 19});
  }
}
