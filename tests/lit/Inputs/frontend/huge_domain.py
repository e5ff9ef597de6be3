# Module-level integer constants beyond int64 (issue 35, kind 7): Python's ints are unbounded,
# weir's constants are 64 bits, so each is refused at its operator instead of wrapping.
import gt4py.next as gtx
from gt4py.next import Field, float64

IDim = gtx.Dimension("I")
N = 2**64 + 4
M = 2**100
SEVEN = 2**62 + (2**62 - 1) - 9223372036854775800  # int64's largest value minus ..800


@gtx.field_operator
def copy(f: Field[[IDim], float64]) -> Field[[IDim], float64]:
    return f


@gtx.program
def p(f: Field[[IDim], float64], out: Field[[IDim], float64]):
    copy(f, out=out, domain={IDim: (0, N)})


@gtx.program
def q(f: Field[[IDim], float64], out: Field[[IDim], float64]):
    copy(f, out=out, domain={IDim: (0, M)})


@gtx.program
def r(f: Field[[IDim], float64], out: Field[[IDim], float64]):
    copy(f, out=out, domain={IDim: (0, SEVEN)})
