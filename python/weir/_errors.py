"""The exceptions of weir (docs/adr/0042-python-api.md, "Errors").

Every error weir raises is a ``weir.Error``; its message is the one ``weir`` on the command
line prints after ``weir: error:``. Errors located in a source file (``FILE.py:LINE:COL: ...``
on the message's first line, as the CLI prints them) carry ``file``, ``line`` and ``column``;
otherwise those are None.
"""

import re

# FILE:LINE:COLUMN: at the start of the first line, or after a space ("program 'lap' stopped with
# an error: laplacian.py:15:23: ...").
_LOCATED = re.compile(r"(?:^|(?<=\s))(?P<file>[^\s:][^:\n]*?):(?P<line>\d+):(?P<column>\d+):")


class Error(Exception):
    """Base of every weir error."""

    def __init__(self, message=""):
        super().__init__(message)
        self.message = str(message)
        m = _LOCATED.search(self.message.split("\n", 1)[0])
        self.file = m.group("file") if m else None
        self.line = int(m.group("line")) if m else None
        self.column = int(m.group("column")) if m else None


class SourceError(Error):
    """Python source weir cannot read or type-check (a located field-view error)."""


class ArgumentError(Error, ValueError):
    """Arguments that do not fit the program: a wrong shape, a layout weir cannot take without
    a copy, conflicting sizes, a connectivity entry outside its dimension."""


class ArgumentTypeError(ArgumentError, TypeError):
    """An argument of the wrong kind: not a NumPy array where a field is expected, a wrong
    dtype or number of dimensions, a missing or unknown argument."""


class BackendError(Error):
    """A program and backend weir cannot combine (an SDFG on the embedded backend)."""


class CompileError(Error):
    """The C++ compiler failed on a generated program."""


class LoadError(Error):
    """A compiled program that cannot be loaded."""


class ProgramError(Error):
    """A program stopped with an error while running (a read outside a field, ...)."""


class CacheError(Error):
    """The program cache directory cannot be used."""


class SDFGError(Error):
    """An SDFG file or JSON that cannot be read, or an invalid SDFG."""


class TransformError(Error):
    """A transformation, pass, pipeline or script that cannot be applied."""


__all__ = [
    "Error",
    "SourceError",
    "ArgumentError",
    "ArgumentTypeError",
    "BackendError",
    "CompileError",
    "LoadError",
    "ProgramError",
    "CacheError",
    "SDFGError",
    "TransformError",
]
