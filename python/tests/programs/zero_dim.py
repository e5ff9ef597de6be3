# 0-d fields (gt4py's Field[[], T]): read-only ones are passed as 0-d arrays or numbers, written
# ones (out=) as 0-d arrays. Used by test_zero_dim.py.
import gt4py.next as gtx
from gt4py.next import Dims, Field, broadcast, float64

I = gtx.Dimension("I")
Zero = Field[Dims[()], float64]


@gtx.field_operator
def difference_and_product(a: Zero, b: float64) -> tuple[Zero, Zero]:
    return a - b, a * b


@gtx.field_operator
def scaled(s: Zero, f: Field[[I], float64]) -> Field[[I], float64]:
    return f * broadcast(s, (I,))


@gtx.program
def chain(a: Zero, b: float64, s: Zero, p: Zero, f: Field[[I], float64], out: Field[[I], float64]):
    difference_and_product(a, b, out=(s, p))
    scaled(s, f, out=out)
