// The diffusion granule of examples/orchestration/diffusion_granule.py on a generated
// triangular mesh: its arguments, and the NumPy script that computes it independently.
#pragma once

#include <cmath>

#include "../../examples/orchestration/granule_inputs.h"
#include "orchestration_run_util.h"

namespace weir::test::orchestration {

inline std::string granule_path() {
  return std::string(WEIR_SOURCE_DIR) + "/examples/orchestration/diffusion_granule.py";
}

/// Arguments of diffusion_granule on an nx x ny mesh with `levels` levels.
inline runtime::Arguments granule_args(int nx, int ny, std::int64_t levels, std::int64_t steps,
                                       bool apply_theta) {
  return examples::granule_args(mesh::make_triangular_mesh(nx, ny), levels, steps, apply_theta);
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
