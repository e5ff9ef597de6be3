# Point-wise field operators for the Python tests: a scalar argument, a tuple result.
import gt4py.next as gtx
from gt4py.next import Field, float32, float64, int32

I = gtx.Dimension("I")
J = gtx.Dimension("J")
IJ = Field[[I, J], float64]


@gtx.field_operator
def axpy(a: float64, x: IJ, y: IJ) -> IJ:
    return a * x + y


@gtx.field_operator
def sum_diff(x: IJ, y: IJ) -> tuple[IJ, IJ]:
    return x + y, x - y


@gtx.program
def axpy_program(a: float64, x: IJ, y: IJ, out: IJ):
    axpy(a, x, y, out=out)


IJi = Field[[I, J], int32]


@gtx.field_operator
def times(n: int32, x: IJi) -> IJi:
    return n * x


IJf = Field[[I, J], float32]


@gtx.field_operator
def scale32(s: float32, x: IJf) -> IJf:
    return s * x
