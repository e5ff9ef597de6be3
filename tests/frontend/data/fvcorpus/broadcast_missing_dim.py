# gt4py: reject
# weir: reject 8:25 dimension 'I' is missing
# broadcast keeps every dimension the value has
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[K], float64]:
    return broadcast(a, (K,))
