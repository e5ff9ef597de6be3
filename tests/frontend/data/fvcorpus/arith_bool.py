# gt4py: reject
# weir: reject 8:14 arithmetic on bool
# arithmetic on bool fields
from grid import *

@gtx.field_operator
def f(a: Field[[I], bool]) -> Field[[I], bool]:
    return a + a
