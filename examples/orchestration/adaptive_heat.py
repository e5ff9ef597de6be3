# Explicit heat diffusion with an adaptive time step, orchestrated: before every step the
# driver reduces the field to scalars with NumPy (the forms a gt4py model driver writes), halves
# dt while the step would be too large for the largest value, and passes dt on to the next call.
# Under gt4py this runs as written; weir lowers each reduction to a Reduce library node (one
# rank) or to each rank's part followed by an MPI_Allreduce (`--decompose`, docs/distributed.md).
import gt4py.next as gtx
import numpy as np
from gt4py.next import Field, float64, int32

I = gtx.Dimension("I")
J = gtx.Dimension("J")
IJ = Field[[I, J], float64]


@gtx.field_operator
def heat_update(u: IJ, dt: float64) -> IJ:
    return u + dt * (-4.0 * u + u(I + 1) + u(I - 1) + u(J + 1) + u(J - 1))


@gtx.program
def heat_step(u: IJ, dt: float64, out: IJ):
    heat_update(u, dt, out=out[1:-1, 1:-1])


@gtx.field_operator
def shift(u: IJ, by: float64) -> IJ:
    return u + by


@gtx.program
def shift_step(u: IJ, by: float64, out: IJ):
    shift(u, by, out=out[1:-1, 1:-1])


def adaptive_heat(u: IJ, u_next: IJ, dt: float64, limit: float64, steps: int32):
    for _ in range(steps):
        umax = np.max(u[1:-1, 1:-1])
        if dt * umax > limit:
            dt = dt * 0.5
        heat_step(u, dt, u_next, offset_provider={})
        u, u_next = u_next, u
    # Shift the interior by a thousandth of the whole field's sum (a sum: equal within rounding
    # on several ranks) less its smallest value.
    lowest = u.asnumpy()[1:-1, 1:-1].min()
    total = np.sum(u)
    shift_step(u, total * 0.001 - lowest, u_next, offset_provider={})
