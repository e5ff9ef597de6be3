# gt4py: accept
# weir: accept
# a name can be rebound to a value of another type
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], int32]:
    x = a
    x = astype(x, int32)
    return x
