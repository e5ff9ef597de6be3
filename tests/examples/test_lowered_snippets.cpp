// Lowered field-view snippets run on the cpu backend against values worked out by hand (and, on
// copies of the arguments, auto-optimized for the GPU with the same results): a
// column-only backward scan with a tuple carry and a domain starting above 0 (its states have
// no map), an `if` that returns in one branch, and a reduction over a table with -1 entries.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <map>

#include "corpus.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/type_checker.h"
#include "weir/runtime/dispatch.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/auto_optimize.h"

using namespace weir;

namespace {

const char* kHeader =
    "import gt4py.next as gtx\n"
    "from gt4py.next import Field, float64, neighbor_sum\n"
    "K = gtx.Dimension(\"K\", kind=gtx.DimensionKind.VERTICAL)\n"
    "V = gtx.Dimension(\"V\")\n"
    "E = gtx.Dimension(\"E\")\n"
    "V2EDim = gtx.Dimension(\"V2E\", kind=gtx.DimensionKind.LOCAL)\n"
    "V2E = gtx.FieldOffset(\"V2E\", source=E, target=(V, V2EDim))\n";

runtime::Field vector(std::vector<double> v) {
  runtime::Field f =
      runtime::Allocator::cpu().allocate(ScalarType::Float64, {static_cast<std::int64_t>(v.size())});
  std::memcpy(f.data(), v.data(), v.size() * sizeof(double));
  return f;
}

std::vector<double> values(const runtime::Field& f) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < f.size(); ++i) out.push_back(f.value_as_double(i));
  return out;
}

/// Lowers `program` of `body` (after kHeader), validates it and runs it on the cpu backend.
void run_snippet(const std::string& body, const std::string& program, runtime::Arguments& args,
                 const std::string& tag) {
  frontend::ModuleLoader loader(frontend::LoaderOptions{{}, false});
  const frontend::LoadedModule& m = loader.load_source(frontend::SourceFile("snippet.py", kHeader + body));
  frontend::TypeChecker tc;
  for (const auto& d : m.definitions)
    if (d->name == program) {
      std::shared_ptr<SDFG> sdfg = frontend::lower_to_sdfg(tc.check(*d));
      std::string diags;
      for (const Diagnostic& x : validate(*sdfg)) diags += x.str() + "\n";
      REQUIRE(diags == "");
      // One fresh cache per tag (runs of one program compile it once).
      static std::map<std::string, std::string> caches;
      if (!caches.count(tag)) caches[tag] = test::scratch_dir("snippet-cache-" + tag).string();
      ::setenv("WEIR_CACHE_DIR", caches[tag].c_str(), 1);
      auto backend = runtime::make_backend("cpu");
      // The same program auto-optimized for the GPU (kernels run as host loops) must give the
      // same values, bit for bit, on a copy of the arguments.
      std::shared_ptr<SDFG> gpu = sdfg->clone_sdfg();
      transforms::auto_optimize(*gpu, DeviceType::GPU);
      std::string gpu_diags;
      for (const Diagnostic& x : validate(*gpu)) gpu_diags += x.str() + "\n";
      REQUIRE(gpu_diags == "");
      runtime::Arguments on_gpu;
      for (const auto& [k, f] : args.arrays) on_gpu.arrays.emplace(k, f.clone());
      on_gpu.values = args.values;
      runtime::run(
          *backend,
          runtime::CompilableProgram{gpu, {}, "snippet.py::" + program + " (auto-optimized for the GPU)"},
          on_gpu);
      runtime::run(*backend, runtime::CompilableProgram{sdfg, {}, "snippet.py::" + program}, args);
      for (const auto& [k, f] : args.arrays) {
        INFO("array " << k << " after the GPU-optimized program");
        CHECK(values(on_gpu.arrays.at(k)) == values(f));
      }
      return;
    }
  FAIL("no definition " << program);
}

}  // namespace

TEST_CASE("snippets: a backward column scan with a tuple carry from level n-1 down to 1",
          "[examples][scan]") {
  const std::string src =
      "@gtx.scan_operator(axis=K, forward=False, init=(1.0, 0.0))\n"
      "def prodsum(state: tuple[float64, float64], x: float64) -> tuple[float64, float64]:\n"
      "    p, s = state\n"
      "    return p * x, s + p * x\n"
      "@gtx.program\n"
      "def col(x: Field[[K], float64], p: Field[[K], float64], s: Field[[K], float64], n: gtx.int32):\n"
      "    prodsum(x, out=(p, s), domain={K: (1, n)})\n";
  runtime::Arguments args;
  args.arrays.emplace("x", vector({2.0, 3.0, 0.5, 4.0, 1.5, 7.0}));
  args.arrays.emplace("p", vector({-9, -9, -9, -9, -9, -9}));
  args.arrays.emplace("s", vector({-9, -9, -9, -9, -9, -9}));
  args.values["n"] = std::int64_t{5};
  run_snippet(src, "col", args, "col");
  // from k = 4 down to 1: products 1.5, 6, 3, 9 and their running sums 1.5, 7.5, 10.5, 19.5
  CHECK(values(args.arrays.at("p")) == std::vector<double>{-9, 9, 3, 6, 1.5, -9});
  CHECK(values(args.arrays.at("s")) == std::vector<double>{-9, 19.5, 10.5, 7.5, 1.5, -9});
}

TEST_CASE("snippets: an `if` returning in one branch, and sequential ifs", "[examples][if]") {
  const std::string src =
      "@gtx.field_operator\n"
      "def f(x: Field[[K], float64], c: bool, d: bool) -> Field[[K], float64]:\n"
      "    if c:\n"
      "        return x\n"
      "    y = x * 2.0\n"
      "    if d:\n"
      "        y = y + 1.0\n"
      "    if d:\n"
      "        y = y * 10.0\n"
      "    else:\n"
      "        y = y - 3.0\n"
      "    return y\n"
      "@gtx.program\n"
      "def p(x: Field[[K], float64], c: bool, d: bool, out: Field[[K], float64]):\n"
      "    f(x, c, d, out=out)\n";
  auto run = [&](bool c, bool d) {
    runtime::Arguments args;
    args.arrays.emplace("x", vector({1.0, -2.0}));
    args.arrays.emplace("out", vector({0.0, 0.0}));
    args.values["c"] = c;
    args.values["d"] = d;
    run_snippet(src, "p", args, "if");
    return values(args.arrays.at("out"));
  };
  CHECK(run(true, true) == std::vector<double>{1.0, -2.0});
  CHECK(run(false, true) == std::vector<double>{30.0, -30.0});  // (2x + 1) * 10
  CHECK(run(false, false) == std::vector<double>{-1.0, -7.0});  // 2x - 3
}

TEST_CASE("snippets: neighbor_sum skips -1 entries of the table", "[examples][unstructured]") {
  const std::string src =
      "@gtx.field_operator\n"
      "def gather(e: Field[[E], float64]) -> Field[[V], float64]:\n"
      "    return neighbor_sum(e(V2E), axis=V2EDim)\n"
      "@gtx.program\n"
      "def p(e: Field[[E], float64], out: Field[[V], float64]):\n"
      "    gather(e, out=out)\n";
  runtime::Arguments args;
  args.arrays.emplace("e", vector({1.0, 10.0, 100.0, 1000.0}));
  args.arrays.emplace("out", vector({0.0, 0.0}));
  runtime::Field t = runtime::Allocator::cpu().allocate(ScalarType::Int32, {2, 6});
  const std::int32_t rows[12] = {0, 1,  2, 3,  -1, -1,   // vertex 0: 1111
                                 3, -1, 3, -1, 0,  -1};  // vertex 1: 1000 + 1000 + 1
  std::memcpy(t.data(), rows, sizeof rows);
  args.arrays.emplace("V2E", std::move(t));
  run_snippet(src, "p", args, "skip");
  CHECK(values(args.arrays.at("out")) == std::vector<double>{1111.0, 2001.0});
}

TEST_CASE("snippets: as_offset reads each level at its own offset", "[examples][as_offset]") {
  const std::string src =
      "Koff = gtx.FieldOffset(\"Koff\", source=K, target=(K,))\n"
      "@gtx.field_operator\n"
      "def pick(x: Field[[K], float64], o: Field[[K], gtx.int32]) -> Field[[K], float64]:\n"
      "    return x(gtx.as_offset(Koff, o)) + x(K + 1)\n"
      "@gtx.program\n"
      "def p(x: Field[[K], float64], o: Field[[K], gtx.int32], out: Field[[K], float64]):\n"
      "    pick(x, o, out=out[0:4])\n";
  runtime::Arguments args;
  args.arrays.emplace("x", vector({1.0, 10.0, 100.0, 1000.0, 10000.0}));
  runtime::Field o = runtime::Allocator::cpu().allocate(ScalarType::Int32, {5});
  const std::int32_t offs[5] = {4, 0, -2, 1, 0};
  std::memcpy(o.data(), offs, sizeof offs);
  args.arrays.emplace("o", std::move(o));
  args.arrays.emplace("out", vector({0, 0, 0, 0, -5}));
  run_snippet(src, "p", args, "as_offset");
  // out[k] = x[k + o[k]] + x[k + 1]
  CHECK(values(args.arrays.at("out")) == std::vector<double>{10010.0, 110.0, 1001.0, 20000.0, -5.0});
}
