# An unstructured stencil for the Python tests: per edge, the sum of its two vertices' values
# (E2V), and per vertex the sum over its edges (V2E, -1 = no neighbour).
import gt4py.next as gtx
from gt4py.next import Dims, Field, float64, neighbor_sum

Vertex = gtx.Dimension("Vertex")
Edge = gtx.Dimension("Edge")
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
E2V = gtx.FieldOffset("E2V", source=Vertex, target=(Edge, E2VDim))


@gtx.field_operator
def edge_sum(v: Field[Dims[Vertex], float64]) -> Field[Dims[Edge], float64]:
    return neighbor_sum(v(E2V), axis=E2VDim)


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def edge_sum_program(v: Field[Dims[Vertex], float64], out: Field[Dims[Edge], float64]):
    edge_sum(v, out=out)
