import gt4py.next as gtx
I = gtx.Dimension("I")
@gtx.field_operator
def f(a: gtx.Field[[I], gtx.float64], b: gtx.Field[[I], gtx.float32]) -> gtx.Field[[I], gtx.float64]:
    return a + b
