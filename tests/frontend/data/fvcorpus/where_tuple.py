# gt4py: accept
# weir: accept
# where on tuples, element by element
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64], b: Field[[I], float64]) -> tuple[Field[[I], float64], Field[[I], float64]]:
    return where(a > b, (a, b), (b, a))
