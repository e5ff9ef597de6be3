# The 5-point Laplacian and the Laplacian of the Laplacian (bi-harmonic operator) on a
# Cartesian I x J x K grid. Outputs are written on the interior only (sliced out=).
import gt4py.next as gtx
from gt4py.next import Field, float64

IDim = gtx.Dimension("I")
JDim = gtx.Dimension("J")
KDim = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)

IJKField = Field[[IDim, JDim, KDim], float64]


@gtx.field_operator
def lap(f: IJKField) -> IJKField:
    return -4.0 * f + f(IDim + 1) + f(IDim - 1) + f(JDim + 1) + f(JDim - 1)


@gtx.field_operator
def lap_lap(f: IJKField) -> IJKField:
    return lap(lap(f))


@gtx.program
def laplacian(f: IJKField, out: IJKField):
    lap(f, out=out[1:-1, 1:-1])


@gtx.program
def bi_laplacian(f: IJKField, out: IJKField):
    lap_lap(f, out=out[2:-2, 2:-2])
