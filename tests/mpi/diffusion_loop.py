# An orchestrated Cartesian time loop for the MPI tests (docs/adr/0057, 2026-12-06): two
# programs with the same frame but different halos (a Laplacian step reads u 1 point around,
# a biharmonic smoothing step 2; the coefficient kappa, which no call writes, is read 1 point
# before along J), a branch choosing between them, and the swap of the two time
# levels after every step. Decomposed, the halo of the field a call reads is exchanged before
# that call, after whichever call (of this or the previous iteration) wrote it.
import gt4py.next as gtx
from gt4py.next import Field, float64, int32

I = gtx.Dimension("I")
J = gtx.Dimension("J")
IJ = Field[[I, J], float64]


@gtx.field_operator
def lap(u: IJ) -> IJ:
    return -4.0 * u + u(I + 1) + u(I - 1) + u(J + 1) + u(J - 1)


@gtx.field_operator
def diffuse(u: IJ, kappa: IJ, alpha: float64) -> IJ:
    return u + alpha * kappa(J - 1) * lap(u)


@gtx.field_operator
def smooth(u: IJ, alpha: float64) -> IJ:
    return u - alpha * lap(lap(u))


@gtx.program
def diffuse_step(u: IJ, kappa: IJ, alpha: float64, out: IJ):
    diffuse(u, kappa, alpha, out=out[2:-2, 2:-2])


@gtx.program
def smooth_step(u: IJ, alpha: float64, out: IJ):
    smooth(u, alpha, out=out[2:-2, 2:-2])


def diffusion_loop(u: IJ, u_next: IJ, kappa: IJ, alpha: float64, steps: int32):
    for step in range(steps):
        if step % 3 == 2:
            smooth_step(u, alpha, u_next, offset_provider={})
        else:
            diffuse_step(u, kappa, alpha, u_next, offset_provider={})
        u, u_next = u_next, u


@gtx.program
def diffuse_inner(u: IJ, kappa: IJ, alpha: float64, out: IJ):
    diffuse(u, kappa, alpha, out=out[1:-1, 1:-1])


# Refused by --decompose: its two calls leave different frames (2 and 1 points), which one split
# of I and J cannot serve.
def mixed_frames(u: IJ, u_next: IJ, kappa: IJ, alpha: float64, steps: int32):
    for _ in range(steps):
        diffuse_step(u, kappa, alpha, u_next, offset_provider={})
        diffuse_inner(u_next, kappa, alpha, u, offset_provider={})
