# gt4py: reject
# weir: reject 8:11 is only allowed as a shift argument
# `I + 1` means a shift only as a call argument
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], float64]:
    x = I + 1
    return a
