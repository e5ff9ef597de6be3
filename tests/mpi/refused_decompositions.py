# Programs `weir run --decompose` must refuse before running (docs/adr/0057, 2026-12-06 session
# 29): each would give a wrong result or a run-time error deep in a call if it were split.
import gt4py.next as gtx
from gt4py.next import Field, float64

I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
IJK = Field[[I, J, K], float64]
IJ = Field[[I, J], float64]


# A scan runs along K point after point: split along K, each rank would restart the sum.
@gtx.scan_operator(axis=K, forward=True, init=0.0)
def running_sum(acc: float64, v: float64) -> float64:
    return acc + v


@gtx.program
def column_sum(v: IJK, out: IJK):
    running_sum(v, out=out)


@gtx.field_operator
def twice(a: IJK) -> IJK:
    return 2.0 * a


# The domain is given by numbers, not by the fields' size: no frame splits it.
@gtx.program
def fixed_domain(v: IJK, out: IJK):
    twice(v, out=out, domain={I: (0, 8), J: (0, 5), K: (0, 2)})


@gtx.field_operator
def shifted_sum(a: IJ) -> IJ:
    return a(I + 1) + a(I - 1)


@gtx.program
def shifted_sum_step(a: IJ, out: IJ):
    shifted_sum(a, out=out[1:-1, :])


# A local field keeps its global size on every rank.
def local_scratch(u: IJ, u_next: IJ):
    scratch = gtx.zeros({I: 13, J: 11}, dtype=float64)
    shifted_sum_step(u, scratch, offset_provider={})
    shifted_sum_step(scratch, u_next, offset_provider={})
