# gt4py: reject
# weir: reject 12:12 unknown name 'b'
# a name bound in one branch only is not defined after the if
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64], c: bool) -> Field[[I], float64]:
    if c:
        b = a
    else:
        d = a
    return b
