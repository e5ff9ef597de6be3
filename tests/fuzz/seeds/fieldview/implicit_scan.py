# A scan with a float scalar dt, run from a kernel on the GPU (docs/testing.md, "GPU path").
import gt4py.next as gtx
from gt4py.next import Dims, Field, float64

IDim = gtx.Dimension("I")
JDim = gtx.Dimension("J")
KDim = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
IJK = Field[Dims[IDim, JDim, KDim], float64]


@gtx.scan_operator(axis=KDim, forward=True, init=0.0)
def relax(state: float64, f: float64, dt: float64) -> float64:
    return (state + dt * f) / (1.0 + dt)


@gtx.program
def implicit_step(f: IJK, dt: float64, out: IJK):
    relax(f, dt, out=out)
