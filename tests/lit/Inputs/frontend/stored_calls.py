# Nested field-operator calls and where the lowering stores them (docs/adr/0008, 2026-12-07):
# nabla4 reads the inner vlap at 12 vertices per vertex (stored), vlap2 at its own vertex only
# (inlined), nabla4 over part of the vertices (inlined: the transient would need the
# neighbours outside the domain), and lap(lap(lap)) at Cartesian offsets (inlined).
import gt4py.next as gtx
from gt4py.next import Dims, Field, float64, neighbor_sum

Vertex = gtx.Dimension("Vertex")
Edge = gtx.Dimension("Edge")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
V2EDim = gtx.Dimension("V2E", kind=gtx.DimensionKind.LOCAL)
E2V = gtx.FieldOffset("E2V", source=Vertex, target=(Edge, E2VDim))
V2E = gtx.FieldOffset("V2E", source=Edge, target=(Vertex, V2EDim))
I = gtx.Dimension("I")
J = gtx.Dimension("J")
IDim = I
JDim = J

VK = Field[Dims[Vertex, K], float64]
Sign = Field[Dims[Vertex, V2EDim], float64]
Len = Field[Dims[Edge], float64]
IJK = Field[Dims[I, J, K], float64]


@gtx.field_operator
def vlap(p: VK, sign: Sign, inv_len: Len) -> VK:
    grad = (p(E2V[1]) - p(E2V[0])) * inv_len
    return neighbor_sum(grad(V2E) * sign, axis=V2EDim)


@gtx.field_operator
def nabla4(p: VK, sign: Sign, inv_len: Len, nu: float64) -> VK:
    return p - nu * vlap(vlap(p, sign, inv_len), sign, inv_len)


@gtx.field_operator
def vlap2(p: VK, sign: Sign, inv_len: Len) -> VK:
    return vlap(p, sign, inv_len) * vlap(p, sign, inv_len)


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def nabla4_program(p: VK, sign: Sign, inv_len: Len, nu: float64, out: VK):
    nabla4(p, sign, inv_len, nu, out=out)


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def vlap2_program(p: VK, sign: Sign, inv_len: Len, out: VK):
    vlap2(p, sign, inv_len, out=out)


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def nabla4_part(p: VK, sign: Sign, inv_len: Len, nu: float64, out: VK, n: gtx.int32):
    nabla4(p, sign, inv_len, nu, out=out, domain={Vertex: (0, n), K: (0, 4)})


@gtx.field_operator
def lap(f: IJK) -> IJK:
    return -4.0 * f + f(I + 1) + f(I - 1) + f(J + 1) + f(J - 1)


@gtx.field_operator
def lap3(f: IJK) -> IJK:
    return lap(lap(lap(f)))


@gtx.program
def lap3_program(f: IJK, out: IJK):
    lap3(f, out=out[3:-3, 3:-3, :])
