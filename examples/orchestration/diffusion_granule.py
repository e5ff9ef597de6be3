# A horizontal-diffusion granule on a triangular mesh, orchestrated: nine stencils of the kinds
# ICON's diffusion uses (cell -> vertex interpolation, a Smagorinsky-like coefficient from the
# edge's diamond, nabla2 and nabla4 of the normal wind over E2C2EO, the cell Laplacian as the
# divergence of an edge gradient, diffusion of vn, of w with concat_where at the model top and
# of theta under a mask) called in a time loop with a flag and swaps of time levels.
# `diffusion_granule` is a plain Python function: under gt4py it calls the programs one by one;
# weir makes one SDFG of it (docs/adr/0019-orchestration.md).
import gt4py.next as gtx
from gt4py.next import Dims, Field, float64, int32, neighbor_sum, sqrt, where
from gt4py.next.experimental import concat_where

Cell = gtx.Dimension("Cell")
Edge = gtx.Dimension("Edge")
Vertex = gtx.Dimension("Vertex")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
C2EDim = gtx.Dimension("C2E", kind=gtx.DimensionKind.LOCAL)
E2CDim = gtx.Dimension("E2C", kind=gtx.DimensionKind.LOCAL)
V2CDim = gtx.Dimension("V2C", kind=gtx.DimensionKind.LOCAL)
E2C2VDim = gtx.Dimension("E2C2V", kind=gtx.DimensionKind.LOCAL)
E2C2EODim = gtx.Dimension("E2C2EO", kind=gtx.DimensionKind.LOCAL)

C2E = gtx.FieldOffset("C2E", source=Edge, target=(Cell, C2EDim))
E2C = gtx.FieldOffset("E2C", source=Cell, target=(Edge, E2CDim))
V2C = gtx.FieldOffset("V2C", source=Cell, target=(Vertex, V2CDim))
E2C2V = gtx.FieldOffset("E2C2V", source=Vertex, target=(Edge, E2C2VDim))
E2C2EO = gtx.FieldOffset("E2C2EO", source=Edge, target=(Edge, E2C2EODim))

CellK = Field[Dims[Cell, K], float64]
EdgeK = Field[Dims[Edge, K], float64]
VertexK = Field[Dims[Vertex, K], float64]
EdgeWeights = Field[Dims[Edge, E2C2EODim], float64]
DivWeights = Field[Dims[Cell, C2EDim], float64]
InvLength = Field[Dims[Edge], float64]
Mask = Field[Dims[Cell, K], bool]

SIXTH = 1.0 / 6.0


@gtx.field_operator
def cell_to_vertex(psi: CellK) -> VertexK:
    return SIXTH * neighbor_sum(psi(V2C), axis=V2CDim)


@gtx.field_operator
def smagorinsky(uv: VertexK, vn: EdgeK, smag_fac: float64) -> EdgeK:
    dvt_tang = uv(E2C2V[1]) - uv(E2C2V[0])
    dvt_norm = uv(E2C2V[3]) - uv(E2C2V[2])
    return smag_fac * sqrt(dvt_tang * dvt_tang + dvt_norm * dvt_norm + 0.01 * vn * vn)


@gtx.field_operator
def edges_to_cells(kh: EdgeK) -> CellK:
    return neighbor_sum(kh(C2E), axis=C2EDim) / 3.0


@gtx.field_operator
def nabla2_e(vn: EdgeK, weights: EdgeWeights) -> EdgeK:
    return neighbor_sum(vn(E2C2EO) * weights, axis=E2C2EODim)


@gtx.field_operator
def diffuse_vn(vn: EdgeK, kh: EdgeK, z_nabla4: EdgeK, dt: float64) -> EdgeK:
    return vn - dt * kh * z_nabla4


@gtx.field_operator
def edge_gradient(psi: CellK, inv_dual: InvLength) -> EdgeK:
    return (psi(E2C[1]) - psi(E2C[0])) * inv_dual


@gtx.field_operator
def cell_divergence(g: EdgeK, geofac_div: DivWeights) -> CellK:
    return neighbor_sum(g(C2E) * geofac_div, axis=C2EDim)


@gtx.field_operator
def diffuse_w(w: CellK, lap_w: CellK, kh_c: CellK, dt: float64) -> CellK:
    return concat_where(K > 0, w + dt * kh_c * lap_w, w)


@gtx.field_operator
def diffuse_theta(theta: CellK, lap_theta: CellK, kh_c: CellK, mask: Mask, dt: float64) -> CellK:
    return where(mask, theta + dt * kh_c * lap_theta, theta)


@gtx.field_operator
def keep(theta: CellK) -> CellK:
    return theta


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def smagorinsky_coefficient(w: CellK, vn: EdgeK, smag_fac: float64, uv: VertexK, kh: EdgeK, kh_c: CellK):
    cell_to_vertex(w, out=uv)
    smagorinsky(uv, vn, smag_fac, out=kh)
    edges_to_cells(kh, out=kh_c)


def cell_laplacian(psi, inv_dual, geofac_div, g, lap):
    edge_gradient(psi, inv_dual, out=g)
    cell_divergence(g, geofac_div, out=lap)


def diffusion_granule(
    vn: EdgeK, vn_new: EdgeK, w: CellK, w_new: CellK, theta: CellK, theta_new: CellK,
    e_weights: EdgeWeights, inv_dual: InvLength, geofac_div: DivWeights, mask: Mask,
    dt: float64, smag_fac: float64, n_steps: int32, apply_theta: bool,
    n_vertices: int32, n_edges: int32, n_cells: int32, n_levels: int32,
):
    uv = gtx.empty({Vertex: n_vertices, K: n_levels})
    kh = gtx.empty({Edge: n_edges, K: n_levels})
    kh_c = gtx.empty({Cell: n_cells, K: n_levels})
    z2 = gtx.empty({Edge: n_edges, K: n_levels})
    z4 = gtx.empty({Edge: n_edges, K: n_levels})
    g = gtx.empty({Edge: n_edges, K: n_levels})
    lap = gtx.empty({Cell: n_cells, K: n_levels})
    for _ in range(n_steps):
        smagorinsky_coefficient(w, vn, smag_fac, uv, kh, kh_c, offset_provider={})
        nabla2_e(vn, e_weights, out=z2)
        nabla2_e(z2, e_weights, out=z4)
        diffuse_vn(vn, kh, z4, 0.5 * dt, out=vn_new)
        cell_laplacian(w, inv_dual, geofac_div, g, lap)
        diffuse_w(w, lap, kh_c, dt, out=w_new)
        if apply_theta:
            cell_laplacian(theta, inv_dual, geofac_div, g, lap)
            diffuse_theta(theta, lap, kh_c, mask, dt, out=theta_new)
        else:
            keep(theta, out=theta_new)
        vn, vn_new = vn_new, vn
        w, w_new = w_new, w
        theta, theta_new = theta_new, theta
