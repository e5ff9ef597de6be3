# gt4py: reject
# weir: reject 8:33 must be a LOCAL dimension
# the axis of a reduction is a local dimension
from grid import *

@gtx.field_operator
def f(a: Field[[I, K], float64]) -> Field[[I], float64]:
    return neighbor_sum(a, axis=K)
