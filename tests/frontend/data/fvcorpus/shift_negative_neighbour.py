# gt4py: reject
# weir: reject 8:18 must not be negative
# neighbour indices are >= 0
from grid import *

@gtx.field_operator
def f(a: Field[[Vertex], float64]) -> Field[[Edge], float64]:
    return a(E2V[-1])
