# gt4py: accept
# weir: accept
# domain= bounds are int expressions of parameters
from grid import *

@gtx.field_operator
def g(a: Field[[I], float64]) -> Field[[I], float64]:
    return a(I + 1)
@gtx.program
def p(a: Field[[I], float64], b: Field[[I], float64], n: int32):
    g(a, out=b, domain={I: (0, n - 1)})
