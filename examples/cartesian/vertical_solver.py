# Implicit vertical diffusion: solve a tridiagonal system a*x[k-1] + b*x[k] + c*x[k+1] = d per
# column with the Thomas algorithm, written as two scans along K. The forward sweep carries the
# modified coefficients (c', d'); the backward sweep substitutes back from the top.
from typing import TypeAlias

import gt4py.next as gtx
from gt4py.next import Dims, Field, float64

IDim = gtx.Dimension("I")
JDim = gtx.Dimension("J")
KDim = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)

ColumnField: TypeAlias = Field[Dims[IDim, JDim, KDim], float64]


@gtx.scan_operator(axis=KDim, forward=True, init=(0.0, 0.0))
def thomas_forward(
    carry: tuple[float64, float64], a: float64, b: float64, c: float64, d: float64
) -> tuple[float64, float64]:
    c_prev, d_prev = carry
    denominator = b - a * c_prev
    return c / denominator, (d - a * d_prev) / denominator


@gtx.scan_operator(axis=KDim, forward=False, init=0.0)
def thomas_backward(x_above: float64, c_mod: float64, d_mod: float64) -> float64:
    return d_mod - c_mod * x_above


@gtx.field_operator
def tridiagonal_solve(
    a: ColumnField, b: ColumnField, c: ColumnField, d: ColumnField
) -> ColumnField:
    c_mod, d_mod = thomas_forward(a, b, c, d)
    return thomas_backward(c_mod, d_mod)


@gtx.program
def vertical_solver(
    a: ColumnField, b: ColumnField, c: ColumnField, d: ColumnField, x: ColumnField,
    nk: gtx.int32,
):
    tridiagonal_solve(a, b, c, d, out=x, domain={KDim: (0, nk)})
