# gt4py: reject
# weir: reject 8:14 operator '%' needs integer operands
# gt4py: `%` on floats is not a documented builtin; weir asks for fmod
from grid import *

@gtx.field_operator
def f(a: Field[[I], float64]) -> Field[[I], float64]:
    return a % 2.0
