# gt4py: reject
# weir: reject 8:12 only fields can be shifted
# scalars cannot be shifted
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64], s: float64) -> Field[[I], float64]:
    return s(I + 1) * a
