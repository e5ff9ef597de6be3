// Benchmark of auto_optimize for the CPU:
//  * time of auto_optimize on DaCe's simplified hdiff (median of 21 runs on fresh copies);
//  * time of auto_optimize on 500, 1,000 and 2,000 composed stencils in one SDFG (scaling);
//  * run time of hdiff at I x J x K (default 256 x 256 x 80) compiled by weir from weir's
//    auto_optimize of hdiff.simplified.sdfg vs from DaCe's hdiff.auto_optimized_cpu.sdfg,
//    interleaved runs, medians (set OMP_NUM_THREADS as wanted).
// Usage: weir_bench_auto_optimize [I J K [reps]]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/program_source.h"
#include "weir/sdfg/serialize.h"
#include "weir/transforms/auto_optimize.h"

using namespace weir;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string corpus(const std::string& f) {
  return std::string(WEIR_SOURCE_DIR) + "/../shared/corpus/dace/hdiff/" + f;
}

/// T(k+1)[i] = T(k)[i] + T(k)[i + 1] * 0.5 for k < n; every 4th T is an output.
std::unique_ptr<SDFG> composed_stencils(int n) {
  auto sdfg = std::make_unique<SDFG>("composed");
  sdfg->add_symbol("N");
  auto size = sym::Expr::parse("N + " + std::to_string(n + 4));
  for (int k = 0; k <= n; ++k)
    sdfg->add_array("T" + std::to_string(k), ScalarType::Float64, {size}, k % 4 != 0 && k != 0);
  SDFGState& st = sdfg->add_state("main", true);
  NodeId prev = st.add_access("T0").id();
  for (int k = 0; k < n; ++k) {
    std::string in = "T" + std::to_string(k), out = "T" + std::to_string(k + 1);
    Subset range = Subset::parse("0:N+" + std::to_string(n - k));
    auto& m = st.add_map("s" + std::to_string(k), {"i"}, range);
    auto& t =
        st.add_tasklet("s" + std::to_string(k), {"y = x0 + x1 * 0.5", Language::Python}, {"x0", "x1"}, {"y"});
    Subset whole = Subset::full({size});
    auto e0 = st.add_memlet_path({prev, m.id(), t.id()}, Memlet::simple(in, Subset::parse("i")), "", "x0");
    st.edge(e0[0]).memlet = Memlet::simple(in, whole);
    auto e1 =
        st.add_memlet_path({prev, m.id(), t.id()}, Memlet::simple(in, Subset::parse("i + 1")), "", "x1");
    st.edge(e1[0]).memlet = Memlet::simple(in, whole);
    NodeId next = st.add_access(out).id();
    auto eo = st.add_memlet_path({t.id(), m.exit, next}, Memlet::simple(out, Subset::parse("i")), "y", "");
    st.edge(eo[1]).memlet = Memlet::simple(out, range);
    prev = next;
  }
  return sdfg;
}

runtime::Arguments hdiff_arguments(std::int64_t I, std::int64_t J, std::int64_t K) {
  runtime::Arguments a;
  a.arrays.emplace("in_field", runtime::Allocator::cpu().allocate(ScalarType::Float64, {I + 4, J + 4, K}));
  a.arrays.emplace("coeff", runtime::Allocator::cpu().allocate(ScalarType::Float64, {I, J, K}));
  a.arrays.emplace("out_field", runtime::Allocator::cpu().allocate(ScalarType::Float64, {I, J, K}));
  auto fill = [](runtime::Field& f, unsigned seed) {
    auto* p = static_cast<double*>(f.data());
    for (std::int64_t k = 0; k < f.size(); ++k)
      p[k] = static_cast<double>((k * 2654435761u + seed) % 1000) / 1000.0;
  };
  fill(a.arrays.at("in_field"), 1);
  fill(a.arrays.at("coeff"), 2);
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t I = argc > 3 ? std::atoll(argv[1]) : 256, J = argc > 3 ? std::atoll(argv[2]) : 256,
               K = argc > 3 ? std::atoll(argv[3]) : 80;
  int reps = argc > 4 ? std::atoi(argv[4]) : 15;

  auto simplified = load_sdfg(corpus("hdiff.simplified.sdfg"));
  std::vector<double> t_ao;
  std::unique_ptr<SDFG> optimized;
  for (int r = 0; r < 21; ++r) {
    auto s = simplified->clone_sdfg();
    auto t0 = Clock::now();
    transforms::auto_optimize(*s, DeviceType::CPU);
    t_ao.push_back(seconds_since(t0));
    optimized = std::move(s);
  }
  std::printf("auto_optimize(hdiff.simplified, cpu): median %.2f ms over 21 runs\n", median(t_ao) * 1e3);

  for (int n : {500, 1000, 2000}) {
    auto big = composed_stencils(n);
    auto t0 = Clock::now();
    transforms::auto_optimize(*big, DeviceType::CPU);
    std::printf("auto_optimize(%d composed stencils, cpu): %.3f s\n", n, seconds_since(t0));
  }

  // Ablation: the same pipeline with cpu-schedules{split_innermost=false vectorize=false}
  // (OpenMP collapses all three dimensions, no SIMD hint).
  auto no_simd = simplified->clone_sdfg();
  {
    auto pipe = transforms::make_auto_optimize_pipeline(DeviceType::CPU);
    auto& last = *pipe->passes().back();
    last.options().set("split_innermost", false);
    last.options().set("vectorize", false);
    pipe->run(*no_simd);
  }

  auto backend = runtime::make_cpu_backend();
  runtime::CompilableProgram weir_p{
      std::shared_ptr<const SDFG>(optimized->clone_sdfg()), {}, "weir auto_optimize"};
  runtime::CompilableProgram dace_p = runtime::load_program_source(corpus("hdiff.auto_optimized_cpu.sdfg"));
  auto pw = runtime::prepare(*backend, weir_p);
  auto pd = runtime::prepare(*backend, dace_p);
  auto pn = runtime::prepare(
      *backend, runtime::CompilableProgram{std::shared_ptr<const SDFG>(std::move(no_simd)), {}, "no simd"});
  auto aw = hdiff_arguments(I, J, K), ad = hdiff_arguments(I, J, K), an = hdiff_arguments(I, J, K);
  pw->run(aw);  // warm up (first touch, thread pool)
  pd->run(ad);
  pn->run(an);
  std::vector<double> tw, td, tn;
  for (int r = 0; r < reps; ++r) {
    auto a = Clock::now();
    pw->run(aw);
    tw.push_back(seconds_since(a));
    a = Clock::now();
    pd->run(ad);
    td.push_back(seconds_since(a));
    a = Clock::now();
    pn->run(an);
    tn.push_back(seconds_since(a));
  }
  double maxdiff = 0;
  const auto& ow = aw.arrays.at("out_field");
  const auto& od = ad.arrays.at("out_field");
  for (std::int64_t k = 0; k < ow.size(); ++k)
    maxdiff = std::max(maxdiff, std::abs(ow.value_as_double(k) - od.value_as_double(k)));
  const char* thr = std::getenv("OMP_NUM_THREADS");
  std::printf("hdiff %lldx%lldx%lld, OMP_NUM_THREADS=%s, %d interleaved runs:\n", static_cast<long long>(I),
              static_cast<long long>(J), static_cast<long long>(K), thr ? thr : "(unset)", reps);
  std::printf("  weir auto_optimize:            median %.2f ms (min %.2f)\n", median(tw) * 1e3,
              *std::min_element(tw.begin(), tw.end()) * 1e3);
  std::printf("  DaCe auto_optimized_cpu.sdfg:  median %.2f ms (min %.2f)\n", median(td) * 1e3,
              *std::min_element(td.begin(), td.end()) * 1e3);
  std::printf("  weir, no split/SIMD hint:      median %.2f ms (min %.2f)\n", median(tn) * 1e3,
              *std::min_element(tn.begin(), tn.end()) * 1e3);
  std::printf("  max |difference| of out_field: %g\n", maxdiff);
  return 0;
}
