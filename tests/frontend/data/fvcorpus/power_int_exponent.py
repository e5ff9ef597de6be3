# gt4py: accept
# weir: accept
# a float field to an integer power
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], float64]:
    return a ** 2
