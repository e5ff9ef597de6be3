# A backward scan over part of the columns, its K range given by scalar arguments (domain= of a
# @program call bounded by k0 and k1): test_domain.py.
import gt4py.next as gtx
from gt4py.next import Field, float64, int32

I = gtx.Dimension("I")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
F = Field[[I, K], float64]


@gtx.scan_operator(axis=K, forward=False, init=0.0)
def bsum(acc: float64, v: float64) -> float64:
    return acc + v


@gtx.program
def part_scan(v: F, o: F, k0: int32, k1: int32):
    bsum(v, out=o, domain={I: (1, 3), K: (k0, k1)})
