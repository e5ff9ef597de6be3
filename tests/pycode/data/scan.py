# A tridiagonal (Thomas algorithm) solver written as two vertical scans.
from typing import TypeAlias

import gt4py.next as gtx
from gt4py.next import Dims, Field, float64

CellDim = gtx.Dimension("Cell")
KDim = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
CellKField: TypeAlias = Field[Dims[CellDim, KDim], float64]


@gtx.scan_operator(axis=KDim, forward=True, init=(0.0, 0.0))
def tridiag_forward(
    state: tuple[float64, float64], a: float64, b: float64, c: float64, d: float64
) -> tuple[float64, float64]:
    """Forward sweep: returns (c', d')."""
    (c_prev, d_prev) = state
    denom = b - a * c_prev
    return c / denom, (d - a * d_prev) / denom


@gtx.scan_operator(axis=KDim, forward=False, init=0.0)
def tridiag_backward(x_next: float64, cp: float64, dp: float64) -> float64:
    return dp - cp * x_next


@gtx.field_operator
def solve(a: CellKField, b: CellKField, c: CellKField, d: CellKField) -> CellKField:
    cp, dp = tridiag_forward(a, b, c, d)
    return tridiag_backward(cp, dp)


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def solve_program(
    a: CellKField, b: CellKField, c: CellKField, d: CellKField, x: CellKField, n: gtx.int32
):
    solve(a, b, c, d, out=x, domain={CellDim: (0, n), KDim: (0, 80)})
