// Unstructured kernels on a periodic triangular mesh of ~100k cells x 80 levels: nabla
// (edge-to-vertex, examples/unstructured/nabla.py) and a cell Laplacian as a weighted sum over
// C2E2CO (examples/unstructured/cell_laplacian.py). Connectivity tables are int32 arguments
// named after their offsets (E2V, V2E, C2E2CO), as ADR 0008 plans for the lowering.
#include <memory>
#include <string>

#include "../hand/hand_kernels.h"
#include "kernel_cases.h"
#include "periodic_mesh.h"
#include "weir/runtime/allocator.h"

namespace weir::bench {

namespace {

using runtime::Arguments;
using i64 = std::int64_t;

std::string mesh_size(const PeriodicMesh& m, i64 nk) {
  return std::to_string(m.n_cells) + " cells (" + std::to_string(m.n_vertices) + " vertices, " +
         std::to_string(m.n_edges) + " edges) x " + std::to_string(nk);
}

KernelCase nabla_case(const Sizes& s, const Paths& p, std::shared_ptr<const PeriodicMesh> mesh) {
  KernelCase kc;
  kc.name = "nabla";
  kc.description = "FVM gradient of a vertex field: edge averages summed over V2E";
  const i64 nv = mesh->n_vertices, ne = mesh->n_edges, K = s.mesh_nk;
  kc.size = mesh_size(*mesh, K);
  kc.min_bytes = 8.0 * (3.0 * nv * K + 2.0 * ne + 7.0 * nv) + 4.0 * (2.0 * ne + 6.0 * nv);
  Layout l;
  l.make = [=] {
    Arguments a;
    a.arrays.emplace("pp", random_field({nv, K}, 51));
    a.arrays.emplace("S_MXX", random_field({ne}, 52));
    a.arrays.emplace("S_MYY", random_field({ne}, 53));
    // Orientation sign of each vertex's edges: +1 where the edge starts at the vertex.
    runtime::Field sign = runtime::Allocator::cpu().allocate(ScalarType::Float64, {nv, 6});
    auto* sg = static_cast<double*>(sign.data());
    for (i64 v = 0; v < nv; ++v)
      for (i64 n = 0; n < 6; ++n) sg[v * 6 + n] = mesh->e2v[2 * mesh->v2e[v * 6 + n]] == v ? 1.0 : -1.0;
    a.arrays.emplace("sign", std::move(sign));
    a.arrays.emplace("vol", random_field({nv}, 54, 1.0, 2.0));
    a.arrays.emplace("out_x", random_field({nv, K}, 55));
    a.arrays.emplace("out_y", random_field({nv, K}, 56));
    a.arrays.emplace("E2V", int32_field({ne, 2}, mesh->e2v));
    a.arrays.emplace("V2E", int32_field({nv, 6}, mesh->v2e));
    return a;
  };
  l.reference = [=](Arguments& a) {
    hand::nabla(f64(a, "pp"), f64(a, "S_MXX"), f64(a, "S_MYY"), f64(a, "sign"), f64(a, "vol"),
                static_cast<const std::int32_t*>(a.arrays.at("E2V").data()),
                static_cast<const std::int32_t*>(a.arrays.at("V2E").data()), 6, f64(a, "out_x"),
                f64(a, "out_y"), nv, K);
  };
  l.outputs = {"out_x", "out_y"};
  l.optional = {"E2V", "V2E"};
  kc.layouts["fv"] = l;
  kc.variants.push_back(field_view_variant(p, "examples/unstructured/nabla.py", "nabla_program", "fv"));
  kc.variants.push_back(
      field_view_variant(p, "examples/unstructured/nabla.py", "nabla_program", "fv", "plain stores"));
  kc.variants.push_back(
      field_view_variant(p, "examples/unstructured/nabla.py", "nabla_program", "fv", "no prefetch"));
  kc.variants.push_back(Variant{"hand",
                                "bench/hand/unstructured.cpp (fused over vertices, streaming stores)",
                                "fv",
                                {},
                                l.reference,
                                {},
                                {}});
  kc.variants.push_back(Variant{"hand(plain stores)",
                                "bench/hand/unstructured.cpp (fused over vertices, plain stores)",
                                "fv",
                                {},
                                [=](Arguments& a) {
                                  hand::nabla(f64(a, "pp"), f64(a, "S_MXX"), f64(a, "S_MYY"), f64(a, "sign"),
                                              f64(a, "vol"),
                                              static_cast<const std::int32_t*>(a.arrays.at("E2V").data()),
                                              static_cast<const std::int32_t*>(a.arrays.at("V2E").data()), 6,
                                              f64(a, "out_x"), f64(a, "out_y"), nv, K, hand::Stores::Plain);
                                },
                                {},
                                {}});
  return kc;
}

KernelCase cell_laplacian_case(const Sizes& s, const Paths& p, std::shared_ptr<const PeriodicMesh> mesh) {
  KernelCase kc;
  kc.name = "cell_laplacian";
  kc.description = "weighted cell Laplacian: neighbour sum over C2E2CO (the cell, then its 3 neighbours)";
  const i64 nc = mesh->n_cells, K = s.mesh_nk;
  kc.size = mesh_size(*mesh, K);
  kc.min_bytes = 8.0 * (2.0 * nc * K + 4.0 * nc) + 4.0 * 4.0 * nc;
  Layout l;
  l.make = [=] {
    Arguments a;
    a.arrays.emplace("psi", random_field({nc, K}, 61));
    // Consistent weights: the cell's (first entry of C2E2CO) is minus the sum of the others.
    runtime::Field w = random_field({nc, 4}, 63, 0.5, 1.5);
    auto* wd = static_cast<double*>(w.data());
    for (i64 c = 0; c < nc; ++c) wd[4 * c] = -(wd[4 * c + 1] + wd[4 * c + 2] + wd[4 * c + 3]);
    a.arrays.emplace("weights", std::move(w));
    a.arrays.emplace("lap", random_field({nc, K}, 62));
    a.arrays.emplace("C2E2CO", int32_field({nc, 4}, mesh->c2e2co));
    return a;
  };
  l.reference = [=](Arguments& a) {
    hand::cell_neighbour_sum(f64(a, "psi"), f64(a, "weights"),
                             static_cast<const std::int32_t*>(a.arrays.at("C2E2CO").data()), 4, f64(a, "lap"),
                             nc, K);
  };
  l.outputs = {"lap"};
  l.optional = {"C2E2CO"};
  kc.layouts["fv"] = l;
  kc.variants.push_back(
      field_view_variant(p, "examples/unstructured/cell_laplacian.py", "cell_laplacian", "fv"));
  kc.variants.push_back(field_view_variant(p, "examples/unstructured/cell_laplacian.py", "cell_laplacian",
                                           "fv", "plain stores"));
  kc.variants.push_back(field_view_variant(p, "examples/unstructured/cell_laplacian.py", "cell_laplacian",
                                           "fv", "no prefetch"));
  kc.variants.push_back(
      Variant{"hand", "bench/hand/unstructured.cpp (streaming stores)", "fv", {}, l.reference, {}, {}});
  kc.variants.push_back(Variant{"hand(plain stores)",
                                "bench/hand/unstructured.cpp (plain stores)",
                                "fv",
                                {},
                                [=](Arguments& a) {
                                  hand::cell_neighbour_sum(
                                      f64(a, "psi"), f64(a, "weights"),
                                      static_cast<const std::int32_t*>(a.arrays.at("C2E2CO").data()), 4,
                                      f64(a, "lap"), nc, K, hand::Stores::Plain);
                                },
                                {},
                                {}});
  return kc;
}

}  // namespace

std::vector<KernelCase> unstructured_cases(const Sizes& s, const Paths& p) {
  auto mesh = std::make_shared<const PeriodicMesh>(make_periodic_mesh(s.mesh_nx, s.mesh_ny));
  return {nabla_case(s, p, mesh), cell_laplacian_case(s, p, mesh)};
}

}  // namespace weir::bench
