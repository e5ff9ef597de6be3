# Program parameters of tuple type from Python: a (nested) tuple, a NamedTuple or a dataclass
# instance of NumPy arrays (and numbers) passed whole, by position or by name, inputs and out=,
# on both backends; values worked out in NumPy. Each parameter is one argument per element to
# the program (x_0, x_1_0, ...), and those names are accepted too.
import dataclasses
from typing import NamedTuple

import numpy as np
import pytest

import weir

from conftest import program

SPREAD = program("tuples.py", "spread_program")
MIX = program("tuples.py", "mix_program")


class Pair(NamedTuple):
    low: np.ndarray
    high: np.ndarray


@dataclasses.dataclass
class State:
    u: np.ndarray
    v: np.ndarray


def test_nested_tuple_in_and_named_tuple_out(backend):
    p = weir.load(SPREAD, backend=backend)
    a, b = np.arange(6.0), np.linspace(-1.0, 2.0, 6)
    out = Pair(np.zeros(6), np.zeros(6))
    p((a, (b, 0.5)), out)
    np.testing.assert_array_equal(out.low, a - 0.5)
    np.testing.assert_array_equal(out.high, b + 0.5)
    # By name, and a plain tuple where the NamedTuple is declared.
    low, high = np.zeros(6), np.zeros(6)
    p(x=(b, (a, 2.0)), out=(low, high))
    np.testing.assert_array_equal(low, b - 2.0)
    np.testing.assert_array_equal(high, a + 2.0)
    # The flattened names themselves.
    p(x_0=a, x_1_0=b, x_1_1=1.0, out_0=low, out_1=high)
    np.testing.assert_array_equal(low, a - 1.0)
    np.testing.assert_array_equal(high, b + 1.0)


def test_dataclass_in_and_out(backend):
    p = weir.load(MIX, backend=backend)
    s = State(np.arange(1.0, 5.0), np.full(4, 3.0))
    out = State(np.zeros(4), np.zeros(4))
    p(s, out=out)
    np.testing.assert_array_equal(out.u, s.u * 3.0)
    np.testing.assert_array_equal(out.v, s.u + 3.0)


def test_a_tuple_of_the_wrong_arity_is_refused(backend):
    p = weir.load(SPREAD, backend=backend)
    a = np.arange(6.0)
    with pytest.raises(weir.ArgumentError, match=r"argument 'x\[1\]': expected tuple\[.*\] \(a tuple of 2 elements\), got a tuple of 3 elements"):
        p((a, (a, 1.0, 2.0)), (np.zeros(6), np.zeros(6)))
    with pytest.raises(TypeError, match=r"argument 'out': expected Pair\(.*\), got ndarray"):
        p((a, (a, 1.0)), np.zeros(6))


def test_a_tuple_out_of_the_wrong_length_says_its_length(backend):
    # A field operator returning two fields, run directly: out=(a,) was answered "got tuple".
    mix = weir.load(program("tuples.py", "mix"), backend=backend)
    u, v = np.arange(4.0), np.full(4, 2.0)
    for out, got in [((np.zeros(4),), "a tuple of 1"), ((np.zeros(4),) * 3, "a tuple of 3"), (np.zeros(4), "ndarray")]:
        with pytest.raises(TypeError, match=r"out: expected a tuple of 2 arrays \(the operator returns a tuple\), got " + got + "$"):
            mix(State(u, v), out=out)

