# gt4py: accept
# weir: accept
# `x if c else y` with a scalar bool condition
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64], c: bool) -> Field[[I], float64]:
    return a if c else -a
