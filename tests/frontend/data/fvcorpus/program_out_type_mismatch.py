# gt4py: reject
# weir: reject 11:14 out= has type
# out= must have the operator's result type
from grid import *

@gtx.field_operator
def g(a: Field[[I], float64]) -> Field[[I], float64]:
    return a
@gtx.program
def p(a: Field[[I], float64], b: Field[[I], float32]):
    g(a, out=b)
