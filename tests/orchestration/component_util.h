// The diffusion granule of examples/orchestration/diffusion_granule.py on a generated
// triangular mesh: its arguments, and the NumPy script that computes it independently.
#pragma once

#include <cmath>

#include "orchestration_run_util.h"
#include "weir/mesh/triangular_mesh.h"

namespace weir::test::orchestration {

inline std::string granule_path() { return std::string(WEIR_SOURCE_DIR) + "/examples/orchestration/diffusion_granule.py"; }

/// Arguments of diffusion_granule on an nx x ny mesh with `levels` levels.
inline runtime::Arguments granule_args(int nx, int ny, std::int64_t levels, std::int64_t steps, bool apply_theta) {
  mesh::TriangularMesh m = mesh::make_triangular_mesh(nx, ny);
  runtime::Arguments a;
  auto smooth = [](double s) { return [s](std::int64_t i) { return std::sin(s * static_cast<double>(i)) + 2.0; }; };
  a.arrays.emplace("vn", make({m.num_edges, levels}, smooth(0.13)));
  a.arrays.emplace("vn_new", make({m.num_edges, levels}, [](std::int64_t) { return 0.0; }));
  a.arrays.emplace("w", make({m.num_cells, levels}, smooth(0.29)));
  a.arrays.emplace("w_new", make({m.num_cells, levels}, [](std::int64_t) { return 0.0; }));
  a.arrays.emplace("theta", make({m.num_cells, levels}, smooth(0.07)));
  a.arrays.emplace("theta_new", make({m.num_cells, levels}, [](std::int64_t) { return 0.0; }));
  a.arrays.emplace("e_weights", make({m.num_edges, 5}, [](std::int64_t i) { return i % 5 == 0 ? -1.0 : 0.25 + 0.01 * static_cast<double>(i % 3); }));
  a.arrays.emplace("inv_dual", make({m.num_edges}, [](std::int64_t i) { return 1.0 + 0.1 * static_cast<double>(i % 4); }));
  a.arrays.emplace("geofac_div", make({m.num_cells, 3}, [](std::int64_t i) { return 0.3 + 0.05 * static_cast<double>(i % 5); }));
  runtime::Field mask = runtime::Allocator::cpu().allocate(ScalarType::Bool, {m.num_cells, levels});
  for (std::int64_t i = 0; i < mask.size(); ++i) static_cast<bool*>(mask.data())[i] = (i % 3) != 0;
  a.arrays.emplace("mask", std::move(mask));
  for (const char* t : {"V2C", "E2C2V", "C2E", "E2C2EO", "E2C"}) {
    const mesh::Connectivity& c = m.table(t);
    runtime::Field f = runtime::Allocator::cpu().allocate(ScalarType::Int32, {c.rows, c.cols});
    std::copy(c.data.begin(), c.data.end(), static_cast<std::int32_t*>(f.data()));
    a.arrays.emplace(t, std::move(f));
  }
  a.values["dt"] = 0.02;
  a.values["smag_fac"] = 0.15;
  a.values["n_steps"] = steps;
  a.values["apply_theta"] = apply_theta;
  a.values["n_vertices"] = m.num_vertices;
  a.values["n_edges"] = m.num_edges;
  a.values["n_cells"] = m.num_cells;
  a.values["n_levels"] = levels;
  return a;
}

/// The granule in NumPy, from the stencils' definitions (STEPS and APPLY set before it).
inline const std::string kGranuleNumpy = R"(
V2C, E2C2V, C2E, E2C2EO, E2C = (inp[t].astype(np.int64) for t in ("V2C", "E2C2V", "C2E", "E2C2EO", "E2C"))
vn, vn_new, w, w_new, theta, theta_new = (inp[n] for n in ("vn", "vn_new", "w", "w_new", "theta", "theta_new"))
ew, inv_dual, gdiv, mask = inp["e_weights"], inp["inv_dual"], inp["geofac_div"], inp["mask"]
dt, smag = 0.02, 0.15
def nsum(f, table, weights=None):
    s = None
    for k in range(table.shape[1]):
        t = f[table[:, k]] if weights is None else f[table[:, k]] * weights[:, k, None]
        s = t if s is None else s + t
    return s
def lap(psi):
    g = (psi[E2C[:, 1]] - psi[E2C[:, 0]]) * inv_dual[:, None]
    return nsum(g, C2E, gdiv)
caller = {"vn": vn, "vn_new": vn_new, "w": w, "w_new": w_new, "theta": theta, "theta_new": theta_new}
for _ in range(STEPS):
    uv = (1.0 / 6.0) * nsum(w, V2C)
    t = uv[E2C2V[:, 1]] - uv[E2C2V[:, 0]]
    n = uv[E2C2V[:, 3]] - uv[E2C2V[:, 2]]
    kh = smag * np.sqrt(t * t + n * n + 0.01 * vn * vn)
    kh_c = nsum(kh, C2E) / 3.0
    z4 = nsum(nsum(vn, E2C2EO, ew), E2C2EO, ew)
    vn_new[:] = vn - (0.5 * dt) * kh * z4
    lw = lap(w)
    w_new[:, 0] = w[:, 0]
    w_new[:, 1:] = (w + dt * kh_c * lw)[:, 1:]
    if APPLY:
        theta_new[:] = np.where(mask, theta + dt * kh_c * lap(theta), theta)
    else:
        theta_new[:] = theta
    vn, vn_new = vn_new, vn
    w, w_new = w_new, w
    theta, theta_new = theta_new, theta
out.update(caller)
)";

}  // namespace weir::test::orchestration
