"""NumPy arrays in a backend's memory: ``weir.zeros``, ``weir.empty``, ``weir.full`` and
``weir.array``, as gt4py's ``gtx.zeros(..., allocator=backend)``. Their buffers come from the
backend's allocator (``weir.Allocator.zeros``: 64-byte aligned for the ready backends, as
``weir run`` aligns its fields), so a program runs on them at ``weir run``'s speed; NumPy's own
buffers start at 16-byte boundaries, where the generated code's vector loads straddle cache
lines (docs/adr/0042-python-api.md, bench/python_api.py). They are ordinary NumPy arrays:
passing them to a program copies nothing, and the memory lives as long as the array or a view."""

from ._weir import Allocator, Backend


def _allocator(backend):
    if backend is None:
        from . import backends
        return backends.cpu.allocator
    if isinstance(backend, Allocator):
        return backend
    if isinstance(backend, Backend):
        return backend.allocator
    raise TypeError(
        f"backend: expected a weir.Backend (e.g. weir.backends.cpu) or a weir.Allocator, got {type(backend).__name__}")


def zeros(shape, dtype="float64", *, backend=None):
    """A zero-filled C-order array of ``shape`` (an int or a sequence of ints) and ``dtype``
    (anything ``np.dtype`` takes: float64 by default) in ``backend``'s memory (a weir.Backend or
    weir.Allocator; weir.backends.cpu by default). Raises weir.ArgumentTypeError for a dtype
    weir's fields cannot hold and weir.ArgumentError for a negative extent."""
    return _allocator(backend).zeros(shape, dtype)


def empty(shape, dtype="float64", *, backend=None):
    """As ``zeros``: weir's allocator always zero-fills (reading an unset element gives 0, never
    a previous owner's data)."""
    return _allocator(backend).zeros(shape, dtype)


def full(shape, fill_value, dtype="float64", *, backend=None):
    """An array of ``shape`` and ``dtype`` in ``backend``'s memory with every element
    ``fill_value``."""
    a = _allocator(backend).zeros(shape, dtype)
    a[...] = fill_value
    return a


def array(values, dtype=None, *, backend=None):
    """A copy of ``values`` (a NumPy array or anything ``np.asarray`` takes) in ``backend``'s
    memory, C-ordered, of ``dtype`` (by default the values' own)."""
    import numpy as np

    values = np.asarray(values)
    a = _allocator(backend).zeros(values.shape, values.dtype if dtype is None else dtype)
    a[...] = values
    return a


__all__ = ["zeros", "empty", "full", "array"]
