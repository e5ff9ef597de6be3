// Complex arithmetic of tasklets on the cpu backend, as NumPy computes it: |z| is hypot of the
// parts (within 1 ulp; the same bits as std::abs under WEIR_EXACT_MATH), z * w and z ** 2 the
// textbook product without C99's recovery of infinities (NumPy: (inf+infj) * (1+0j) is
// nan+nanj, (inf+infj) ** 2 is nan+infj; std::complex's operator* gives inf+infj). The
// loops vectorize: no `omp simd` over std::complex locals, no library call per |z|.
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "../transforms/support/cpu_run.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/sdfg/state.h"

using namespace weir;
using C = std::complex<double>;

namespace {

/// A[i] = abs(Z[i]), P[i] = Z[i] * W[i], Q[i] = Z[i] ** 2 in one map over i < N; with
/// `vectorize`, the map carries cpu-schedules' SIMD hint.
std::unique_ptr<SDFG> complex_map(bool vectorize) {
  auto s = std::make_unique<SDFG>("complex_map");
  s->add_symbol("N");
  auto N = sym::Expr::symbol("N");
  for (const char* a : {"Z", "W", "P", "Q"}) s->add_array(a, ScalarType::Complex128, {N});
  s->add_array("A", ScalarType::Float64, {N});
  auto& st = s->add_state("main", true);
  auto& z = st.add_access("Z");
  auto& w = st.add_access("W");
  auto& m = st.add_map("m", {"i"}, Subset::parse("0:N"),
                       vectorize ? ScheduleType::Sequential : ScheduleType::Default);
  if (vectorize) m.map->extra.set("weir_vectorize", "true");
  for (auto [out, code] :
       {std::pair<const char*, const char*>{"A", "o = abs(z)"}, {"P", "o = z * w"}, {"Q", "o = z ** 2"}}) {
    bool uses_w = std::string(out) == "P";
    auto& t =
        st.add_tasklet(std::string("t") + out, {code, Language::Python},
                       uses_w ? std::vector<std::string>{"z", "w"} : std::vector<std::string>{"z"}, {"o"});
    auto in = st.add_memlet_path({z.id(), m.id(), t.id()}, Memlet::simple("Z", Subset::parse("i")), "", "z");
    st.edge(in[0]).memlet = Memlet::simple("Z", Subset::parse("0:N"));
    if (uses_w) {
      auto in_w =
          st.add_memlet_path({w.id(), m.id(), t.id()}, Memlet::simple("W", Subset::parse("i")), "", "w");
      st.edge(in_w[0]).memlet = Memlet::simple("W", Subset::parse("0:N"));
    }
    auto wr = st.add_memlet_path({t.id(), m.exit, st.add_access(out).id()},
                                 Memlet::simple(out, Subset::parse("i")), "o", "");
    st.edge(wr[1]).memlet = Memlet::simple(out, Subset::parse("0:N"));
  }
  return s;
}

struct Results {
  std::vector<double> abs;
  std::vector<C> product, square;
};

Results run(const SDFG& sdfg, const std::vector<C>& z, const std::vector<C>& w,
            const runtime::CompiledBackendConfig& config = {}) {
  const auto n = static_cast<std::int64_t>(z.size());
  runtime::Arguments args;
  for (const char* a : {"Z", "W", "P", "Q"})
    args.arrays.emplace(a, runtime::Allocator::cpu().allocate(ScalarType::Complex128, {n}));
  args.arrays.emplace("A", runtime::Allocator::cpu().allocate(ScalarType::Float64, {n}));
  std::copy(z.begin(), z.end(), static_cast<C*>(args.arrays.at("Z").data()));
  std::copy(w.begin(), w.end(), static_cast<C*>(args.arrays.at("W").data()));
  args.values["N"] = n;
  test::use_scratch_cache();
  auto backend = runtime::make_cpu_backend(config);
  runtime::run(*backend, {std::shared_ptr<const SDFG>(sdfg.clone_sdfg()), {}, sdfg.name}, args);
  Results r;
  auto* a = static_cast<const double*>(args.arrays.at("A").data());
  auto* p = static_cast<const C*>(args.arrays.at("P").data());
  auto* q = static_cast<const C*>(args.arrays.at("Q").data());
  r.abs.assign(a, a + n);
  r.product.assign(p, p + n);
  r.square.assign(q, q + n);
  return r;
}

/// Values over the whole range of doubles: random parts of magnitude 1e-300 .. 1e300 (both
/// signs), zeros, subnormals, parts whose squares overflow or underflow, infinities and NaN.
std::vector<C> test_values() {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<C> v = {{0, 0},           {-0.0, 0},      {3, 4},         {1e-310, 0},     {0, -4e-320},
                      {3e-170, 4e-170}, {3e170, 4e170}, {1e300, 1e300}, {-1e308, 1e308}, {inf, 0},
                      {0, -inf},        {inf, nan},     {nan, -inf},    {nan, 1},        {1, nan},
                      {1.5, 0},         {0, 2}};
  unsigned s = 12345;
  auto next = [&] {
    s = s * 1103515245u + 12345u;
    return s >> 8;
  };
  while (v.size() < 1000) {
    double re = std::ldexp(static_cast<double>(next()) / 16777216.0, static_cast<int>(next() % 1990) - 995);
    double im =
        std::ldexp(static_cast<double>(next()) / 16777216.0 - 0.5, static_cast<int>(next() % 1990) - 995);
    // Most values are of moderate size, where the fast path applies.
    if (v.size() % 3 != 0) {
      re = std::ldexp(re, -std::ilogb(re) + static_cast<int>(next() % 20) - 10);
      im = std::ldexp(im, -std::ilogb(im) + static_cast<int>(next() % 20) - 10);
    }
    v.emplace_back(next() % 2 ? re : -re, im);
  }
  return v;
}

/// Units in the last place between `x` and the reference `ref` (finite, non-negative).
double ulps(double x, double ref) {
  if (x == ref) return 0;
  double r = ref > 0 ? ref : std::numeric_limits<double>::denorm_min();
  return std::fabs(x - ref) / (std::nextafter(r, INFINITY) - r);
}

/// NumPy's complex product, (ar br - ai bi) + (ar bi + ai br) j, each operation rounded (no
/// fused multiply-add, as weir compiles).
C numpy_product(C a, C b) {
  volatile double rr = a.real() * b.real(), ii = a.imag() * b.imag();
  volatile double ri = a.real() * b.imag(), ir = a.imag() * b.real();
  return {rr - ii, ri + ir};
}

bool same(double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; }

}  // namespace

TEST_CASE("complex |z| is NumPy's hypot of the parts, within 1 ulp", "[runtime][complex]") {
  auto z = test_values();
  std::vector<C> w(z.size(), C(1, 0));
  for (bool vectorize : {false, true}) {
    auto r = run(*complex_map(vectorize), z, w);
    double worst = 0;
    for (std::size_t i = 0; i < z.size(); ++i) {
      INFO("z = " << z[i].real() << " + " << z[i].imag() << "j");
      double ref = std::hypot(z[i].real(), z[i].imag());
      if (std::isnan(ref)) {
        CHECK(std::isnan(r.abs[i]));
      } else if (std::isinf(ref)) {
        CHECK(r.abs[i] == ref);  // hypot(inf, nan) is inf, as NumPy's
      } else {
        double u = ulps(r.abs[i], ref);
        CHECK(u <= 1);
        worst = std::max(worst, u);
      }
    }
    CHECK(worst <= 1);
  }
}

TEST_CASE("complex |z| under WEIR_EXACT_MATH equals std::abs bit for bit", "[runtime][complex]") {
  auto z = test_values();
  std::vector<C> w(z.size(), C(1, 0));
  runtime::CompiledBackendConfig exact;
  exact.flags.push_back("-DWEIR_EXACT_MATH");
  auto r = run(*complex_map(false), z, w, exact);
  for (std::size_t i = 0; i < z.size(); ++i) {
    INFO("z = " << z[i].real() << " + " << z[i].imag() << "j");
    CHECK(same(r.abs[i], std::abs(z[i])));
  }
}

TEST_CASE("complex products and squares follow NumPy's formula, infinities included", "[runtime][complex]") {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<C> z = {{1, 2}, {inf, inf}, {inf, 0}, {-2.5, 0.5}, {1e200, 1e200}};
  std::vector<C> w = {{3, 4}, {1, 0}, {1, 0}, {4, -8}, {1e-200, 2}};
  auto more = test_values();
  for (std::size_t i = 0; i + 1 < more.size(); i += 2) {
    z.push_back(more[i]);
    w.push_back(more[i + 1]);
  }
  for (bool vectorize : {false, true}) {
    auto r = run(*complex_map(vectorize), z, w);
    // By hand: (1+2j)(3+4j) = -5+10j, (1+2j)**2 = -3+4j; NumPy: (inf+infj)(1+0j) = nan+nanj,
    // (inf+infj)**2 = nan+infj, (inf+0j)(1+0j) = inf+nanj.
    CHECK(r.product[0] == C(-5, 10));
    CHECK(r.square[0] == C(-3, 4));
    CHECK((std::isnan(r.product[1].real()) && std::isnan(r.product[1].imag())));
    CHECK((std::isnan(r.square[1].real()) && r.square[1].imag() == inf));
    CHECK((r.product[2].real() == inf && std::isnan(r.product[2].imag())));
    CHECK(r.product[3] == C(-6, 22));
    for (std::size_t i = 0; i < z.size(); ++i) {
      INFO("z = " << z[i] << ", w = " << w[i] << ": weir " << r.product[i] << ", NumPy "
                  << numpy_product(z[i], w[i]));
      C p = numpy_product(z[i], w[i]), q = numpy_product(z[i], z[i]);
      CHECK((same(r.product[i].real(), p.real()) && same(r.product[i].imag(), p.imag())));
      CHECK((same(r.square[i].real(), q.real()) && same(r.square[i].imag(), q.imag())));
    }
  }
}

TEST_CASE("loops of complex values vectorize: no omp simd over std::complex locals", "[runtime][complex]") {
  // GCC gives each addressable class-type local of an `omp simd` loop a per-lane array and then
  // refuses the loop ("more than one data ref in stmt"); without the pragma it vectorizes.
  // The program's own code, after the prelude (whose comments name the pragma).
  const std::string full = codegen::generate_cpu(*complex_map(true)).source;
  REQUIRE(full.find("// --- SDFG") != std::string::npos);
  const std::string code = full.substr(full.find("// --- SDFG"));
  CHECK(code.find("#pragma omp simd") == std::string::npos);
  CHECK(code.find("weir_cabs(") != std::string::npos);
  CHECK(code.find("weir_cmul(") != std::string::npos);
  CHECK(code.find("std::abs(") == std::string::npos);
}
