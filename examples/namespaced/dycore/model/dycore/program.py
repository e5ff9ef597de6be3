# Programs of the dycore root, composed from operators of the physics root (the `model`
# namespace package spans three import roots: core, dycore and physics).
import gt4py.next as gtx

from ..common import CellDim, CellKField, EdgeDim, EdgeKField, KDim, Level, VertexKField, wpfloat
from ..physics import CellState, edge_kernel, level_pair, state_kernel


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def edge_program(
    c: CellKField[wpfloat],
    v: VertexKField[wpfloat],
    out: EdgeKField[wpfloat],
    alpha: wpfloat,
    n_edges: gtx.int32,
    nlev: gtx.int32,
):
    # Scalar expressions of parameters as arguments.
    edge_kernel(c, v, alpha * 0.5 + 1.0, nlev - 1, out=out, domain={EdgeDim: (0, n_edges), KDim: (0, nlev - 1)})


@gtx.program
def pair_program(c: CellKField[wpfloat], a: CellKField[wpfloat], b: CellKField[wpfloat], n_cells: gtx.int32, nlev: gtx.int32):
    # One domain per output: `a` reads the level above, `b` the level below.
    level_pair(
        c,
        out=(a, b),
        domain=({CellDim: (0, n_cells), KDim: (0, nlev - 1)}, {CellDim: (0, n_cells), KDim: (Level.TOP, nlev)}),
    )


@gtx.program
def state_program(c: CellKField[wpfloat], v: VertexKField[wpfloat], out: EdgeKField[wpfloat]):
    # A named collection built from program parameters.
    state_kernel(CellState(c, v=v), 3.0, out=out)
