# gt4py: reject
# weir: reject 11:28 give either domain= or a sliced out=
# either a sliced out= or domain=
from grid import *

@gtx.field_operator
def g(a: Field[[I], float64]) -> Field[[I], float64]:
    return a
@gtx.program
def p(a: Field[[I], float64], b: Field[[I], float64]):
    g(a, out=b[1:], domain={I: (1, 3)})
