# gt4py: reject
# weir: reject 11:14 must be Field[[I], float64]
# argument types must match the parameters exactly
from grid import *

@gtx.field_operator
def g(a: Field[[I], float64]) -> Field[[I], float64]:
    return a
@gtx.field_operator
def f(a: Field[[I], float32]) -> Field[[I], float64]:
    return g(a)
