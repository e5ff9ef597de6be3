# gt4py: accept
# weir: accept
# tuples indexed by integer literals
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], float64]:
    t = (a, a + 1.0)
    return t[1] - t[-2]
