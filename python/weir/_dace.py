"""``program.__sdfg__()`` as a ``dace.SDFG`` for DaCe's Python frontend, when asked
(docs/adr/0042-python-api.md, "__sdfg__"). weir's SDFG JSON is DaCe's format, so the SDFG
crosses over through ``dace.SDFG.from_json``.

The choice: ``__sdfg__(..., dace=True | False | "auto")`` per call, else the package's flag
``weir.sdfg_as_dace`` (default False: a weir.SDFG). True needs DaCe; "auto" returns a
dace.SDFG when ``dace`` is importable and a weir.SDFG otherwise."""

import importlib
import sys

from ._weir import Program

_weir_sdfg = Program.__sdfg__


def _as_dace(sdfg, choice):
    if choice not in (True, False, "auto"):
        raise ValueError(f"__sdfg__(): dace= (or weir.sdfg_as_dace) is True, False or 'auto', got {choice!r}")
    if choice is False:
        return sdfg
    try:
        dace = importlib.import_module("dace")
    except ImportError as e:
        if choice == "auto":
            return sdfg
        raise ImportError(
            "__sdfg__(dace=True) returns a dace.SDFG and needs DaCe (pip install dace); without it, dace=False "
            "returns weir's SDFG (the same graph, DaCe's JSON format)"
        ) from e
    return dace.SDFG.from_json(sdfg.to_json())


def __sdfg__(self, *args, dace=None, **kwargs):
    sdfg = _weir_sdfg(self, *args, **kwargs)
    return _as_dace(sdfg, getattr(sys.modules["weir"], "sdfg_as_dace", False) if dace is None else dace)


__sdfg__.__doc__ = (_weir_sdfg.__doc__ or "").strip() + (
    "; a dace.SDFG instead with dace=True, or dace='auto' when DaCe is importable (default: weir.sdfg_as_dace)"
)
Program.__sdfg__ = __sdfg__
