// Cartesian kernels from examples/cartesian/: Laplacian, bi-Laplacian, hdiff (also in the
// corpus's layout, with DaCe's SDFGs), the 3-D heat step and the vertical tridiagonal solve.
#include <string>

#include "../hand/hand_kernels.h"
#include "kernel_cases.h"

namespace weir::bench {

namespace {

using runtime::Arguments;
using i64 = std::int64_t;

std::string size3(i64 a, i64 b, i64 c) {
  return std::to_string(a) + " x " + std::to_string(b) + " x " + std::to_string(c);
}

/// A 3-D stencil out = op(f) over the interior of (ni + 2h, nj + 2h, nk) fields, as the
/// field-view programs write it (`out=out[h:-h, h:-h]`).
KernelCase halo_stencil(const Sizes& s, const Paths& p, const std::string& name,
                        const std::string& description, const std::string& file, const std::string& program,
                        i64 h,
                        void (*kernel)(const double*, hand::Strides3, double*, hand::Strides3, i64, i64,
                                       i64)) {
  KernelCase kc;
  kc.name = name;
  kc.description = description;
  kc.size = size3(s.ni, s.nj, s.nk);
  const i64 I = s.ni + 2 * h, J = s.nj + 2 * h, K = s.nk;
  kc.min_bytes = 8.0 * (double(I) * J * K + double(s.ni) * s.nj * K);
  Layout l;
  l.make = [=] {
    Arguments a;
    a.arrays.emplace("f", random_field({I, J, K}, 1));
    a.arrays.emplace("out", random_field({I, J, K}, 2));
    return a;
  };
  const hand::Strides3 st{J * K, K};
  const i64 origin = h * st.si + h * st.sj;
  l.reference = [=](Arguments& a) {
    kernel(f64(a, "f") + origin, st, f64(a, "out") + origin, st, s.ni, s.nj, K);
  };
  l.outputs = {"out"};
  kc.layouts["fv"] = l;
  kc.variants.push_back(field_view_variant(p, file, program, "fv"));
  kc.variants.push_back(field_view_variant(p, file, program, "fv", "plain stores"));
  kc.variants.push_back(field_view_variant(p, file, program, "fv", "compiler's lanes"));
  kc.variants.push_back(Variant{"hand", "bench/hand/cartesian.cpp", "fv", {}, l.reference, {}, {}});
  return kc;
}

KernelCase hdiff_case(const Sizes& s, const Paths& p) {
  KernelCase kc;
  kc.name = "hdiff";
  kc.description = "horizontal diffusion: Laplacian, limited fluxes, update";
  kc.size = size3(s.ni, s.nj, s.nk);
  const i64 I = s.ni, J = s.nj, K = s.nk;
  kc.min_bytes = 8.0 * (double(I + 4) * (J + 4) * K + 2.0 * I * J * K);
  // Field-view layout: u, coeff and out all (I+4, J+4, K), computed on [2:-2, 2:-2].
  Layout fv;
  fv.make = [=] {
    Arguments a;
    a.arrays.emplace("u", random_field({I + 4, J + 4, K}, 11));
    a.arrays.emplace("coeff", random_field({I + 4, J + 4, K}, 12));
    a.arrays.emplace("out", random_field({I + 4, J + 4, K}, 13));
    return a;
  };
  const hand::Strides3 big{(J + 4) * K, K}, small{J * K, K};
  const i64 o = 2 * big.si + 2 * big.sj;
  fv.reference = [=](Arguments& a) {
    hand::hdiff(f64(a, "u") + o, big, f64(a, "coeff") + o, big, f64(a, "out") + o, big, I, J, K);
  };
  fv.outputs = {"out"};
  // npbench/DaCe layout: in_field (I+4, J+4, K), coeff and out_field (I, J, K).
  Layout dace;
  dace.make = [=] {
    Arguments a;
    a.arrays.emplace("in_field", random_field({I + 4, J + 4, K}, 11));
    a.arrays.emplace("coeff", random_field({I, J, K}, 12));
    a.arrays.emplace("out_field", random_field({I, J, K}, 13));
    return a;
  };
  dace.reference = [=](Arguments& a) {
    hand::hdiff(f64(a, "in_field") + o, big, f64(a, "coeff"), small, f64(a, "out_field"), small, I, J, K);
  };
  dace.outputs = {"out_field"};
  kc.layouts["fv"] = fv;
  kc.layouts["dace"] = dace;
  kc.variants.push_back(field_view_variant(p, "examples/cartesian/hdiff.py", "hdiff_program", "fv"));
  kc.variants.push_back(
      field_view_variant(p, "examples/cartesian/hdiff.py", "hdiff_program", "fv", "compiler's lanes"));
  kc.variants.push_back(corpus_variant(p, "hdiff", "simplified", false, "dace"));
  kc.variants.push_back(corpus_variant(p, "hdiff", "auto_optimized_cpu", false, "dace"));
  kc.variants.push_back(corpus_variant(p, "hdiff", "simplified", true, "dace"));
  kc.variants.push_back(
      Variant{"hand", "bench/hand/cartesian.cpp (16 x 16 tiles)", "fv", {}, fv.reference, {}, {}});
  return kc;
}

KernelCase heat3d_case(const Sizes& s, const Paths& p) {
  KernelCase kc;
  kc.name = "heat3d";
  kc.description = "explicit 3-D heat step, 7-point (interior of (I+2) x (J+2) x (K+2))";
  kc.size = size3(s.ni, s.nj, s.nk);
  const i64 I = s.ni + 2, J = s.nj + 2, K = s.nk + 2;
  kc.min_bytes = 8.0 * (double(I) * J * K + double(s.ni) * s.nj * s.nk);
  const double alpha = 0.1;
  Layout l;
  l.make = [=] {
    Arguments a;
    a.arrays.emplace("u", random_field({I, J, K}, 21));
    a.arrays.emplace("u_new", random_field({I, J, K}, 22));
    a.values["alpha"] = alpha;
    return a;
  };
  const hand::Strides3 st{J * K, K};
  const i64 o = st.si + st.sj + 1;
  l.reference = [=](Arguments& a) {
    hand::heat3d(f64(a, "u") + o, st, f64(a, "u_new") + o, st, alpha, s.ni, s.nj, s.nk);
  };
  l.outputs = {"u_new"};
  kc.layouts["fv"] = l;
  // No `weir(plain stores)` variant: heat3d's rows have a halo in K, which the code generator
  // stores as usual (docs/adr/0041, "session 30"), so it would be the same program.
  kc.variants.push_back(field_view_variant(p, "examples/cartesian/heat3d.py", "heat3d", "fv"));
  kc.variants.push_back(
      field_view_variant(p, "examples/cartesian/heat3d.py", "heat3d", "fv", "compiler's lanes"));
  kc.variants.push_back(Variant{"hand", "bench/hand/cartesian.cpp", "fv", {}, l.reference, {}, {}});
  return kc;
}

KernelCase tridiagonal_case(const Sizes& s, const Paths& p) {
  KernelCase kc;
  kc.name = "vertical_solver";
  kc.description = "tridiagonal solve per column (two scans along K)";
  kc.size = size3(s.ni, s.nj, s.nk);
  const i64 I = s.ni, J = s.nj, K = s.nk;
  kc.min_bytes = 8.0 * 5.0 * double(I) * J * K;
  Layout l;
  l.make = [=] {
    Arguments a;
    // Diagonally dominant systems: |b| > |a| + |c|.
    a.arrays.emplace("a", random_field({I, J, K}, 31));
    a.arrays.emplace("b", random_field({I, J, K}, 32, 3.0, 4.0));
    a.arrays.emplace("c", random_field({I, J, K}, 33));
    a.arrays.emplace("d", random_field({I, J, K}, 34));
    a.arrays.emplace("x", random_field({I, J, K}, 35));
    a.values["nk"] = K;
    return a;
  };
  l.reference = [=](Arguments& a) {
    hand::tridiagonal_solve(f64(a, "a"), f64(a, "b"), f64(a, "c"), f64(a, "d"), f64(a, "x"), I, J, K);
  };
  l.outputs = {"x"};
  kc.layouts["fv"] = l;
  kc.variants.push_back(
      field_view_variant(p, "examples/cartesian/vertical_solver.py", "vertical_solver", "fv"));
  // Without the prefetch of the next column block's arguments (docs/adr/0041, session 31).
  kc.variants.push_back(
      field_view_variant(p, "examples/cartesian/vertical_solver.py", "vertical_solver", "fv", "no prefetch"));
  kc.variants.push_back(
      Variant{"hand", "bench/hand/cartesian.cpp (8 columns at a time)", "fv", {}, l.reference, {}, {}});
  return kc;
}

}  // namespace

std::vector<KernelCase> cartesian_cases(const Sizes& s, const Paths& p) {
  std::vector<KernelCase> out;
  out.push_back(halo_stencil(s, p, "laplacian", "5-point Laplacian", "examples/cartesian/laplacian.py",
                             "laplacian", 1, hand::laplacian));
  out.push_back(halo_stencil(s, p, "laplap", "Laplacian of the Laplacian (13-point)",
                             "examples/cartesian/laplacian.py", "bi_laplacian", 2, hand::laplap));
  out.push_back(hdiff_case(s, p));
  out.push_back(heat3d_case(s, p));
  out.push_back(tridiagonal_case(s, p));
  return out;
}

}  // namespace weir::bench
