"""Reference of examples/namespaced (the `model` namespace package over three roots).

edge_program: on edges [0, n_edges) and levels [0, nlev - 1), with w = alpha * 0.5 + 1 and
lev = nlev - 1 (the program's argument expressions), A = 2, B = A / 4, C = B + A, WEIGHT = 2 B:
  c[E2C0, k+1] + A c[E2C1, k+1] + B c[E2C1, k] + WEIGHT 2 c[E2C0, k] + w (v[E2V0, k] - v[E2V1, k]) + C lev
pair_program: a = B c[:, k+1] on levels [0, nlev - 1); b = c[:, k-1] + A on levels [1, nlev);
both on cells [0, n_cells); elsewhere the outputs keep their values.
state_program: c[E2C1] * 3 + v[E2V0] (c and v passed in a NamedTuple)."""
import numpy as np

import refio

A = 2.0
B = A * 0.25
C = B + A
WEIGHT = B * 2.0


def edge_program(a):
    c, v, e2c, e2v = a["c"], a["v"], a["E2C"], a["E2V"]
    ne, nl = a["n_edges"], a["nlev"]
    w = a["alpha"] * 0.5 + 1.0
    lev = float(nl - 1)
    k = slice(0, nl - 1)
    kp = slice(1, nl)
    res = (
        c[e2c[:, 0], kp]
        + c[e2c[:, 1], kp] * A
        + (c * B)[e2c[:, 1], k]
        + (c + c)[e2c[:, 0], k] * WEIGHT
        + (v[e2v[:, 0], k] - v[e2v[:, 1], k]) * w
        + lev * C
    )
    out = a["out"].copy()
    out[:ne, k] = res[:ne]
    return {"out": out}


def pair_program(a):
    c, nc, nl = a["c"], a["n_cells"], a["nlev"]
    ra, rb = a["a"].copy(), a["b"].copy()
    ra[:nc, 0 : nl - 1] = c[:nc, 1:nl] * B
    rb[:nc, 1:nl] = c[:nc, 0 : nl - 1] + A
    return {"a": ra, "b": rb}


def state_program(a):
    c, v, e2c, e2v = a["c"], a["v"], a["E2C"], a["E2V"]
    return {"out": c[e2c[:, 1]] * 3.0 + v[e2v[:, 0]]}


refio.main({"edge_program": edge_program, "pair_program": pair_program, "state_program": state_program})
