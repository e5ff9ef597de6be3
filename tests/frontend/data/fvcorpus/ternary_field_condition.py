# gt4py: reject
# weir: reject 8:17 must be a scalar bool
# a field condition needs where
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], float64]:
    return a if a > 0.0 else -a
