# An orchestrated loop over an unstructured program whose time step comes from np.max of a Cell
# field: on a mesh partition each rank would reduce its halo rows too, so `weir run --parts`
# refuses it naming the reduction and the field (docs/adr/0060, section "2026-12-06, session
# 29"; tests/mpi/CMakeLists.txt).
import gt4py.next as gtx
import numpy as np
from gt4py.next import Dims, Field, float64, int32, neighbor_sum

Cell = gtx.Dimension("Cell")
Edge = gtx.Dimension("Edge")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
C2EDim = gtx.Dimension("C2E", kind=gtx.DimensionKind.LOCAL)
C2E = gtx.FieldOffset("C2E", source=Edge, target=(Cell, C2EDim))

CellK = Field[Dims[Cell, K], float64]
EdgeK = Field[Dims[Edge, K], float64]


@gtx.field_operator
def scaled_divergence(vn: EdgeK, psi: CellK, dt: float64) -> CellK:
    return psi + dt * neighbor_sum(vn(C2E), axis=C2EDim)


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def divergence_step(vn: EdgeK, psi: CellK, dt: float64, out: CellK):
    scaled_divergence(vn, psi, dt, out=out)


def peak_limited(vn: EdgeK, psi: CellK, psi_next: CellK, limit: float64, steps: int32):
    for _ in range(steps):
        peak = np.max(psi)
        divergence_step(vn, psi, limit / peak, psi_next, offset_provider={})
        psi, psi_next = psi_next, psi
