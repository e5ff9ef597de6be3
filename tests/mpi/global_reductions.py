# Global reductions on ranks (docs/adr/0057, section "global reductions"): `peak_step` scales a
# heat step by the whole field's largest value (each rank reduces what it owns: its part, and the
# frame where it lies at the grid's edge) (the decomposed SDFG of tests/lit/codegen/
# allreduce-expansion.test was written from it with --decomposed-sdfg on 2 ranks); `past_frame`
# reduces a slice that cuts 3 points into the ranks' parts along I, which --decompose refuses.
import gt4py.next as gtx
import numpy as np
from gt4py.next import Field, float64

I = gtx.Dimension("I")
J = gtx.Dimension("J")
IJ = Field[[I, J], float64]


@gtx.field_operator
def heat_update(u: IJ, dt: float64) -> IJ:
    return u + dt * (-4.0 * u + u(I + 1) + u(I - 1) + u(J + 1) + u(J - 1))


@gtx.program
def heat_step(u: IJ, dt: float64, out: IJ):
    heat_update(u, dt, out=out[1:-1, 1:-1])


def peak_step(u: IJ, u_next: IJ, dt: float64):
    m = np.max(u)
    heat_step(u, dt / m, u_next, offset_provider={})


def past_frame(u: IJ, u_next: IJ, dt: float64):
    m = np.max(u[3:, :])
    heat_step(u, dt / m, u_next, offset_provider={})


# Refused by --decompose: `c` has no J, along which the program is split (every rank of a row
# would reduce the same points).
def column_max(u: IJ, u_next: IJ, c: Field[[I], float64], dt: float64):
    m = np.max(c)
    heat_step(u, dt / m, u_next, offset_provider={})


# Refused by --decompose: no call reads or writes `w`, so it is not split (every rank holds it whole).
def unsplit(u: IJ, u_next: IJ, w: IJ, dt: float64):
    m = np.max(w)
    heat_step(u, dt / m, u_next, offset_provider={})


# `trough_step` scales the step by the smallest value. With a NaN anywhere in u, np.max (peak_step)
# and np.min are NaN (NumPy's), on every rank (the Allreduce of a NaN flag with the value).
def trough_step(u: IJ, u_next: IJ, dt: float64):
    m = np.min(u)
    heat_step(u, dt * m, u_next, offset_provider={})


# `cfl_step` scales the step by the largest magnitude, np.max(np.abs(u)) (the usual CFL form).
def cfl_step(u: IJ, u_next: IJ, dt: float64):
    m = np.max(np.abs(u))
    heat_step(u, dt / m, u_next, offset_provider={})
