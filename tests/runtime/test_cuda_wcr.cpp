// Write-conflict resolution in CUDA kernels (issue 12): every thread of a GPU_Device map updates
// the same elements, so each update is atomic; the ones CUDA has no atomic for (sums of int64,
// products, differences, bitwise or, max, data-dependent histogram bins) go through the
// compare-and-swap update weir_atomic_update, whose combining function is the WCR lambda itself.
// The emulated CUDA program and the cpu backend must both give the hand-computed values.
#include <catch2/catch.hpp>
#include <cstdint>

#include "cuda_emulation.h"
#include "runtime_test_util.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/gpu_backend.h"
#include "weir/sdfg/nodes.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

using namespace weir::runtime;

namespace {

// for i in 0:N: one tasklet reads X[i] (float64) and K[i] (int64, 0..3) and writes with WCR
//   S[0] (int64, +), P[0] (float64, *), D[0] (int64, lambda a, b: a - b), O[0] (int32, |),
//   B[0] (bool, |), M[0] (float64, max) and H[K[i]] (int64, +: a histogram).
CompilableProgram wcr_program() {
  using weir::ScalarType;
  using weir::Subset;
  using E = weir::sym::Expr;
  auto s = std::make_shared<weir::SDFG>("wcr_in_kernel");
  s->add_symbol("N");
  s->add_array("X", ScalarType::Float64, {E::symbol("N")});
  s->add_array("K", ScalarType::Int64, {E::symbol("N")});
  struct Out {
    const char* data;
    ScalarType type;
    const char* conn;
    const char* wcr;
  };
  const std::vector<Out> outs = {{"S", ScalarType::Int64, "s", "lambda a, b: a + b"},
                                 {"P", ScalarType::Float64, "p", "lambda a, b: b * a"},
                                 {"D", ScalarType::Int64, "d", "lambda a, b: a - b"},
                                 {"O", ScalarType::Int32, "o", "lambda a, b: a | b"},
                                 {"B", ScalarType::Bool, "f", "lambda a, b: a | b"},
                                 {"M", ScalarType::Float64, "m", "lambda a, b: max(a, b)"}};
  for (const auto& o : outs) s->add_array(o.data, o.type, {E(1)});
  s->add_array("H", ScalarType::Int64, {E(4)});
  auto& st = s->add_state("main", true);
  auto& x = st.add_access("X");
  auto& k = st.add_access("K");
  auto& m = st.add_map("points", {"i"}, Subset::parse("0:N"));
  std::vector<std::string> out_conns;
  for (const auto& o : outs) out_conns.push_back(o.conn);
  out_conns.push_back("h");
  auto& t = st.add_tasklet(
      "update", {"s = k\np = x\nd = k\no = k\nf = k == 0\nm = x\nh[k] = 1", weir::Language::Python},
      {"x", "k"}, out_conns);
  auto in_x =
      st.add_memlet_path({x.id(), m.id(), t.id()}, weir::Memlet::simple("X", Subset::parse("i")), "", "x");
  auto in_k =
      st.add_memlet_path({k.id(), m.id(), t.id()}, weir::Memlet::simple("K", Subset::parse("i")), "", "k");
  st.edge(in_x.front()).memlet = weir::Memlet::simple("X", Subset::parse("0:N"));
  st.edge(in_k.front()).memlet = weir::Memlet::simple("K", Subset::parse("0:N"));
  for (const auto& o : outs) {
    auto& a = st.add_access(o.data);
    st.add_memlet_path({t.id(), m.exit, a.id()}, weir::Memlet::simple(o.data, Subset::parse("0"), o.wcr),
                       o.conn, "");
  }
  auto& h = st.add_access("H");
  auto path =
      st.add_memlet_path({t.id(), m.exit, h.id()},
                         weir::Memlet::simple("H", Subset::parse("0:4"), "lambda a, b: a + b"), "h", "");
  for (auto id : path) st.edge(id).memlet.dynamic = true;
  CompilableProgram program;
  program.sdfg = s;
  return program;
}

}  // namespace

TEST_CASE("cuda emulation: write-conflict resolutions of every kind in a kernel match hand-computed values",
          "[runtime][gpu][emulation]") {
  const std::vector<double> X = {1.5, 2, 0.5, 1, 1.25, 2, 1, 0.5, 4, 1};
  const std::vector<std::int64_t> K = {3, 1, 2, 3, 0, 1, 3, 2, 1, 3};
  CompilableProgram program = wcr_program();
  // The racing updates CUDA has no atomicAdd for go through the compare-and-swap update.
  CHECK_THAT(generate_gpu_program(program).source, Catch::Contains("weir_atomic_update("));
  for (const char* backend : {"cuda-emulation", "cpu"}) {
    INFO(backend);
    Arguments args;
    auto array = [&](const char* name, weir::ScalarType t, std::int64_t n) -> Field& {
      args.arrays.emplace(name, Allocator::cpu().allocate(t, {n}));
      return args.arrays.at(name);
    };
    auto* x = static_cast<double*>(array("X", weir::ScalarType::Float64, 10).data());
    auto* k = static_cast<std::int64_t*>(array("K", weir::ScalarType::Int64, 10).data());
    for (int i = 0; i < 10; ++i) x[i] = X[i], k[i] = K[i];
    *static_cast<std::int64_t*>(array("S", weir::ScalarType::Int64, 1).data()) = 100;
    *static_cast<double*>(array("P", weir::ScalarType::Float64, 1).data()) = 2;
    *static_cast<std::int64_t*>(array("D", weir::ScalarType::Int64, 1).data()) = 100;
    *static_cast<std::int32_t*>(array("O", weir::ScalarType::Int32, 1).data()) = 0x40;
    *static_cast<bool*>(array("B", weir::ScalarType::Bool, 1).data()) = false;
    *static_cast<double*>(array("M", weir::ScalarType::Float64, 1).data()) = 0.5;
    auto* h = static_cast<std::int64_t*>(array("H", weir::ScalarType::Int64, 4).data());
    for (int b = 0; b < 4; ++b) h[b] = 10 * b;
    if (std::string(backend) == "cpu")
      run(*make_cpu_backend(), program, args);
    else
      run(*weir::test::make_cuda_emulation_backend(), program, args);
    auto first = [&](const char* name) { return args.arrays.at(name).data(); };
    // sum(K) = 19; the product of X is 7.5 (exact in binary); 3 | 1 | 2 | 0 = 3; one K is 0.
    CHECK(*static_cast<const std::int64_t*>(first("S")) == 100 + 19);
    CHECK(*static_cast<const double*>(first("P")) == 2 * 7.5);
    CHECK(*static_cast<const std::int64_t*>(first("D")) == 100 - 19);
    CHECK(*static_cast<const std::int32_t*>(first("O")) == (0x40 | 3));
    CHECK(*static_cast<const bool*>(first("B")) == true);
    CHECK(*static_cast<const double*>(first("M")) == 4);
    // Bins 0..3 hold 1, 3, 2 and 4 of the K values, on top of 0, 10, 20, 30.
    const auto* hist = static_cast<const std::int64_t*>(first("H"));
    CHECK(std::vector<std::int64_t>(hist, hist + 4) == std::vector<std::int64_t>{1, 13, 22, 34});
  }
}
