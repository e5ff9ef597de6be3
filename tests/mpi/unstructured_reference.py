"""The NumPy meaning of the unstructured examples (examples/unstructured) that the MPI tests run
on partitions (check_partitioned.py), written from the programs' text: every neighbour sum adds
the neighbours in table order, as the programs' neighbor_sum does, so the results are exact."""
import numpy as np


def neighbour_sum(terms):
    acc = terms[:, 0]
    for j in range(1, terms.shape[1]):
        acc = acc + terms[:, j]
    return acc


def nabla_program(t, pp, S_MXX, S_MYY, sign, vol):
    zavg = 0.5 * (pp[t["E2V"][:, 0]] + pp[t["E2V"][:, 1]])
    outs = []
    for s in (S_MXX, S_MYY):
        z = s[:, None] * zavg
        outs.append(neighbour_sum(z[t["V2E"]] * sign[:, :, None]) / vol[:, None])
    return {"out_x": outs[0], "out_y": outs[1]}


def cell_laplacian(t, psi, weights):
    return {"lap": neighbour_sum(psi[t["C2E2CO"]] * weights[:, :, None])}


def cell_bounds(t, psi):
    around = psi[t["C2E2CO"]]
    return {"psi_max": around.max(axis=1), "psi_min": around.min(axis=1)}


def edge_gradients(t, u, inv_length, inv_dual_length):
    v = t["E2C2V"]
    return {
        "grad_t": (u[v[:, 1]] - u[v[:, 0]]) * inv_length[:, None],
        "grad_n": (u[v[:, 3]] - u[v[:, 2]]) * inv_dual_length[:, None],
    }


def edge_smooth(t, u, w, strength):
    v = t["E2C2V"]
    mean = neighbour_sum(u[v] * w[:, :, None])
    mid = 0.5 * (u[v[:, 0]] + u[v[:, 1]])
    return {"u_edge": mid + strength * (mean - mid * w[:, 0][:, None])}


def smooth(t, e, weights, out, n_cells, n_levels):
    """examples/multimodule/mymodel/program.py::smooth: the weighted C2E sum of e per cell (in table
    order), then 0.5 * (level k + level k + 1), on cells [0, n_cells) and levels [0, n_levels - 1)."""
    avg = neighbour_sum(e[t["C2E"]] * weights[:, :, None])
    out = out.copy()
    out[:n_cells, : n_levels - 1] = 0.5 * (avg[:n_cells, : n_levels - 1] + avg[:n_cells, 1:n_levels])
    return {"out": out}


# examples/namespaced/physics/model/physics/ops.py's constants (model.common.Consts, WEIGHT).
_A = 2.0
_B = _A * 0.25
_C = _B + _A
_WEIGHT = _B * 2.0


def edge_program(t, c, v, out, alpha, n_edges, nlev):
    """examples/namespaced/dycore/model/dycore/program.py::edge_program on edges [0, n_edges) and
    levels [0, nlev - 1), in the operator's order of terms (tests/examples/references/namespaced.py)."""
    e2c, e2v = t["E2C"], t["E2V"]
    w = alpha * 0.5 + 1.0
    k, kp = slice(0, nlev - 1), slice(1, nlev)
    res = (c[e2c[:, 0], kp] + c[e2c[:, 1], kp] * _A + (c * _B)[e2c[:, 1], k] + (c + c)[e2c[:, 0], k] * _WEIGHT
           + (v[e2v[:, 0], k] - v[e2v[:, 1], k]) * w + float(nlev - 1) * _C)
    out = out.copy()
    out[:n_edges, k] = res[:n_edges]
    return {"out": out}


def state_program(t, c, v):
    """examples/namespaced/dycore/model/dycore/program.py::state_program: c[E2C1] * 3 + v[E2V0]."""
    return {"out": c[t["E2C"][:, 1]] * 3.0 + v[t["E2V"][:, 0]]}


def diffusion_granule(t, vn, vn_new, w, w_new, theta, theta_new, e_weights, inv_dual, geofac_div, mask, dt,
                      smag_fac, n_steps, apply_theta, n_vertices, n_edges, n_cells, n_levels):
    """examples/orchestration/diffusion_granule.py: n_steps steps writing the *_new buffers, the
    names swapped after each step (the returned arrays are the parameters' buffers)."""
    buf = {k: v.copy() for k, v in (("vn", vn), ("vn_new", vn_new), ("w", w), ("w_new", w_new),
                                     ("theta", theta), ("theta_new", theta_new))}
    name = {k: k for k in buf}  # the orchestration's name -> the parameter buffer it refers to
    c2e, e2c, v2c, e2c2v, e2c2eo = t["C2E"], t["E2C"], t["V2C"], t["E2C2V"], t["E2C2EO"]

    def lap_of(psi):
        g = (psi[e2c[:, 1]] - psi[e2c[:, 0]]) * inv_dual[:, None]
        return neighbour_sum(g[c2e] * geofac_div[:, :, None])

    for _ in range(n_steps):
        cur_vn, cur_w, cur_th = buf[name["vn"]], buf[name["w"]], buf[name["theta"]]
        uv = (1.0 / 6.0) * neighbour_sum(cur_w[v2c])
        dt_ = uv[e2c2v[:, 1]] - uv[e2c2v[:, 0]]
        dn_ = uv[e2c2v[:, 3]] - uv[e2c2v[:, 2]]
        kh = smag_fac * np.sqrt(dt_ * dt_ + dn_ * dn_ + 0.01 * cur_vn * cur_vn)
        kh_c = neighbour_sum(kh[c2e]) / 3.0
        z2 = neighbour_sum(cur_vn[e2c2eo] * e_weights[:, :, None])
        z4 = neighbour_sum(z2[e2c2eo] * e_weights[:, :, None])
        buf[name["vn_new"]][:] = cur_vn - (0.5 * dt) * kh * z4
        lap = lap_of(cur_w)
        new_w = buf[name["w_new"]]
        new_w[:, 1:] = cur_w[:, 1:] + dt * kh_c[:, 1:] * lap[:, 1:]
        new_w[:, 0] = cur_w[:, 0]
        if apply_theta:
            lap = lap_of(cur_th)
            buf[name["theta_new"]][:] = np.where(mask, cur_th + dt * kh_c * lap, cur_th)
        else:
            buf[name["theta_new"]][:] = cur_th
        for a in ("vn", "w", "theta"):
            name[a], name[a + "_new"] = name[a + "_new"], name[a]
    return buf


def half_level_granule(t, w, w_new, theta, vn, geofac_div, w_full, wgt, dtime, n_substeps, horizontal_start,
                       horizontal_end, n_cells, nlev):
    """examples/orchestration/half_level_granule.py over the whole mesh (horizontal_start 0,
    horizontal_end n_cells): w on nlev + 1 half levels, theta and vn on nlev full levels."""
    assert horizontal_start == 0 and horizontal_end == n_cells
    buf = {"w": w.copy(), "w_new": w_new.copy(), "w_full": w_full.copy()}
    theta_ic = np.zeros((n_cells, nlev + 1))
    theta_ic[:, 0] = theta[:, 0]
    theta_ic[:, 1:nlev] = wgt * theta[:, 1:nlev] + (1.0 - wgt) * theta[:, 0:nlev - 1]
    theta_ic[:, nlev] = theta[:, nlev - 1]
    div = neighbour_sum(vn[t["C2E"]] * geofac_div[:, :, None])
    dt = dtime / float(n_substeps)
    cur, new = "w", "w_new"
    for _ in range(n_substeps):
        src, dst = buf[cur], buf[new]
        dst[:, 1:nlev] = src[:, 1:nlev] + dt * theta_ic[:, 1:nlev] * (div[:, 0:nlev - 1] - div[:, 1:nlev])
        dst[:, 0] = 0.0 * src[:, 0]
        dst[:, nlev] = 0.0 * src[:, nlev]
        cur, new = new, cur
    buf["w_full"][:] = 0.5 * (buf[cur][:, 0:nlev] + buf[cur][:, 1:nlev + 1])
    return buf



def _flux_loop(t, vn, flux, psi, psi_next, steps, dt_of):
    """tests/mpi/unstructured_reduction.py's loops: per step flux_step (the Edge flux from the
    two cells of each edge) and divergence_step writing the other buffer, the names swapped
    after each; dt_of(current psi) is the step's dt."""
    buf = {"flux": flux.copy(), "psi": psi.copy(), "psi_next": psi_next.copy()}
    cur, new = "psi", "psi_next"
    e2c = t["E2C"]
    for _ in range(steps):
        dt = dt_of(buf[cur])
        p = buf[cur]
        buf["flux"][:] = vn * (0.5 * (p[e2c[:, 0]] + p[e2c[:, 1]]))
        buf[new][:] = p + dt * neighbour_sum(buf["flux"][t["C2E"]])
        cur, new = new, cur
    return buf


def peak_limited(t, vn, flux, psi, psi_next, limit, steps):
    return _flux_loop(t, vn, flux, psi, psi_next, steps, lambda p: limit / np.max(p))


def mass_limited(t, vn, flux, psi, psi_next, mass, limit, steps):
    total, speed = np.sum(mass), np.max(np.abs(vn))
    return _flux_loop(t, vn, flux, psi, psi_next, steps, lambda p: limit * np.min(p) / (total * speed))
