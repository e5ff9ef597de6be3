# gt4py: accept
# weir: accept
# where with scalar branches gives a field over the mask's dims
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], float64]:
    return where(a > 0.0, 1.0, 0.0)
