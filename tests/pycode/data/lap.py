import gt4py.next as gtx
IDim = gtx.Dimension("I"); JDim = gtx.Dimension("J")

@gtx.field_operator
def lap(f: gtx.Field[[IDim, JDim], float]) -> gtx.Field[[IDim, JDim], float]:
    return -4.0 * f + f(IDim + 1) + f(IDim - 1) + f(JDim + 1) + f(JDim - 1)

@gtx.program
def lap_program(f: gtx.Field[[IDim, JDim], float], out: gtx.Field[[IDim, JDim], float]):
    lap(f, out=out[1:-1, 1:-1])
