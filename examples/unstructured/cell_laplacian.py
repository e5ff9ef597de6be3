# Cell-centred operators on a triangular mesh through C2E2CO, a cell followed by its three
# edge-neighbour cells (origin first, as in ICON): a weighted Laplacian (weights per cell and neighbour, the
# origin weight is minus the sum of the others for a consistent operator), and the local
# extrema a slope limiter would clip against.
import gt4py.next as gtx
from gt4py.next import Dims, Field, float64, max_over, min_over, neighbor_sum

Cell = gtx.Dimension("Cell")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
C2E2CODim = gtx.Dimension("C2E2CO", kind=gtx.DimensionKind.LOCAL)

C2E2CO = gtx.FieldOffset("C2E2CO", source=Cell, target=(Cell, C2E2CODim))

CellK = Field[Dims[Cell, K], float64]


@gtx.field_operator
def weighted_laplacian(psi: CellK, weights: Field[Dims[Cell, C2E2CODim], float64]) -> CellK:
    return neighbor_sum(psi(C2E2CO) * weights, axis=C2E2CODim)


@gtx.field_operator
def neighbourhood_bounds(psi: CellK) -> tuple[CellK, CellK]:
    around = psi(C2E2CO)
    return max_over(around, axis=C2E2CODim), min_over(around, axis=C2E2CODim)


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def cell_laplacian(psi: CellK, weights: Field[Dims[Cell, C2E2CODim], float64], lap: CellK):
    weighted_laplacian(psi, weights, out=lap)


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def cell_bounds(psi: CellK, psi_max: CellK, psi_min: CellK):
    neighbourhood_bounds(psi, out=(psi_max, psi_min))
