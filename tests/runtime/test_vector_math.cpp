// Loops of math functions on the cpu backend (ADR 0031): with the default flags, GCC on x86-64
// calls glibc's SIMD variants (libmvec, up to 4 ulp); with -DWEIR_EXACT_MATH, the scalar
// functions, bit for bit as this process computes them. Values are checked against std::sin,
// std::exp and std::atan2 called here.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>

#include "../transforms/support/cpu_run.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/runtime/compiler.h"
#include "weir/sdfg/state.h"

using namespace weir;

namespace {

/// S[i] = sin(A[i]), X[i] = exp(A[i]), T[i] = atan2(A[i], 1.5) in one map over i < N.
std::unique_ptr<SDFG> math_map() {
  auto s = std::make_unique<SDFG>("math_map");
  s->add_symbol("N");
  for (const char* a : {"A", "S", "X", "T"}) s->add_array(a, ScalarType::Float64, {sym::Expr::symbol("N")});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& m = st.add_map("m", {"i"}, Subset::parse("0:N"));
  for (auto [out, code] : {std::pair<const char*, const char*>{"S", "o = math.sin(a)"},
                           {"X", "o = math.exp(a)"},
                           {"T", "o = math.atan2(a, 1.5)"}}) {
    auto& t = st.add_tasklet(std::string("t") + out, {code, Language::Python}, {"a"}, {"o"});
    auto in = st.add_memlet_path({a.id(), m.id(), t.id()}, Memlet::simple("A", Subset::parse("i")), "", "a");
    st.edge(in[0]).memlet = Memlet::simple("A", Subset::parse("0:N"));
    auto wr = st.add_memlet_path({t.id(), m.exit, st.add_access(out).id()},
                                 Memlet::simple(out, Subset::parse("i")), "o", "");
    st.edge(wr[1]).memlet = Memlet::simple(out, Subset::parse("0:N"));
  }
  return s;
}

/// The library built from `sdfg`'s code with `settings`, as bytes.
std::string library_bytes(const SDFG& sdfg, const runtime::CompilerSettings& settings,
                          const std::string& name) {
  auto dir = test::scratch_dir("vector-math-" + name);
  std::ofstream(dir / "p.cpp") << codegen::generate_cpu(sdfg).source;
  runtime::compile_shared_library(settings, dir / "p.cpp", dir / "p.so", "math_map");
  std::ifstream in(dir / "p.so", std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Runs the map on A[i] = -20 + 40 i / (N - 1), N = 1001, with `config`.
test::CpuOutputs run_map(const SDFG& sdfg, const runtime::CompiledBackendConfig& config) {
  const std::int64_t n = 1001;
  runtime::Arguments args;
  for (const char* a : {"A", "S", "X", "T"})
    args.arrays.emplace(a, runtime::Allocator::cpu().allocate(ScalarType::Float64, {n}));
  auto* A = static_cast<double*>(args.arrays.at("A").data());
  for (std::int64_t i = 0; i < n; ++i)
    A[i] = -20.0 + 40.0 * static_cast<double>(i) / static_cast<double>(n - 1);
  args.values["N"] = n;
  return test::run_arguments_on_cpu(sdfg, args, config);
}

/// Distance in units in the last place between two finite doubles of the same sign.
double ulps(double x, double ref) {
  if (x == ref) return 0;
  return std::fabs(x - ref) / (std::nextafter(std::fabs(ref), INFINITY) - std::fabs(ref));
}

}  // namespace

TEST_CASE("loops of math functions call the SIMD variants, within 4 ulp", "[runtime][vector-math]") {
  auto sdfg = math_map();
  auto out = run_map(*sdfg, {});
  double worst = 0;
  for (std::size_t i = 0; i < out["A"].size(); ++i) {
    double a = out["A"][i];
    INFO("A = " << a);
    worst = std::max({worst, ulps(out["S"][i], std::sin(a)), ulps(out["X"][i], std::exp(a)),
                      ulps(out["T"][i], std::atan2(a, 1.5))});
  }
  CHECK(worst <= 4);
#if defined(__x86_64__) && defined(__GLIBC__)
  // Debian's c++ is GCC: the SIMD variants (_ZGV<isa>N<lanes>v_sin, ...) are what the loop calls.
  std::string so = library_bytes(*sdfg, runtime::CompilerSettings{}, "default");
  CHECK(so.find("_ZGV") != std::string::npos);
  CHECK(so.find("v_sin") != std::string::npos);
#endif
}

TEST_CASE("WEIR_EXACT_MATH keeps the scalar math functions, bit for bit", "[runtime][vector-math]") {
  auto sdfg = math_map();
  runtime::CompiledBackendConfig exact;
  exact.flags.push_back("-DWEIR_EXACT_MATH");
  auto out = run_map(*sdfg, exact);
  for (std::size_t i = 0; i < out["A"].size(); ++i) {
    double a = out["A"][i];
    INFO("A = " << a);
    CHECK(out["S"][i] == std::sin(a));
    CHECK(out["X"][i] == std::exp(a));
    CHECK(out["T"][i] == std::atan2(a, 1.5));
  }
  runtime::CompilerSettings settings;
  settings.flags.push_back("-DWEIR_EXACT_MATH");
  CHECK(library_bytes(*sdfg, settings, "exact").find("_ZGV") == std::string::npos);
}
