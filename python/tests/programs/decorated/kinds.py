# Definitions under @weir.program, in a module Python imports (with gt4py or weir's stand-in for
# it): @field_operators (one calling a @scan_operator), a @program and an orchestration function
# (a scan operator itself: decorated/scan_direct.py). Python never runs their bodies; weir reads
# this file.
import gt4py.next as gtx
from gt4py.next import float64, int32

import weir
from decorated.common import I, IJ, IJK, K


@weir.program(backend=weir.backends.cpu)
@gtx.field_operator
def axpy(a: float64, x: IJ, y: IJ) -> IJ:
    return a * x + y


@gtx.field_operator
def shifted_difference(x: IJ) -> IJ:
    return x(I + 1) - x


@weir.program
@gtx.program
def difference_program(x: IJ, out: IJ):
    shifted_difference(x, out=out[:-1, :])


@gtx.scan_operator(axis=K, forward=True, init=0.0)
def column_sum(total: float64, x: float64) -> float64:
    return total + x


@weir.program(backend=weir.backends.embedded)
@gtx.field_operator
def column_sums(x: IJK) -> IJK:
    return column_sum(x)


@gtx.program
def axpy_program(a: float64, x: IJ, y: IJ, out: IJ):
    axpy(a, x, y, out=out)


@weir.program(backend=weir.backends.cpu)
def axpy_twice(a: float64, x: IJ, y: IJ, tmp: IJ, out: IJ):
    axpy_program(a, x, y, tmp, offset_provider={})
    axpy_program(a, x, tmp, out, offset_provider={})


# A time loop (user32 H17: `for` and `while` under @weir.program failed the whole module's
# import, parsed as a field-view body).
@weir.program(backend=weir.backends.cpu)
def axpy_steps(a: float64, x: IJ, y: IJ, tmp: IJ, n: int32):
    for _ in range(n):
        axpy_program(a, x, y, tmp, offset_provider={})
        axpy_program(a, x, tmp, y, offset_provider={})
    k = 0
    while k < n:
        axpy_program(a, x, y, tmp, offset_provider={})
        axpy_program(-1.0, x, tmp, y, offset_provider={})
        k = k + 1

