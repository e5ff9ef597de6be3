# gt4py: reject
# weir: reject 11:7 program arguments must be parameters
# computations on fields belong in a field operator
from grid import *

@gtx.field_operator
def g(a: Field[[I], float64]) -> Field[[I], float64]:
    return a
@gtx.program
def p(a: Field[[I], float64], b: Field[[I], float64]):
    g(a + a, out=b)
