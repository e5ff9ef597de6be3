# Declarations shared by decorated.kinds (imported as `from decorated.common import ...`).
import gt4py.next as gtx
from gt4py.next import Dims, Field, float64

I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
IJ = Field[Dims[I, J], float64]
IJK = Field[Dims[I, J, K], float64]
