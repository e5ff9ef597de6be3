# COSMO-style fourth-order horizontal diffusion with monotonic flux limiting: a Laplacian,
# fluxes of the Laplacian in I and J that are zeroed where they would amplify the gradient of
# the input, and the divergence of the limited fluxes scaled by a per-point coefficient.
import gt4py.next as gtx
from gt4py.next import Field, float64, where

IDim = gtx.Dimension("I")
JDim = gtx.Dimension("J")
KDim = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)

IJKField = Field[[IDim, JDim, KDim], float64]


@gtx.field_operator
def laplacian(u: IJKField) -> IJKField:
    return 4.0 * u - (u(IDim - 1) + u(IDim + 1) + u(JDim - 1) + u(JDim + 1))


@gtx.field_operator
def flux_i(u: IJKField, lap: IJKField) -> IJKField:
    flx = lap(IDim + 1) - lap
    # Limiter: drop the flux where it points up the gradient of u.
    return where(flx * (u(IDim + 1) - u) > 0.0, 0.0, flx)


@gtx.field_operator
def flux_j(u: IJKField, lap: IJKField) -> IJKField:
    fly = lap(JDim + 1) - lap
    return where(fly * (u(JDim + 1) - u) > 0.0, 0.0, fly)


@gtx.field_operator
def hdiff(u: IJKField, coeff: IJKField) -> IJKField:
    lap = laplacian(u)
    flx = flux_i(u, lap)
    fly = flux_j(u, lap)
    return u - coeff * (flx - flx(IDim - 1) + fly - fly(JDim - 1))


@gtx.program
def hdiff_program(u: IJKField, coeff: IJKField, out: IJKField):
    hdiff(u, coeff, out=out[2:-2, 2:-2])
