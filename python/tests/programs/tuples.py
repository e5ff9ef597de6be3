# Programs with parameters of tuple, NamedTuple and dataclass type (inputs and out=), called from
# Python with such objects of NumPy arrays. Used by test_tuple_parameters.py.
import dataclasses
from typing import NamedTuple

import gt4py.next as gtx
from gt4py.next import Field, float64

I = gtx.Dimension("I")
F = Field[[I], float64]


class Pair(NamedTuple):
    low: F
    high: F


@dataclasses.dataclass
class State:
    u: F
    v: F


@gtx.field_operator
def spread(t: tuple[F, tuple[F, float64]]) -> Pair:
    return t[0] - t[1][1], t[1][0] + t[1][1]


@gtx.field_operator
def mix(s: State) -> tuple[F, F]:
    return s.u * s.v, s.u + s.v


@gtx.program
def spread_program(x: tuple[F, tuple[F, float64]], out: Pair):
    spread(x, out=out)


@gtx.program
def mix_program(s: State, out: State):
    mix(s, out=out)
