#include "library_case.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "corpus.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/npy.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/library_expansion.h"

namespace weir::test {

using E = sym::Expr;

std::unique_ptr<SDFG> build_library_case(const LibraryCase& c, const std::string& implementation) {
  auto s = std::make_unique<SDFG>(c.library + "_" + c.name);
  for (const char* sym : {"M", "K", "N"}) s->add_symbol(sym);
  for (const auto& [name, shape] : c.arrays) {
    std::vector<E> dims;
    for (const auto& d : shape) dims.push_back(E::parse(d));
    s->add_array(name, c.dtype, dims);
  }
  auto& st = s->add_state("main", true);
  auto lib = std::make_unique<LibraryNode>(c.library, "LibraryNode");
  lib->classpath = "dace.libraries." + c.library + ".nodes." + c.cls;
  lib->implementation = implementation;
  for (const auto& [k, v] : c.attributes) {
    // Reduce's own properties (as the JSON reader fills them); anything else stays verbatim.
    if (k == "wcr") {
      lib->wcr = v;
    } else if (k == "identity") {
      lib->identity = v;
    } else if (k == "axes") {
      std::vector<int> axes;
      for (char ch : v)
        if (std::isdigit(static_cast<unsigned char>(ch))) axes.push_back(ch - '0');
      lib->axes = axes;
    } else {
      lib->extra.set(k, v);
    }
  }
  // An empty connector name: the edge has none (DaCe writes a Reduce's output edge so).
  for (const auto& o : c.ins)
    if (!o.conn.empty()) lib->in_connectors[o.conn] = std::nullopt;
  for (const auto& o : c.outs)
    if (!o.conn.empty()) lib->out_connectors[o.conn] = std::nullopt;
  NodeId n = st.add_node(std::move(lib)).id();
  for (const auto& o : c.ins)
    st.add_edge(st.add_access(o.data).id(), "", n, o.conn, Memlet::simple(o.data, Subset::parse(o.subset)));
  for (const auto& o : c.outs)
    st.add_edge(n, o.conn, st.add_access(o.data).id(), "", Memlet::simple(o.data, Subset::parse(o.subset)));
  return s;
}

void library_numpy_reference(const LibraryCase& c, const std::filesystem::path& dir, int m, int k, int n) {
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
     << c.prepare << "\n"
     << "expected = {}\n"
     << c.numpy << "\n"
     << "d = '" << dir.string() << "'\n"
     << "for k, v in inputs.items(): np.save(os.path.join(d, 'in_' + k + '.npy'), v)\n"
     << "for k, v in expected.items(): np.save(os.path.join(d, 'out_' + k + '.npy'), np.ascontiguousarray(v, "
        "dtype=dt))\n";
  py.close();
  std::string cmd = "/usr/bin/python3 '" + (dir / "ref.py").string() + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
}

std::map<std::string, std::vector<double>> run_float64(const SDFG& sdfg, const Float64Arrays& arrays,
                                                       const std::map<std::string, std::int64_t>& symbols,
                                                       const std::string& cache) {
  // Shared by the cases that ctest runs in parallel processes, never wiped (corpus.h).
  ::setenv("WEIR_CACHE_DIR", shared_cache_dir(cache).c_str(), 1);
  runtime::Arguments args;
  for (const auto& [name, a] : arrays) {
    args.arrays.emplace(name, runtime::Allocator::cpu().allocate(ScalarType::Float64, a.first));
    std::copy(a.second.begin(), a.second.end(), static_cast<double*>(args.arrays.at(name).data()));
  }
  for (const auto& [s, v] : symbols)
    if (sdfg.free_symbols().count(s)) args.values[s] = v;
  runtime::CompilableProgram p{sdfg.clone_sdfg(), {}, sdfg.name};
  auto backend = runtime::make_cpu_backend();
  runtime::run(*backend, p, args);
  std::map<std::string, std::vector<double>> out;
  for (const auto& [name, a] : arrays) {
    const auto* d = static_cast<const double*>(args.arrays.at(name).data());
    out[name] = std::vector<double>(d, d + a.second.size());
  }
  return out;
}

void check_library_case(const LibraryCase& c, const std::string& fast_call) {
  auto dir = scratch_dir(c.library + "-" + c.name);
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  const double rtol = c.dtype == ScalarType::Float32 ? 1e-4 : 1e-12;
  // 300 x 130 x 260: more than one 256-element block of a vector result, and the parallel branch
  // (more than 32768 multiply-adds) of the pure loops.
  for (auto [m, k, n] :
       {std::tuple{7, 5, 3}, std::tuple{1, 1, 1}, std::tuple{2, 9, 4}, std::tuple{300, 130, 260}}) {
    auto sizes = dir / (std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
    std::filesystem::create_directories(sizes);
    library_numpy_reference(c, sizes, m, k, n);
    // "pure" and OpenBLAS; for MatMul, Gemm and Gemv also the default (""): the code generator's
    // loops, where "pure" is the library-expansion pass's maps (docs/adr/0040). For the other
    // classes the default is "pure".
    const bool split = c.cls == "matmul.MatMul" || c.cls == "gemm.Gemm" || c.cls == "gemv.Gemv";
    std::vector<std::string> impls{"pure", "OpenBLAS"};
    if (split) impls.insert(impls.begin(), "");
    for (const std::string& impl : impls) {
      INFO(c.name << " with M, K, N = " << m << ", " << k << ", " << n << ", implementation " << impl);
      auto sdfg = build_library_case(c, impl);
      auto problems = validate(*sdfg);
      INFO((problems.empty() ? std::string() : problems.front().str()));
      REQUIRE(problems.empty());
      // The implementation decides: a library call for OpenBLAS, loops for pure.
      if (!fast_call.empty()) {
        // As the compile path does: library-expansion first (the pure nodes it owns).
        auto expanded = sdfg->clone_sdfg();
        transforms::AnalysisCache cache;
        transforms::LibraryExpansion().run(*expanded, cache);
        bool calls = codegen::generate_cpu(*expanded).source.find(fast_call + "(") != std::string::npos;
        CHECK(calls == (impl == "OpenBLAS"));
      }
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

}  // namespace weir::test
