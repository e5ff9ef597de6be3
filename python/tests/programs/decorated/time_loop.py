# Orchestration functions under @weir.program with the constructs `weir run FILE::NAME` reads in
# an orchestration: a `for` time loop with a swap, a `while` loop, an `if`, a NumPy reduction and
# a local gtx.zeros field (the decorator once made the module fail to import at the `for`).
import gt4py.next as gtx
import numpy as np
from gt4py.next import float64, int32

import weir
from decorated.common import I, IJ, J


@gtx.field_operator
def relax(u: IJ, dt: float64) -> IJ:
    return u + dt * (1.0 - u)


@gtx.program
def relax_step(u: IJ, dt: float64, out: IJ):
    relax(u, dt, out=out)


@gtx.field_operator
def add(a: IJ, b: IJ) -> IJ:
    return a + b


@gtx.program
def add_step(a: IJ, b: IJ, out: IJ):
    add(a, b, out=out)


@weir.program(backend=weir.backends.cpu)
def time_loop(u: IJ, u_next: IJ, total: IJ, dt: float64, limit: float64, n_steps: int32, n_i: int32, n_j: int32):
    acc = gtx.zeros({I: n_i, J: n_j}, dtype=float64)
    for _ in range(n_steps):
        if dt * np.max(u) > limit:
            dt = dt * 0.5
        relax_step(u, dt, u_next, offset_provider={})
        add_step(acc, u_next, total, offset_provider={})
        add_step(total, u_next, acc, offset_provider={})
        u, u_next = u_next, u
    add_step(acc, u, total, offset_provider={})


@weir.program
def halve_until(u: IJ, tmp: IJ, limit: float64):
    peak = np.max(u)
    while peak > limit:
        relax_step(u, 0.5, tmp, offset_provider={})
        u, tmp = tmp, u
        peak = np.max(u)
