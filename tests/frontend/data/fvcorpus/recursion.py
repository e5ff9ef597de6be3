# gt4py: reject
# weir: reject 8:12 recursive
# field operators cannot be recursive
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], float64]:
    return f(a)
