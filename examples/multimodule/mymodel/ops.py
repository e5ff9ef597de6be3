# Stencils of the model, written against the shared dimensions and type aliases.
from gt4py.next import broadcast, neighbor_sum
import gt4py.next as gtx

from mymodel.common import dimension as dims
from mymodel.common.dimension import C2E, C2EDim, Koff, vpfloat, wpfloat
from .common.dimension import CellKField, EdgeKField

import numpy as np  # only used by the tests below, never by a stencil

GRAV = 9.80665
HALF = GRAV / GRAV / 2.0


@gtx.field_operator
def cell_average(e: EdgeKField[vpfloat], weights: gtx.Field[gtx.Dims[dims.CellDim, C2EDim], vpfloat]) -> CellKField[vpfloat]:
    return neighbor_sum(e(C2E) * weights, axis=C2EDim)


@gtx.field_operator
def vertical_mean(f: CellKField[vpfloat]) -> CellKField[vpfloat]:
    return vpfloat("0.5") * (f + f(Koff[1]))


@gtx.field_operator
def potential(height: CellKField[wpfloat], area: dims.CellField[wpfloat]) -> CellKField[wpfloat]:
    return GRAV * height * broadcast(area, (dims.CellDim, dims.KDim)) * HALF


def _reference(x):
    return np.asarray(x) * 2
