# A type error for the Python tests: adding a field and a bool.
import gt4py.next as gtx
from gt4py.next import Field, float64

I = gtx.Dimension("I")


@gtx.field_operator
def bad(f: Field[[I], float64]) -> Field[[I], float64]:
    return f + True
