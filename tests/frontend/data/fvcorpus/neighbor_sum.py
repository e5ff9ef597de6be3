# gt4py: accept
# weir: accept
# a reduction over the local dimension of a neighbour shift
from grid import *

@gtx.field_operator
def f(a: Field[[Vertex, K], float64]) -> Field[[Edge, K], float64]:
    return neighbor_sum(a(E2V), axis=E2VDim)
