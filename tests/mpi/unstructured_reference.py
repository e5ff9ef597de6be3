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
