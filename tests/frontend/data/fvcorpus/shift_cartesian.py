# gt4py: accept
# weir: accept
# Cartesian shifts: `I + 1`, `Ioff[-1]`
from grid import *

@gtx.field_operator
def f(a: Field[[I, K], float64]) -> Field[[I, K], float64]:
    return a(I + 1) + a(Ioff[-1]) + a(Koff[1])
