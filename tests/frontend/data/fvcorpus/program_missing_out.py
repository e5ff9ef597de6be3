# gt4py: reject
# weir: reject 11:5 missing 'out='
# a program call names its outputs
from grid import *

@gtx.field_operator
def g(a: Field[[I], float64]) -> Field[[I], float64]:
    return a
@gtx.program
def p(a: Field[[I], float64], b: Field[[I], float64]):
    g(a)
