# gt4py: accept
# weir: accept
# operators called with keyword arguments
from grid import *

@gtx.field_operator
def g(a: Field[[I], float64], b: Field[[I], float64]) -> Field[[I], float64]:
    return a - b
@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], float64]:
    return g(b=a, a=a)
