# A scan's result read at an offset: gt4py cannot lower it, weir refuses it at the shift.
import gt4py.next as gtx
from gt4py.next import Field, float64

I = gtx.Dimension("I")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)


@gtx.scan_operator(axis=K, forward=True, init=0.0)
def cumsum(acc: float64, x: float64) -> float64:
    return acc + x


@gtx.field_operator
def shifted(f: Field[[I, K], float64]) -> Field[[I, K], float64]:
    x = cumsum(f)
    return x(I + 1)


@gtx.program
def p(f: Field[[I, K], float64], out: Field[[I, K], float64]):
    shifted(f, out=out)
