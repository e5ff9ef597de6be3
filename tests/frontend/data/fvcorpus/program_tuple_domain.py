# gt4py: accept
# weir: accept
# one domain per element of a tuple out=
from grid import *

@gtx.field_operator
def g(a: Field[[I], float64]) -> tuple[Field[[I], float64], Field[[I], float64]]:
    return a(I + 1), a(I - 1)
@gtx.program
def p(a: Field[[I], float64], b: Field[[I], float64], c: Field[[I], float64], n: int32):
    g(a, out=(b, c), domain=({I: (0, n - 1)}, {I: (1, n)}))
