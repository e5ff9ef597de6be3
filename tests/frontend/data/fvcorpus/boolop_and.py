# gt4py: reject
# weir: reject 8:12 is not supported
# Python's `and`/`or` are not field operations
from grid import *

@gtx.field_operator
def f(a: Field[[I], bool], b: Field[[I], bool]) -> Field[[I], bool]:
    return a and b
