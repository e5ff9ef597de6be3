# A running sum down each column (a scan over K) of an (I, K) field: the program of a user's
# report (a zero-length K on the cpu backend was refused over strides).
import gt4py.next as gtx
from gt4py.next import Field, float64

I = gtx.Dimension("I")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
IK = Field[[I, K], float64]


@gtx.scan_operator(axis=K, forward=True, init=0.0)
def cumsum(acc: float64, v: float64) -> float64:
    return acc + v


@gtx.program
def column_sum(v: IK, out: IK):
    cumsum(v, out=out)
