# gt4py: reject
# weir: accept
# gt4py (issue GridTools/gt4py#1180) fails on `s + 1.0` as an argument in its lowering; weir computes scalar argument expressions
from grid import *

@gtx.field_operator
def g(a: Field[[I], float64], s: float64) -> Field[[I], float64]:
    return a * s
@gtx.program
def p(a: Field[[I], float64], b: Field[[I], float64], s: float64):
    g(a, s + 1.0, out=b)
