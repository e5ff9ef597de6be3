# Scans along K on ranks (docs/adr/0057, 2026-12-06, session 29): K is never split, so a column
# solver needs no exchange inside its scan, but an input it reads shifted horizontally does
# (implicit_column: the right-hand side is u plus a horizontal Laplacian of u), and in a time
# loop the field a scan writes is exchanged before the next call reads it shifted (column_loop:
# a horizontal step, then an implicit vertical solve writing back into u).
import gt4py.next as gtx
from gt4py.next import Dims, Field, float64, int32

I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
IJK = Field[Dims[I, J, K], float64]


# The Thomas algorithm for a*x[k-1] + b*x[k] + c*x[k+1] = d per column, as
# examples/cartesian/vertical_solver.py writes it.
@gtx.scan_operator(axis=K, forward=True, init=(0.0, 0.0))
def sweep_down(
    carry: tuple[float64, float64], a: float64, b: float64, c: float64, d: float64
) -> tuple[float64, float64]:
    c_prev, d_prev = carry
    den = b - a * c_prev
    return c / den, (d - a * d_prev) / den


@gtx.scan_operator(axis=K, forward=False, init=0.0)
def sweep_up(x_above: float64, c_mod: float64, d_mod: float64) -> float64:
    return d_mod - c_mod * x_above


@gtx.field_operator
def lap(u: IJK) -> IJK:
    return -4.0 * u + u(I + 1) + u(I - 1) + u(J + 1) + u(J - 1)


@gtx.field_operator
def solve(a: IJK, b: IJK, c: IJK, d: IJK) -> IJK:
    c_mod, d_mod = sweep_down(a, b, c, d)
    return sweep_up(c_mod, d_mod)


@gtx.field_operator
def implicit(u: IJK, a: IJK, b: IJK, c: IJK, alpha: float64) -> IJK:
    return solve(a, b, c, u + alpha * lap(u))


@gtx.program
def implicit_column(u: IJK, a: IJK, b: IJK, c: IJK, alpha: float64, out: IJK):
    implicit(u, a, b, c, alpha, out=out[1:-1, 1:-1, :])


@gtx.field_operator
def diffuse(u: IJK, alpha: float64) -> IJK:
    return u + alpha * lap(u)


@gtx.program
def horizontal_step(u: IJK, alpha: float64, out: IJK):
    diffuse(u, alpha, out=out[1:-1, 1:-1, :])


@gtx.program
def column_step(a: IJK, b: IJK, c: IJK, d: IJK, out: IJK):
    solve(a, b, c, d, out=out[1:-1, 1:-1, :])


def column_loop(u: IJK, u_next: IJK, a: IJK, b: IJK, c: IJK, alpha: float64, steps: int32):
    for _ in range(steps):
        horizontal_step(u, alpha, u_next, offset_provider={})
        column_step(a, b, c, u_next, u, offset_provider={})
