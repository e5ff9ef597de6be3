# gt4py: accept
# weir: reject 8:5 is not ASCII
# non-ASCII identifiers (PEP 3131) are valid Python; weir's names become SDFG and C++ names
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], float64]:
    température = a * 2.0
    return température
