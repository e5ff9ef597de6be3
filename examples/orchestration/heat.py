# Explicit heat diffusion on a Cartesian grid, orchestrated: a plain Python function runs the
# time loop, swapping the two time levels after each step (the newest values end in `u` after an
# even number of steps, in `u_next` after an odd one, exactly as under gt4py).
import gt4py.next as gtx
from gt4py.next import Field, float64, int32

I = gtx.Dimension("I")
J = gtx.Dimension("J")
IJ = Field[[I, J], float64]


@gtx.field_operator
def heat_update(u: IJ, kappa: IJ, dt: float64) -> IJ:
    return u + dt * kappa * (-4.0 * u + u(I + 1) + u(I - 1) + u(J + 1) + u(J - 1))


@gtx.program
def heat_step(u: IJ, kappa: IJ, dt: float64, out: IJ):
    heat_update(u, kappa, dt, out=out[1:-1, 1:-1])


def heat(u: IJ, u_next: IJ, kappa: IJ, dt: float64, steps: int32):
    for _ in range(steps):
        heat_step(u, kappa, dt, u_next, offset_provider={})
        u, u_next = u_next, u
