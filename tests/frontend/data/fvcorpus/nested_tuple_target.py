# gt4py: reject
# weir: reject 8:8 nested targets are not supported
# gt4py's unpacking targets are names and one starred name (GridTools/gt4py#1004), never nested tuples
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], float64]:
    x, (y, z) = (a, (a, a))
    return x + y + z
