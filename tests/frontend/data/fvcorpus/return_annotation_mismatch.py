# gt4py: reject
# weir: reject 8:12 is annotated to return
# the returned type must be the annotated one
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], float32]:
    return a
