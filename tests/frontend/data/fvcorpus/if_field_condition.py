# gt4py: reject
# weir: reject 8:8 must be a scalar bool
# if statements need a scalar condition
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], float64]:
    if a > 0.0:
        return a
    return -a
