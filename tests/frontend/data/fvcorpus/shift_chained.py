# gt4py: accept
# weir: accept
# a shift of a shift (any field expression can be shifted)
from grid import *

@gtx.field_operator
def f(a: Field[[Vertex, K], float64]) -> Field[[Edge, K], float64]:
    return a(E2V[0])(Koff[1]) + (a + a)(E2V[1])(K + 1)
