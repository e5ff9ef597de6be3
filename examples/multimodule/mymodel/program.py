# A program composed from operators imported from another module of the package.
import gt4py.next as gtx

from mymodel.common import dimension as dims
from mymodel.common.dimension import CellKField, EdgeKField, vpfloat
from mymodel.ops import cell_average, vertical_mean
from mymodel import ops  # re-exported names are reachable as ops.X too


@gtx.field_operator
def smoothed_cell_average(
    e: EdgeKField[vpfloat], weights: gtx.Field[gtx.Dims[dims.CellDim, dims.C2EDim], vpfloat]
) -> CellKField[vpfloat]:
    return vertical_mean(cell_average(e, weights))


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def smooth(
    e: EdgeKField[vpfloat],
    weights: gtx.Field[gtx.Dims[dims.CellDim, dims.C2EDim], vpfloat],
    out: CellKField[vpfloat],
    n_cells: gtx.int32,
    n_levels: gtx.int32,
):
    smoothed_cell_average(e, weights, out=out, domain={dims.CellDim: (0, n_cells), dims.KDim: (0, n_levels - 1)})


@gtx.program
def potential_program(height: CellKField[vpfloat], area: dims.CellField[vpfloat], out: CellKField[vpfloat]):
    ops.potential(height, area, out=out)
