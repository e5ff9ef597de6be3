# gt4py: accept
# weir: accept
# astype of a tuple converts every element
from grid import *

@gtx.field_operator
def f(a: Field[[I], float32], b: Field[[K], float32]) -> tuple[Field[[I], float64], Field[[K], float64]]:
    return astype((a, b), float64)
