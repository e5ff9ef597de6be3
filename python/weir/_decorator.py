"""``@weir.program(backend=...)``: a definition of a module file as a callable weir.Program
(docs/adr/0045-python-decorator.md)."""

import inspect
import os
import sys

from ._errors import SourceError
from ._load import include_dirs
from ._weir import Program, load as _load_field_view

__all__ = ["program"]


def _function_of(obj):
    """The Python function behind `obj`: itself, what ``__wrapped__`` leads to (functools
    wrappers, weir's gt4py stand-in), or a gt4py decorator's ``definition``."""
    seen = set()
    while not inspect.isfunction(obj) and id(obj) not in seen:
        seen.add(id(obj))
        nxt = getattr(obj, "__wrapped__", None)
        if nxt is None:
            nxt = getattr(obj, "definition", None)
        if nxt is None:
            nxt = getattr(getattr(obj, "definition_stage", None), "definition", None)
        if nxt is None:
            break
        obj = nxt
    return obj if inspect.isfunction(obj) else None


def _import_root(function, file):
    """The folder the function's top-level package is in (what Python found it on), so that the
    module's absolute imports of its own package resolve for weir too."""
    root = os.path.dirname(os.path.abspath(file))
    module = sys.modules.get(function.__module__)
    name = function.__module__ if module is not None and function.__module__ != "__main__" else ""
    depth = name.count(".") + (1 if os.path.basename(file) == "__init__.py" else 0)
    for _ in range(depth):
        root = os.path.dirname(root)
    return root


def _reference(obj):
    function = _function_of(obj)
    if function is None:
        raise TypeError(
            "weir.program: expected a function defined in a module file (a @field_operator, @scan_operator, "
            f"@program or an orchestration function), got {type(obj).__name__}"
        )
    name = function.__name__
    if function.__qualname__ != name:
        raise SourceError(
            f"weir.program: '{function.__qualname__}' is not defined at the top level of its module: weir reads "
            "module-level definitions from the module's file"
        )
    try:
        file = inspect.getsourcefile(function)
    except TypeError:
        file = None
    if not file or not os.path.isfile(file):
        where = function.__code__.co_filename
        raise SourceError(
            f"weir.program: '{name}' has no source file (it was defined in {where}, e.g. interactively or by "
            "exec): weir reads a definition from its module's .py file; put it in a file and import it, or use "
            "weir.load('FILE.py::NAME')"
        )
    return f"{file}::{name}", _import_root(function, file)


def program(definition=None, *, backend=None, include=()):
    """Decorates a definition of a module file: a field-view ``@program``, ``@field_operator`` or
    ``@scan_operator`` (written above gt4py's decorator), or an orchestration function. Returns
    the weir.Program that ``weir.load("FILE.py::NAME", backend=backend, include=...)`` returns:
    the source is found with ``inspect``, and the folder of the module's top-level package is
    searched for its imports before `include`. Usable bare (``@weir.program``: the embedded
    backend) or called (``@weir.program(backend=weir.backends.cpu)``)."""

    def decorate(obj):
        if isinstance(obj, Program):
            return obj if backend is None else obj.with_backend(backend)
        reference, root = _reference(obj)
        return _load_field_view(reference, backend=backend, include=[root, *include_dirs(include)])

    return decorate if definition is None else decorate(definition)
