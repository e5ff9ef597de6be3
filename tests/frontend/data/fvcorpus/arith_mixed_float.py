# gt4py: reject
# weir: reject 8:14 cannot add
# no implicit promotion between float64 and float32
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64], b: Field[[I], float32]) -> Field[[I], float64]:
    return a + b
