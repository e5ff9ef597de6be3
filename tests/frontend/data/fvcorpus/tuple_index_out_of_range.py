# gt4py: reject
# weir: reject 9:14 out of range
# tuple index out of range
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], float64]:
    t = (a, a)
    return t[2]
