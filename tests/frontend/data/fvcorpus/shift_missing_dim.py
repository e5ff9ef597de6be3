# gt4py: reject
# weir: reject 8:14 it has no dimension 'K'
# shifting along a dimension the field does not have
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], float64]:
    return a(Koff[1])
