# gt4py: reject
# weir: reject 8:18 comparison chains
# chained comparisons
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64], b: Field[[I], float64]) -> Field[[I], bool]:
    return a < b < a
