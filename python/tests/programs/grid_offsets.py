# A program using one connectivity (E2V) and one Cartesian offset (Koff), for the tests of a
# gt4py-style offset_provider: one dict for the whole grid, with more tables than the program
# uses and `"Koff": K` for the Cartesian offset.
import gt4py.next as gtx
from gt4py.next import Dims, Field, float64, int32, neighbor_sum

Vertex = gtx.Dimension("Vertex")
Edge = gtx.Dimension("Edge")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
E2V = gtx.FieldOffset("E2V", source=Vertex, target=(Edge, E2VDim))
Koff = gtx.FieldOffset("Koff", source=K, target=(K,))


@gtx.field_operator
def vertex_sum(v: Field[Dims[Vertex, K], float64]) -> Field[Dims[Edge, K], float64]:
    return neighbor_sum(v(E2V), axis=E2VDim)


@gtx.field_operator
def upward_difference(e: Field[Dims[Edge, K], float64]) -> Field[Dims[Edge, K], float64]:
    return e(Koff[1]) - e


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def edge_gradient(
    v: Field[Dims[Vertex, K], float64],
    tmp: Field[Dims[Edge, K], float64],
    out: Field[Dims[Edge, K], float64],
    n_edges: int32,
    n_levels: int32,
):
    vertex_sum(v, out=tmp)
    upward_difference(tmp, out=out, domain={Edge: (0, n_edges), K: (0, n_levels - 1)})
