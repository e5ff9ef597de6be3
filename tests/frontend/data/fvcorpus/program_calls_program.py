# gt4py: reject
# weir: reject 14:5 is not a field_operator or scan_operator
# programs call operators only
from grid import *

@gtx.field_operator
def g(a: Field[[I], float64]) -> Field[[I], float64]:
    return a
@gtx.program
def q(a: Field[[I], float64], b: Field[[I], float64]):
    g(a, out=b)
@gtx.program
def p(a: Field[[I], float64], b: Field[[I], float64]):
    q(a, b)
