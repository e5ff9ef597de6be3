# @weir.program on a @scan_operator: weir.load refuses to run one directly (its parameters are
# values at one level of a column), so importing this module raises that located error.
import gt4py.next as gtx
from gt4py.next import float64

import weir
from decorated.common import IJK, K


@weir.program
@gtx.scan_operator(axis=K, forward=False, init=1.0)
def column_product(product: float64, x: float64) -> float64:
    return product * x


@gtx.field_operator
def column_products(x: IJK) -> IJK:
    return column_product(x)
