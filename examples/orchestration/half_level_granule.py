# A vertical-velocity granule on full and half levels, orchestrated as a model writes it: w lives
# on the nlev + 1 half levels, theta and vn on the nlev full levels of the same K dimension; every
# call gets its domain as arguments (a horizontal range start/end of the caller's, vertical
# bounds 0, 1, nlev, nlev + 1), scalars are cast with gtx.int32/gtx.float64 in calls, theta at
# half levels and the divergence are local temporaries, and the field parameters carry no
# annotations (their types follow from the calls they are passed to). Under gt4py it calls the
# programs one by one; weir makes one SDFG of it (docs/adr/0049-orchestration-field-sizes.md).
import gt4py.next as gtx
from gt4py.next import Dims, Field, float64, int32, neighbor_sum

Cell = gtx.Dimension("Cell")
Edge = gtx.Dimension("Edge")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
C2EDim = gtx.Dimension("C2E", kind=gtx.DimensionKind.LOCAL)
C2E = gtx.FieldOffset("C2E", source=Edge, target=(Cell, C2EDim))

CellK = Field[Dims[Cell, K], float64]
EdgeK = Field[Dims[Edge, K], float64]
DivWeights = Field[Dims[Cell, C2EDim], float64]


@gtx.field_operator
def copy_level(theta: CellK) -> CellK:
    return theta


@gtx.field_operator
def interpolate_to_half_levels(theta: CellK, wgt: float64) -> CellK:
    # Half level k lies between full levels k - 1 and k.
    return wgt * theta + (1.0 - wgt) * theta(K - 1)


@gtx.field_operator
def level_above(theta: CellK) -> CellK:
    return theta(K - 1)


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def theta_at_half_levels(
    theta: CellK, wgt: float64, theta_ic: CellK, horizontal_start: int32, horizontal_end: int32, nlev: int32
):
    # The model top takes the top full level, the surface the lowest one.
    copy_level(theta, out=theta_ic, domain={Cell: (horizontal_start, horizontal_end), K: (0, 1)})
    interpolate_to_half_levels(
        theta, wgt, out=theta_ic, domain={Cell: (horizontal_start, horizontal_end), K: (1, nlev)}
    )
    level_above(theta, out=theta_ic, domain={Cell: (horizontal_start, horizontal_end), K: (nlev, nlev + 1)})


@gtx.field_operator
def mass_divergence(vn: EdgeK, geofac_div: DivWeights) -> CellK:
    return neighbor_sum(vn(C2E) * geofac_div, axis=C2EDim)


@gtx.field_operator
def update_w(w: CellK, theta_ic: CellK, div: CellK, dt: float64) -> CellK:
    # The divergence of the full levels above and below half level k.
    return w + dt * theta_ic * (div(K - 1) - div)


@gtx.field_operator
def zero_w(w: CellK) -> CellK:
    return 0.0 * w


@gtx.field_operator
def half_to_full(w: CellK) -> CellK:
    return 0.5 * (w + w(K + 1))


def half_level_granule(
    w, w_new, theta, vn, geofac_div, w_full, wgt: float64, dtime: float64, n_substeps: int32,
    horizontal_start: int32, horizontal_end: int32, n_cells: int32, nlev: int32,
):
    theta_ic = gtx.zeros({Cell: n_cells, K: nlev + 1}, dtype=float64)
    div = gtx.zeros({Cell: n_cells, K: nlev}, dtype=float64)
    dt = dtime / gtx.float64(n_substeps)
    theta_at_half_levels(
        theta, wgt, theta_ic, gtx.int32(horizontal_start), gtx.int32(horizontal_end), nlev, offset_provider={}
    )
    mass_divergence(vn, geofac_div, out=div, domain={Cell: (horizontal_start, horizontal_end), K: (0, nlev)})
    for _ in range(n_substeps):
        update_w(w, theta_ic, div, gtx.float64(dt), out=w_new,
                 domain={Cell: (horizontal_start, horizontal_end), K: (1, nlev)})
        zero_w(w, out=w_new, domain={Cell: (horizontal_start, horizontal_end), K: (0, 1)})
        zero_w(w, out=w_new, domain={Cell: (horizontal_start, horizontal_end), K: (nlev, nlev + 1)})
        w, w_new = w_new, w
    half_to_full(w, out=w_full, domain={Cell: (horizontal_start, horizontal_end), K: (0, nlev)})
