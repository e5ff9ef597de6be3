# gt4py: accept
# weir: accept
# &, |, ^ and ~ on bool fields
from grid import *

@gtx.field_operator
def f(a: Field[[I], bool], b: Field[[I], bool]) -> Field[[I], bool]:
    return (a & b) | ~(a ^ b)
