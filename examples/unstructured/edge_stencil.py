# Vertex values brought onto edges through the E2C2V "diamond" (the edge's two vertices, then
# the vertices opposite it in its two cells): the gradient along the edge, the gradient across
# it (between the two far vertices), and a diamond-weighted average used to smooth the field.
import gt4py.next as gtx
from gt4py.next import Dims, Field, float64, neighbor_sum

Vertex = gtx.Dimension("Vertex")
Edge = gtx.Dimension("Edge")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
E2C2VDim = gtx.Dimension("E2C2V", kind=gtx.DimensionKind.LOCAL)

E2C2V = gtx.FieldOffset("E2C2V", source=Vertex, target=(Edge, E2C2VDim))

VertexK = Field[Dims[Vertex, K], float64]
EdgeK = Field[Dims[Edge, K], float64]
DiamondWeights = Field[Dims[Edge, E2C2VDim], float64]


@gtx.field_operator
def diamond_gradients(
    u: VertexK, inv_length: Field[Dims[Edge], float64], inv_dual_length: Field[Dims[Edge], float64]
) -> tuple[EdgeK, EdgeK]:
    along = (u(E2C2V[1]) - u(E2C2V[0])) * inv_length
    across = (u(E2C2V[3]) - u(E2C2V[2])) * inv_dual_length
    return along, across


@gtx.field_operator
def diamond_smooth(u: VertexK, w: DiamondWeights, strength: float64) -> EdgeK:
    mean = neighbor_sum(u(E2C2V) * w, axis=E2C2VDim)
    edge_mid = 0.5 * (u(E2C2V[0]) + u(E2C2V[1]))
    # the edge's own vertices weigh in once more through the first weight
    return edge_mid + strength * (mean - edge_mid * w[E2C2VDim(0)])


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def edge_gradients(
    u: VertexK,
    inv_length: Field[Dims[Edge], float64],
    inv_dual_length: Field[Dims[Edge], float64],
    grad_t: EdgeK,
    grad_n: EdgeK,
):
    diamond_gradients(u, inv_length, inv_dual_length, out=(grad_t, grad_n))


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def edge_smooth(u: VertexK, w: DiamondWeights, strength: float64, u_edge: EdgeK):
    diamond_smooth(u, w, strength, out=u_edge)
