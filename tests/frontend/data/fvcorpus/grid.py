# Shared declarations of the field-view corpus (docs/field-view-differences.md).
import gt4py.next as gtx
from gt4py.next import Field, float32, float64, int32, int64, neighbor_sum, where, broadcast, astype

I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
Vertex = gtx.Dimension("Vertex")
Edge = gtx.Dimension("Edge")
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
E2V = gtx.FieldOffset("E2V", source=Vertex, target=(Edge, E2VDim))
Ioff = gtx.FieldOffset("Ioff", source=I, target=(I,))
Koff = gtx.FieldOffset("Koff", source=K, target=(K,))
