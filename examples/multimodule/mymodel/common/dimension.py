# Dimensions, offsets and field type aliases shared by the model's stencils.
from typing import TypeAlias, TypeVar

import gt4py.next as gtx
from gt4py.next import Dims, Field, float32, float64

CellDim = gtx.Dimension("Cell")
EdgeDim = gtx.Dimension("Edge")
KDim = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
C2EDim = gtx.Dimension("C2E", kind=gtx.DimensionKind.LOCAL)
E2CDim = gtx.Dimension("E2C", kind=gtx.DimensionKind.LOCAL)

C2E = gtx.FieldOffset("C2E", source=EdgeDim, target=(CellDim, C2EDim))
E2C = gtx.FieldOffset("E2C", source=CellDim, target=(EdgeDim, E2CDim))
Koff = gtx.FieldOffset("Koff", source=KDim, target=(KDim,))

T = TypeVar("T")
CellKField: TypeAlias = Field[Dims[CellDim, KDim], T]
EdgeKField: TypeAlias = Field[Dims[EdgeDim, KDim], T]
CellField: TypeAlias = Field[Dims[CellDim], T]

# Working precision of the model ("vp" = variable precision).
vpfloat = float64
wpfloat = float64
