# Module-level constants computed at import, as a climate model computes them.
import math

import gt4py.next as gtx
from gt4py.next import Field, float64

IDim = gtx.Dimension("I")


def levels(n):
    if n > 10:
        return n - 2
    return n


N = levels(math.floor(12.7))
BAD = math.gamma(-1.0)


@gtx.field_operator
def copy(f: Field[[IDim], float64]) -> Field[[IDim], float64]:
    return f


@gtx.field_operator
def scale_bad(f: Field[[IDim], float64]) -> Field[[IDim], float64]:
    return f * BAD


@gtx.program
def p(f: Field[[IDim], float64], out: Field[[IDim], float64]):
    copy(f, out=out, domain={IDim: (0, N)})
