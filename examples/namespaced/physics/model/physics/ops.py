# Operators with chained shifts, tuple astype and class constants.
from typing import NamedTuple

import gt4py.next as gtx

from model.common import C2E, E2C, E2V, Consts, KDim, Koff, WEIGHT, wpfloat
from model.common.dims import CellKField, EdgeKField, VertexKField


@gtx.field_operator
def twice(c: CellKField[wpfloat]) -> CellKField[wpfloat]:
    return c + c


@gtx.field_operator
def edge_kernel(
    c: CellKField[wpfloat], v: VertexKField[wpfloat], w: wpfloat, lev: gtx.int32
) -> EdgeKField[wpfloat]:
    # The two elements are over different dimensions: each is shifted on its own.
    c_wp, v_wp = gtx.astype((c, v), wpfloat)
    up = c_wp(E2C[0])(Koff[1])  # a neighbour, then the level above
    mid = c(E2C[1])(KDim + 1)
    side = (c_wp * Consts.B)(E2C[1])  # an expression shifted
    dbl = twice(c_wp)(E2C[0])  # a call's result shifted
    grad = v_wp(E2V[0]) - v_wp(E2V[1])
    return up + mid * Consts.A + side + dbl * WEIGHT + grad * w + gtx.astype(lev, wpfloat) * Consts.C


@gtx.field_operator
def level_pair(c: CellKField[wpfloat]) -> tuple[CellKField[wpfloat], CellKField[wpfloat]]:
    return c(Koff[1]) * Consts.B, c(Koff[-1]) + Consts.A


class CellState(NamedTuple):
    """A named collection of fields passed as one argument."""

    c: CellKField[wpfloat]
    v: VertexKField[wpfloat]


@gtx.field_operator
def state_kernel(s: CellState, w: wpfloat) -> EdgeKField[wpfloat]:
    return s.c(E2C[1]) * w + s.v(E2V[0])
