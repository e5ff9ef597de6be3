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
