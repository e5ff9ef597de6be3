"""``weir.load``: a field-view definition ("FILE.py::NAME") as a weir.Program, or an SDFG file
(".sdfg", ".sdfgz") compiled into a weir.CompiledSDFG (docs/adr/0042-python-api.md)."""

import os

from ._weir import SDFG
from ._weir import load as _load_field_view

__all__ = ["load", "include_dirs"]

_SDFG_SUFFIXES = (".sdfg", ".sdfgz")


def include_dirs(include):
    """The folders of include= as strings: a list (or other iterable) of paths, never one path,
    whose characters would be taken for folders."""
    if isinstance(include, (str, bytes, os.PathLike)):
        raise TypeError(f"include=: expected a list of folders, got one {type(include).__name__} ({include!r})")
    return [os.fspath(d) for d in include]


def load(reference, *, backend=None, include=(), trust_code=False):
    """``weir.load("FILE.py::NAME", backend=..., include=[dirs])``: a @program, @field_operator,
    @scan_operator or orchestration function, loaded and type-checked for `backend` (default
    weir.backends.embedded), compiled when first called. ``weir.load("FILE.sdfg", backend=...)``:
    the SDFG file compiled for `backend` (default weir.backends.cpu), the same as
    ``weir.SDFG.load(path).compile(backend=backend, trust_code=trust_code)``."""
    text = os.fspath(reference)
    if "::" not in text and text.endswith(_SDFG_SUFFIXES):
        if include:
            raise TypeError("load(): include= names folders of Python modules; an SDFG file imports none")
        return SDFG.load(text).compile(backend=backend, trust_code=trust_code)
    if trust_code:
        raise TypeError("load(): trust_code= is for SDFG files (C++ written in an SDFG); 'FILE.py::NAME' has none")
    return _load_field_view(text, backend=backend, include=include_dirs(include))
