# gt4py: accept
# weir: accept
# float64 fields combine element-wise; dims broadcast in canonical order
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64], b: Field[[K], float64]) -> Field[[I, K], float64]:
    return a * b + 1.0
