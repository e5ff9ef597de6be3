# Nabla (gradient) of a vertex field on an unstructured mesh, FVM style: average the field onto
# each edge from its two vertices, weight by the edge's dual normal, and sum the edge
# contributions of every vertex with the orientation sign of each edge (V2E + neighbor_sum).
import gt4py.next as gtx
from gt4py.next import Dims, Field, float64, neighbor_sum

Vertex = gtx.Dimension("Vertex")
Edge = gtx.Dimension("Edge")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
V2EDim = gtx.Dimension("V2E", kind=gtx.DimensionKind.LOCAL)

E2V = gtx.FieldOffset("E2V", source=Vertex, target=(Edge, E2VDim))
V2E = gtx.FieldOffset("V2E", source=Edge, target=(Vertex, V2EDim))

VKField = Field[Dims[Vertex, K], float64]
EKField = Field[Dims[Edge, K], float64]


@gtx.field_operator
def nabla(
    pp: VKField,
    S_MXX: Field[Dims[Edge], float64],
    S_MYY: Field[Dims[Edge], float64],
    sign: Field[Dims[Vertex, V2EDim], float64],
    vol: Field[Dims[Vertex], float64],
) -> tuple[VKField, VKField]:
    zavg = 0.5 * (pp(E2V[0]) + pp(E2V[1]))
    zavgS_MXX = S_MXX * zavg
    zavgS_MYY = S_MYY * zavg
    pnabla_MXX = neighbor_sum(zavgS_MXX(V2E) * sign, axis=V2EDim)
    pnabla_MYY = neighbor_sum(zavgS_MYY(V2E) * sign, axis=V2EDim)
    return pnabla_MXX / vol, pnabla_MYY / vol


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def nabla_program(
    pp: VKField,
    S_MXX: Field[Dims[Edge], float64],
    S_MYY: Field[Dims[Edge], float64],
    sign: Field[Dims[Vertex, V2EDim], float64],
    vol: Field[Dims[Vertex], float64],
    out_x: VKField,
    out_y: VKField,
):
    nabla(pp, S_MXX, S_MYY, sign, vol, out=(out_x, out_y))
