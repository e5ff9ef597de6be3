# Dimensions, offsets and field types of the model grid.
from typing import TypeAlias, TypeVar

import gt4py.next as gtx

# A cycle Python allows: model.common is still initialising when it imports this module, and
# this module imports a sibling through it.
from . import constants  # noqa: F401

CellDim = gtx.Dimension("Cell")
EdgeDim = gtx.Dimension("Edge")
VertexDim = gtx.Dimension("Vertex")
KDim = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
C2EDim = gtx.Dimension("C2E", kind=gtx.DimensionKind.LOCAL)
E2CDim = gtx.Dimension("E2C", kind=gtx.DimensionKind.LOCAL)
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)

C2E = gtx.FieldOffset("C2E", source=EdgeDim, target=(CellDim, C2EDim))
E2C = gtx.FieldOffset("E2C", source=CellDim, target=(EdgeDim, E2CDim))
E2V = gtx.FieldOffset("E2V", source=VertexDim, target=(EdgeDim, E2VDim))
Koff = gtx.FieldOffset("Koff", source=KDim, target=(KDim,))

T = TypeVar("T")
CellKField: TypeAlias = gtx.Field[gtx.Dims[CellDim, KDim], T]
EdgeKField: TypeAlias = gtx.Field[gtx.Dims[EdgeDim, KDim], T]
VertexKField: TypeAlias = gtx.Field[gtx.Dims[VertexDim, KDim], T]

wpfloat = gtx.float64
