# gt4py: reject
# weir: reject 8:14 cannot add
# an int literal is int32; it does not promote to float64
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], float64]:
    return a + 1
