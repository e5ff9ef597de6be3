# gt4py: reject
# weir: reject 7:7 needs a type annotation
# parameters are annotated
from grid import *

@gtx.field_operator
def f(a) -> Field[[I], float64]:
    return a
