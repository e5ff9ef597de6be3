# gt4py: reject
# weir: reject 8:5 for
# loops are not part of the language
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], float64]:
    for i in range(3):
        a = a + 1.0
    return a
