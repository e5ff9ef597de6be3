# One explicit (Jacobi) step of the 3-D heat equation: every interior point moves towards the
# mean of its six face neighbours, u' = u + alpha * (sum of neighbours - 6 u), with
# alpha = kappa * dt / dx^2 (stable for alpha <= 1/6). The boundary layer is left untouched.
import gt4py.next as gtx
from gt4py.next import Dims, Field, float64

IDim = gtx.Dimension("I")
JDim = gtx.Dimension("J")
KDim = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)

Grid3D = Field[Dims[IDim, JDim, KDim], float64]


@gtx.field_operator
def face_sum(u: Grid3D) -> Grid3D:
    horizontal = u(IDim - 1) + u(IDim + 1) + u(JDim - 1) + u(JDim + 1)
    return horizontal + u(KDim - 1) + u(KDim + 1)


@gtx.field_operator
def heat_step(u: Grid3D, alpha: float64) -> Grid3D:
    return u + alpha * (face_sum(u) - 6.0 * u)


@gtx.program
def heat3d(u: Grid3D, u_new: Grid3D, alpha: float64):
    heat_step(u, alpha, out=u_new[1:-1, 1:-1, 1:-1])
