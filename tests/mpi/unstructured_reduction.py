# Orchestrated loops over unstructured programs whose time step comes from a global reduction of
# a field on a partitioned entity (docs/adr/0060, section "2026-12-06, session 30"): on a mesh
# partition each rank reduces its owned rows only and an MPI_Allreduce combines the ranks'
# values. Every reduced field has halo rows that would change the result if counted: `weir run
# --parts` leaves them NaN until an exchange fills them, and the reductions run before any
# exchange of their field (psi in the first step) or of fields no call reads at halo rows
# (`mass`, `vn`). tests/mpi/CMakeLists.txt runs them on 1 to 4 parts; `peak_window` reduces a
# slice along Cell, which a partition refuses at its line.
import gt4py.next as gtx
import numpy as np
from gt4py.next import Dims, Field, float64, int32, neighbor_sum

Cell = gtx.Dimension("Cell")
Edge = gtx.Dimension("Edge")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
C2EDim = gtx.Dimension("C2E", kind=gtx.DimensionKind.LOCAL)
E2CDim = gtx.Dimension("E2C", kind=gtx.DimensionKind.LOCAL)
C2E = gtx.FieldOffset("C2E", source=Edge, target=(Cell, C2EDim))
E2C = gtx.FieldOffset("E2C", source=Cell, target=(Edge, E2CDim))

CellK = Field[Dims[Cell, K], float64]
EdgeK = Field[Dims[Edge, K], float64]


@gtx.field_operator
def upwind_flux(psi: CellK, vn: EdgeK) -> EdgeK:
    return vn * (0.5 * (psi(E2C[0]) + psi(E2C[1])))


@gtx.field_operator
def scaled_divergence(flux: EdgeK, psi: CellK, dt: float64) -> CellK:
    return psi + dt * neighbor_sum(flux(C2E), axis=C2EDim)


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def flux_step(psi: CellK, vn: EdgeK, out: EdgeK):
    upwind_flux(psi, vn, out=out)


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def divergence_step(flux: EdgeK, psi: CellK, dt: float64, out: CellK):
    scaled_divergence(flux, psi, dt, out=out)


# np.max of the field the loop writes (after a swap: the other buffer), every step.
def peak_limited(vn: EdgeK, flux: EdgeK, psi: CellK, psi_next: CellK, limit: float64, steps: int32):
    for _ in range(steps):
        peak = np.max(psi)
        flux_step(psi, vn, flux, offset_provider={})
        divergence_step(flux, psi, limit / peak, psi_next, offset_provider={})
        psi, psi_next = psi_next, psi


# np.sum of an Edge input no call reads (`mass`: multiples of 1/8, so that every order of the sum
# is exact and the ranks' sum bit-identical to one rank's), np.max(np.abs(vn)) of an Edge input
# read only at its own rows (never exchanged), and np.min of the field the loop writes.
def mass_limited(vn: EdgeK, flux: EdgeK, psi: CellK, psi_next: CellK, mass: EdgeK, limit: float64, steps: int32):
    total = np.sum(mass)
    speed = np.max(np.abs(vn))
    for _ in range(steps):
        low = np.min(psi)
        flux_step(psi, vn, flux, offset_provider={})
        divergence_step(flux, psi, limit * low / (total * speed), psi_next, offset_provider={})
        psi, psi_next = psi_next, psi


# Refused on a partition: a slice along Cell is a range of the global numbering.
def peak_window(vn: EdgeK, flux: EdgeK, psi: CellK, psi_next: CellK, limit: float64, steps: int32):
    for _ in range(steps):
        peak = np.max(psi[1:, :])
        flux_step(psi, vn, flux, offset_provider={})
        divergence_step(flux, psi, limit / peak, psi_next, offset_provider={})
        psi, psi_next = psi_next, psi
