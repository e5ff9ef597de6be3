# A domain= bounded by scalar arguments along a split dimension (docs/adr/0057, 2026-12-06,
# session 29): `weir run --decompose I,J` refuses it at the program's line, since ni and nj are
# the whole grid's sizes and mean another range on a rank (an out= slice decomposes).
import gt4py.next as gtx
from gt4py.next import Dims, Field, float64

I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
IJK = Field[Dims[I, J, K], float64]


@gtx.field_operator
def lap(f: IJK) -> IJK:
    return -4.0 * f + f(I + 1) + f(I - 1) + f(J + 1) + f(J - 1)


@gtx.program
def lap_domain(f: IJK, out: IJK, ni: gtx.int32, nj: gtx.int32, nk: gtx.int32):
    lap(f, out=out, domain={I: (1, ni - 1), J: (1, nj - 1), K: (0, nk)})
