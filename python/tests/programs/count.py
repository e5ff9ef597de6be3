# An orchestrated time loop whose state counts its iterations: each step adds 1 to every point
# and the two time levels swap, so after n steps the newest level holds n everywhere and the
# other n - 1 (test_run_interrupt.py stops it with Ctrl-C and checks that state).
import gt4py.next as gtx
from gt4py.next import Field, float64, int64

I = gtx.Dimension("I")
J = gtx.Dimension("J")
IJ = Field[[I, J], float64]


@gtx.field_operator
def plus_one(u: IJ) -> IJ:
    return u + 1.0


@gtx.program
def increment(u: IJ, out: IJ):
    plus_one(u, out=out)


def count(u: IJ, v: IJ, steps: int64):
    for _ in range(steps):
        increment(u, v, offset_provider={})
        u, v = v, u
