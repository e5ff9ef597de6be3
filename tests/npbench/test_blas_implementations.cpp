// BLAS library nodes (MatMul, Dot, Gemm, Gemv) in both implementations the CPU code generator
// has: DaCe's "pure" one (loop nests) and "OpenBLAS" (CBLAS calls), each against NumPy on the
// same generated inputs, at odd sizes, 1x1 and non-square shapes given at run time, with
// transposes, alpha/beta, a sub-block with a leading dimension wider than its columns, a
// strided vector and float32.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "corpus.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/npy.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/cpu_schedules.h"

using namespace weir;
using E = sym::Expr;

namespace {

struct Operand {
  std::string conn, data, subset;
};

/// One library node in one state: inputs from access nodes, outputs to fresh access nodes.
struct BlasCase {
  std::string name, cls;
  std::map<std::string, std::vector<std::string>> arrays;  // name -> symbolic shape
  std::vector<Operand> ins, outs;
  std::map<std::string, std::string> attributes;  // JSON text (transA, alpha, ...)
  std::string numpy;                              // Python computing `expected` (dict) from `inputs`
  ScalarType dtype = ScalarType::Float64;
};

std::unique_ptr<SDFG> build(const BlasCase& c, const std::string& implementation) {
  auto s = std::make_unique<SDFG>("blas_" + c.name);
  for (const char* sym : {"M", "K", "N"}) s->add_symbol(sym);
  for (const auto& [name, shape] : c.arrays) {
    std::vector<E> dims;
    for (const auto& d : shape) dims.push_back(E::parse(d));
    s->add_array(name, c.dtype, dims);
  }
  auto& st = s->add_state("main", true);
  auto lib = std::make_unique<LibraryNode>("blas", "LibraryNode");
  lib->classpath = "dace.libraries.blas.nodes." + c.cls;
  lib->implementation = implementation;
  for (const auto& [k, v] : c.attributes) lib->extra.set(k, v);
  for (const auto& o : c.ins) lib->in_connectors[o.conn] = std::nullopt;
  for (const auto& o : c.outs) lib->out_connectors[o.conn] = std::nullopt;
  NodeId n = st.add_node(std::move(lib)).id();
  for (const auto& o : c.ins)
    st.add_edge(st.add_access(o.data).id(), "", n, o.conn, Memlet::simple(o.data, Subset::parse(o.subset)));
  for (const auto& o : c.outs)
    st.add_edge(n, o.conn, st.add_access(o.data).id(), "", Memlet::simple(o.data, Subset::parse(o.subset)));
  return s;
}

/// Writes NumPy's inputs and expected outputs for sizes (m, k, n) into `dir`.
void numpy_reference(const BlasCase& c, const std::filesystem::path& dir, int m, int k, int n) {
  std::ofstream py(dir / "ref.py");
  py << "import numpy as np, os\nM, K, N = " << m << ", " << k << ", " << n << "\n"
     << "rng = np.random.default_rng(7)\ndt = np." << (c.dtype == ScalarType::Float32 ? "float32" : "float64")
     << "\nshapes = {";
  for (const auto& [name, shape] : c.arrays) {
    py << "'" << name << "': (";
    for (const auto& d : shape) py << d << ",";
    py << "), ";
  }
  py << "}\ninputs = {k: rng.uniform(-1, 1, s).astype(dt) for k, s in shapes.items()}\n"
     << "expected = {}\n"
     << c.numpy << "\n"
     << "d = '" << dir.string() << "'\n"
     << "for k, v in inputs.items(): np.save(os.path.join(d, 'in_' + k + '.npy'), v)\n"
     << "for k, v in expected.items(): np.save(os.path.join(d, 'out_' + k + '.npy'), np.asarray(v, "
        "dtype=dt))\n";
  py.close();
  std::string cmd = "/usr/bin/python3 '" + (dir / "ref.py").string() + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
}

void check_case(const BlasCase& c, const std::string& cblas_call) {
  auto dir = test::scratch_dir("blas-" + c.name);
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  const double rtol = c.dtype == ScalarType::Float32 ? 1e-4 : 1e-12;
  for (auto [m, k, n] : {std::tuple{7, 5, 3}, std::tuple{1, 1, 1}, std::tuple{2, 9, 4}}) {
    auto sizes = dir / (std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
    std::filesystem::create_directories(sizes);
    numpy_reference(c, sizes, m, k, n);
    for (const std::string impl : {"pure", "OpenBLAS"}) {
      INFO(c.name << " with M, K, N = " << m << ", " << k << ", " << n << ", implementation " << impl);
      auto sdfg = build(c, impl);
      auto problems = validate(*sdfg);
      INFO((problems.empty() ? std::string() : problems.front().str()));
      REQUIRE(problems.empty());
      // The implementation decides: a CBLAS call for OpenBLAS, loops for pure.
      bool calls = codegen::generate_cpu(*sdfg).source.find(cblas_call + "(") != std::string::npos;
      CHECK(calls == (impl == "OpenBLAS"));
      runtime::Arguments args;
      for (const auto& [name, shape] : c.arrays)
        args.arrays.emplace(name, runtime::read_npy(sizes / ("in_" + name + ".npy")));
      // The sizes the SDFG uses (a program refuses arguments it does not take).
      auto used = sdfg->free_symbols();
      for (auto [sym, v] : {std::pair{"M", m}, std::pair{"K", k}, std::pair{"N", n}})
        if (used.count(sym)) args.values[sym] = std::int64_t(v);
      runtime::CompilableProgram program{std::shared_ptr<const SDFG>(std::move(sdfg)), {}, c.name};
      auto backend = runtime::make_cpu_backend();
      runtime::run(*backend, program, args);
      for (const auto& o : c.outs) {
        auto want = runtime::read_npy(sizes / ("out_" + o.data + ".npy"));
        const auto& got = args.arrays.at(o.data);
        REQUIRE(got.size() == want.size());
        for (std::int64_t i = 0; i < want.size(); ++i) {
          double g = c.dtype == ScalarType::Float32 ? static_cast<const float*>(got.data())[i]
                                                    : static_cast<const double*>(got.data())[i];
          double w = c.dtype == ScalarType::Float32 ? static_cast<const float*>(want.data())[i]
                                                    : static_cast<const double*>(want.data())[i];
          INFO(o.data << "[" << i << "]: got " << g << ", NumPy " << w);
          CHECK(std::abs(g - w) <= rtol * (1 + std::abs(w)));
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("blas: MatMul of two matrices, pure and OpenBLAS, match NumPy", "[blas][npbench]") {
  check_case({"matmul",
              "matmul.MatMul",
              {{"A", {"M", "K"}}, {"B", {"K", "N"}}, {"C", {"M", "N"}}},
              {{"_a", "A", "0:M, 0:K"}, {"_b", "B", "0:K, 0:N"}},
              {{"_c", "C", "0:M, 0:N"}},
              {},
              "expected['C'] = inputs['A'] @ inputs['B']"},
             "cblas_dgemm");
}

TEST_CASE("blas: MatMul of a sub-block (leading dimension wider than its columns) matches NumPy",
          "[blas][npbench]") {
  check_case({"matmul_block",
              "matmul.MatMul",
              {{"A", {"M + 2", "K + 3"}}, {"B", {"K", "N"}}, {"C", {"M", "N"}}},
              {{"_a", "A", "1:M + 1, 2:K + 2"}, {"_b", "B", "0:K, 0:N"}},
              {{"_c", "C", "0:M, 0:N"}},
              {},
              "expected['C'] = inputs['A'][1:M + 1, 2:K + 2] @ inputs['B']"},
             "cblas_dgemm");
}

TEST_CASE("blas: MatMul of matrix and vector (both orders) matches NumPy", "[blas][npbench]") {
  check_case({"matvec",
              "matmul.MatMul",
              {{"A", {"M", "K"}}, {"x", {"K"}}, {"y", {"M"}}},
              {{"_a", "A", "0:M, 0:K"}, {"_b", "x", "0:K"}},
              {{"_c", "y", "0:M"}},
              {},
              "expected['y'] = inputs['A'] @ inputs['x']"},
             "cblas_dgemv");
  check_case({"vecmat",
              "matmul.MatMul",
              {{"x", {"K"}}, {"B", {"K", "N"}}, {"y", {"N"}}},
              {{"_a", "x", "0:K"}, {"_b", "B", "0:K, 0:N"}},
              {{"_c", "y", "0:N"}},
              {},
              "expected['y'] = inputs['x'] @ inputs['B']"},
             "cblas_dgemv");
}

TEST_CASE("blas: Dot with a strided vector matches NumPy", "[blas][npbench]") {
  check_case({"dot",
              "dot.Dot",
              {{"x", {"2 * K"}}, {"y", {"K"}}, {"r", {"1"}}},
              {{"_x", "x", "0:2 * K:2"}, {"_y", "y", "0:K"}},
              {{"_result", "r", "0"}},
              {},
              "expected['r'] = np.array([inputs['x'][0::2] @ inputs['y']])"},
             "cblas_ddot");
}

TEST_CASE("blas: Gemm with transA, alpha and beta in place matches NumPy", "[blas][npbench]") {
  check_case({"gemm",
              "gemm.Gemm",
              {{"A", {"K", "M"}}, {"B", {"K", "N"}}, {"C", {"M", "N"}}},
              {{"_a", "A", "0:K, 0:M"}, {"_b", "B", "0:K, 0:N"}, {"_cin", "C", "0:M, 0:N"}},
              {{"_c", "C", "0:M, 0:N"}},
              {{"transA", "true"}, {"alpha", "2.0"}, {"beta", "0.5"}},
              "expected['C'] = 2.0 * inputs['A'].T @ inputs['B'] + 0.5 * inputs['C']"},
             "cblas_dgemm");
}

TEST_CASE("blas: Gemm into a separate output with transB matches NumPy", "[blas][npbench]") {
  check_case({"gemm_out",
              "gemm.Gemm",
              {{"A", {"M", "K"}}, {"B", {"N", "K"}}, {"C", {"M", "N"}}, {"D", {"M", "N"}}},
              {{"_a", "A", "0:M, 0:K"}, {"_b", "B", "0:N, 0:K"}, {"_cin", "C", "0:M, 0:N"}},
              {{"_c", "D", "0:M, 0:N"}},
              {{"transB", "true"}, {"alpha", "-1.5"}, {"beta", "3"}},
              "expected['D'] = -1.5 * inputs['A'] @ inputs['B'].T + 3 * inputs['C']"},
             "cblas_dgemm");
}

TEST_CASE("blas: Gemv with transA and alpha matches NumPy", "[blas][npbench]") {
  check_case({"gemv",
              "gemv.Gemv",
              {{"A", {"K", "M"}}, {"x", {"K"}}, {"y", {"M"}}},
              {{"_A", "A", "0:K, 0:M"}, {"_x", "x", "0:K"}},
              {{"_y", "y", "0:M"}},
              {{"transA", "true"}, {"alpha", "1.5"}},
              "expected['y'] = 1.5 * inputs['A'].T @ inputs['x']"},
             "cblas_dgemv");
}

TEST_CASE("blas: float32 MatMul matches NumPy", "[blas][npbench]") {
  BlasCase c{"matmul_f32",
             "matmul.MatMul",
             {{"A", {"M", "K"}}, {"B", {"K", "N"}}, {"C", {"M", "N"}}},
             {{"_a", "A", "0:M, 0:K"}, {"_b", "B", "0:K, 0:N"}},
             {{"_c", "C", "0:M, 0:N"}},
             {},
             "expected['C'] = inputs['A'] @ inputs['B']"};
  c.dtype = ScalarType::Float32;
  check_case(c, "cblas_sgemm");
}

TEST_CASE("blas: weir's cpu schedules give BLAS nodes without an implementation OpenBLAS",
          "[blas][npbench]") {
  BlasCase c{"sched",
             "matmul.MatMul",
             {{"A", {"M", "K"}}, {"B", {"K", "N"}}, {"C", {"M", "N"}}},
             {{"_a", "A", "0:M, 0:K"}, {"_b", "B", "0:K, 0:N"}},
             {{"_c", "C", "0:M, 0:N"}},
             {},
             ""};
  auto sdfg = build(c, "");
  transforms::AnalysisCache cache;
  transforms::CpuSchedules().run(*sdfg, cache);
  LibraryNode* ln = nullptr;
  for (Node* n : sdfg->all_states()[0]->nodes())
    if (auto* l = n->as<LibraryNode>()) ln = l;
  REQUIRE(ln);
  CHECK(ln->implementation == "OpenBLAS");
  auto pure = build(c, "pure");
  transforms::AnalysisCache cache2;
  transforms::CpuSchedules().run(*pure, cache2);  // an explicit choice stays
  for (Node* n : pure->all_states()[0]->nodes())
    if (auto* l = n->as<LibraryNode>()) CHECK(l->implementation == "pure");
}
