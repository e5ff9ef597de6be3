"""A module mixing stencils with arbitrary Python 3.12 code that weir must skip."""
from __future__ import annotations

import dataclasses
import enum
from typing import Any

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next import field_operator as fo, Field, float64
from . import common
from ..utils import helpers as h

IDim = gtx.Dimension("I")
N = 10
HALF: float = 0.5
SCALE = 2 * N + 1
SCALE += 1
print(f"{N=} {HALF:.{3}f}")
type Vector = list[float]
squares = [i * i for i in range(N)]
gen = (x for x in range(3))
table = {k: v for k, v in zip("ab", [1, 2])}
if (n := len(squares)) > 3: print(n)
x = 1; print(x); y = 2
callback = lambda a, b=1: a + b
names = {"key": 1}
msg = f"{names["key"]} and {f'{N}'} {'nested "quotes"'!r} {{literal}}"
report = f"""
    total: {N:>{10}}
    {   # a comment inside a replacement field (3.12)
        N + 1
    }
"""
TOTAL = N + \
    1
width: int
sorted([3, 1], key=lambda v: -v)
del x
assert N > 0, "positive"


def generic[T](x: T) -> T:
    return x


class Box[T]:
    value: T


class Color(enum.Enum):
    RED = 1
    GREEN = 2

    def describe(self):
        match self:
            case Color.RED:
                return f"{self.name!r:>{10}} is {'red'}"
            case _:
                return "other"


@dataclasses.dataclass(frozen=True)
class Config:
    size: int = 3
    names: list[str] = dataclasses.field(default_factory=list)


def helper(values):
    total = 0
    for v in values:
        total += v
    with open("/dev/null") as f:
        f.write(f'{total:{"<"}8}')
    try:
        import scipy
    except ImportError:
        pass
    return [v for v in values if v]


def plain(a: int, b: int = 2) -> int:
    return a + b


async def fetch(url):
    async with session.get(url) as r:
        return await r.json()


@pytest.mark.parametrize("n", [1, 2, 3])
def test_something(n):
    assert n > 0


@functools.cache
def cached(n):
    return n * 2


match SCALE:
    case 21:
        pass
    case _:
        raise ValueError("unexpected")

for i in range(3):
    pass
else:
    pass

while False:
    break

try:
    import cupy
except ImportError:
    cupy = None
finally:
    pass

with open(__file__) as src:
    text = src.read()

if __name__ == "__main__":
    main()
elif N > 3:
    pass
else:
    pass

s = '''multi
line "string" with 'quotes' '''
r = rb'\d+' + Rb"\x00"
big = 0x_FF + 0o17 + 0b1010 + 1_000_000 + 1.5e-3 + 3j + .5 + 1.


@fo
def add(a: Field[[IDim], float64], b: Field[[IDim], float64]) -> Field[[IDim], float64]:
    tmp: Field[[IDim], float64] = a + b * HALF
    if N > 3:
        tmp = tmp * 2.0
    elif N > 1:
        tmp = -tmp
    else:
        pass
    return tmp if N > 0 else a


@gtx.field_operator(backend=None)
def shifted(a: Field[[IDim], float64]) -> Field[[IDim], float64]:
    return a(IDim + 1) + a(IDim - 1) + h.scale * common.factor
