# Fourth-order diffusion on vertices for the Python tests: the vertex Laplacian (edge gradients
# through E2V, their signed sum per vertex through V2E) applied to its own result inside one
# field operator. The inner vlap is read at the 12 vertices around each vertex (6 edges x 2),
# so the lowering stores it in a transient instead of recomputing it 12 times (docs/adr/0008).
import gt4py.next as gtx
from gt4py.next import Dims, Field, float64, neighbor_sum

Vertex = gtx.Dimension("Vertex")
Edge = gtx.Dimension("Edge")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
V2EDim = gtx.Dimension("V2E", kind=gtx.DimensionKind.LOCAL)
E2V = gtx.FieldOffset("E2V", source=Vertex, target=(Edge, E2VDim))
V2E = gtx.FieldOffset("V2E", source=Edge, target=(Vertex, V2EDim))

VK = Field[Dims[Vertex, K], float64]


@gtx.field_operator
def vlap(p: VK, sign: Field[Dims[Vertex, V2EDim], float64], inv_len: Field[Dims[Edge], float64]) -> VK:
    grad = (p(E2V[1]) - p(E2V[0])) * inv_len
    return neighbor_sum(grad(V2E) * sign, axis=V2EDim)


@gtx.field_operator
def nabla4(p: VK, sign: Field[Dims[Vertex, V2EDim], float64], inv_len: Field[Dims[Edge], float64],
           nu: float64) -> VK:
    return p - nu * vlap(vlap(p, sign, inv_len), sign, inv_len)


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def nabla4_program(p: VK, sign: Field[Dims[Vertex, V2EDim], float64], inv_len: Field[Dims[Edge], float64],
                   nu: float64, out: VK):
    nabla4(p, sign, inv_len, nu, out=out)


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def vlap_program(p: VK, sign: Field[Dims[Vertex, V2EDim], float64], inv_len: Field[Dims[Edge], float64],
                 out: VK):
    vlap(p, sign, inv_len, out=out)
