# gt4py: reject
# weir: reject 8:20 takes only a literal
# dtype constructors convert literals; astype converts values
from grid import *

@gtx.field_operator
def f(a: Field[[I], int32]) -> Field[[I], float64]:
    return float64(a)
