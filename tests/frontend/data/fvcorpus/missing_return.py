# gt4py: reject
# weir: reject 7:1 must end with a return
# every path returns
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], float64]:
    b = a
