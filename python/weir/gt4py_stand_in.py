"""A pure-Python stand-in for ``gt4py.next``: the names a field-view module uses while Python
imports it, so that a module written for gt4py imports, unchanged, where gt4py is not installed
(docs/adr/0045-python-decorator.md).

    import weir
    weir.gt4py_stand_in.install()   # `import gt4py.next` now works (real gt4py, if installed, wins)
    from mymodel import hdiff_program   # decorated with @weir.program(backend=weir.backends.cpu)

weir never runs a definition's body in Python: it reads the module's source file (weir.load).
So the stand-in only has to make the module *import*: ``Dimension``, ``FieldOffset``,
``Field[...]`` and ``Dims[...]`` build plain descriptive objects, the dtypes are NumPy's, the
decorators mark a definition (calling it from Python raises, naming what runs it), and the
builtins (``neighbor_sum``, ``where``, ...) raise a clear error when called from Python. A
driver's constructors are thin equivalents of weir's: ``as_field``/``as_connectivity`` copy into a
weir array, ``zeros``/``empty``/``full`` allocate one of a domain's shape, and
``NeighborTableOffsetProvider`` is its table.
``install()`` appends a finder at the end of ``sys.meta_path``: it answers ``gt4py``,
``gt4py.next`` and ``gt4py.next.experimental`` only when no earlier finder (a real gt4py)
does, so installing it never shadows gt4py.
"""

import enum
import functools
import importlib.abc
import importlib.machinery
import sys
import types
import typing

__all__ = ["install", "uninstall", "StandInError"]


class StandInError(RuntimeError):
    """A field-view builtin or definition called from Python under the stand-in."""


# -- declarations -------------------------------------------------------------------------------


class DimensionKind(enum.Enum):
    HORIZONTAL = "horizontal"
    VERTICAL = "vertical"
    LOCAL = "local"


class GridType(enum.Enum):
    CARTESIAN = "cartesian"
    UNSTRUCTURED = "unstructured"


class Dimension:
    """``Dimension("K", kind=DimensionKind.VERTICAL)``: a name and a kind."""

    def __init__(self, value, kind=DimensionKind.HORIZONTAL):
        if not isinstance(value, str):
            raise TypeError(f"Dimension: the name must be a string, got {type(value).__name__}")
        self.value, self.kind = value, kind

    def __eq__(self, other):
        return isinstance(other, Dimension) and (self.value, self.kind) == (other.value, other.kind)

    def __hash__(self):
        return hash((self.value, self.kind))

    def __repr__(self):
        return f"Dimension({self.value!r}, kind=DimensionKind.{self.kind.name})"


class FieldOffset:
    """``FieldOffset("E2V", source=Vertex, target=(Edge, E2VDim))``."""

    def __init__(self, value, source, target):
        self.value, self.source, self.target = value, source, tuple(target)

    def __repr__(self):
        return f"FieldOffset({self.value!r}, source={self.source!r}, target={self.target!r})"


def _substitute(item, bindings):
    if isinstance(item, typing.TypeVar):
        return bindings.get(item, item)
    if isinstance(item, (list, tuple)):
        return type(item)(_substitute(i, bindings) for i in item)
    return item


def _typevars(item, found):
    if isinstance(item, typing.TypeVar) and item not in found:
        found.append(item)
    elif isinstance(item, (list, tuple)):
        for i in item:
            _typevars(i, found)
    return found


class _FieldType:
    """What ``Field[dims, dtype]`` is: the dimensions and dtype, subscriptable again when it has
    TypeVars (``CellKField: TypeAlias = Field[Dims[Cell, K], T]``, then ``CellKField[float64]``)."""

    def __init__(self, dims, dtype):
        self.dims, self.dtype = dims, dtype

    def __getitem__(self, args):
        params = _typevars([self.dims, self.dtype], [])
        args = args if isinstance(args, tuple) else (args,)
        if len(args) != len(params):
            raise TypeError(f"{self!r} takes {len(params)} type argument(s), got {len(args)}")
        bindings = dict(zip(params, args))
        return _FieldType(_substitute(self.dims, bindings), _substitute(self.dtype, bindings))

    def __call__(self, *args, **kwargs):  # typing accepts only callables in annotations
        raise StandInError(f"{self!r} is a type: weir's gt4py stand-in makes no fields")

    def __eq__(self, other):
        return isinstance(other, _FieldType) and (self.dims, self.dtype) == (other.dims, other.dtype)

    def __hash__(self):
        return hash((tuple(self.dims) if isinstance(self.dims, list) else self.dims, self.dtype))

    def __repr__(self):
        return f"Field[{self.dims!r}, {getattr(self.dtype, '__name__', self.dtype)}]"


class _Subscriptable:
    def __init__(self, name, make):
        self._name, self._make = name, make

    def __getitem__(self, args):
        return self._make(args)

    def __repr__(self):
        return self._name


def _field(args):
    if not isinstance(args, tuple) or len(args) != 2:
        raise TypeError("Field takes [dimensions, dtype]: Field[Dims[I, J], float64]")
    return _FieldType(*args)


Field = _Subscriptable("Field", _field)
Dims = _Subscriptable("Dims", lambda args: args if isinstance(args, tuple) else (args,))

# -- definitions --------------------------------------------------------------------------------


class _Definition:
    """A function under ``@field_operator``, ``@scan_operator`` or ``@program``: kept for weir
    (``__wrapped__`` is the function, whose source weir reads), never run by Python."""

    def __init__(self, kind, definition, options):
        functools.update_wrapper(self, definition)
        self.kind, self.definition, self.options = kind, definition, options

    def __call__(self, *args, **kwargs):
        name = self.definition.__name__
        raise StandInError(
            f"'{name}' is a @{self.kind} and weir's gt4py stand-in does not run field-view code in Python: "
            f"decorate it with @weir.program(backend=...) or use weir.load('FILE.py::{name}', backend=...)"
        )

    def __repr__(self):
        return f"<@{self.kind} {self.definition.__qualname__} (weir's gt4py stand-in)>"


def _decorator(kind):
    def decorate(definition=None, **options):
        if definition is None:
            return lambda d: _Definition(kind, d, options)
        return _Definition(kind, definition, options)

    decorate.__name__ = decorate.__qualname__ = kind
    decorate.__doc__ = f"gt4py's @{kind}: marks the definition (weir reads its source; Python never runs it)."
    return decorate


field_operator = _decorator("field_operator")
scan_operator = _decorator("scan_operator")
program = _decorator("program")

# -- a driver's allocation: weir arrays (docs/adr/0045, session 32) ---------------------------------


def _shape(domain, what):
    """The shape of a gt4py domain: {Dimension: n or range(start, stop)}."""
    if not isinstance(domain, dict):
        raise TypeError(f"{what}: expected a domain {{Dimension: size}}, got {domain!r}")
    shape = []
    for dim, extent in domain.items():
        if not isinstance(dim, Dimension):
            raise TypeError(f"{what}: {dim!r} in the domain is not a Dimension")
        shape.append(len(extent) if isinstance(extent, range) else int(extent))
    return tuple(shape)


def zeros(domain, dtype=None, allocator=None):
    """gt4py's ``gtx.zeros({Cell: n, K: nlev}, dtype=float64)``: ``weir.zeros`` of the domain's
    shape (float64 by default) in ``allocator``'s memory (a weir.Backend or weir.Allocator;
    weir.backends.cpu by default)."""
    import weir

    return weir.zeros(_shape(domain, "zeros"), "float64" if dtype is None else dtype, backend=allocator)


def empty(domain, dtype=None, allocator=None):
    """gt4py's ``gtx.empty``: as ``zeros`` (weir's allocator always zero-fills)."""
    return zeros(domain, dtype, allocator)


def full(domain, fill_value, dtype=None, allocator=None):
    """gt4py's ``gtx.full(domain, value)``: ``weir.full`` of the domain's shape."""
    import weir

    return weir.full(_shape(domain, "full"), fill_value, "float64" if dtype is None else dtype, backend=allocator)


def _checked_array(what, domain, data, dtype, allocator):
    import numpy as np

    import weir

    dims = list(domain.keys()) if isinstance(domain, dict) else list(domain)
    data = np.asarray(data)
    if len(dims) != data.ndim:
        raise ValueError(f"{what}: {len(dims)} dimension(s) {[getattr(d, 'value', d) for d in dims]} for an array of shape {data.shape}")
    return weir.array(data, dtype, backend=allocator)


def as_field(domain, data, dtype=None, *, allocator=None, **_):
    """gt4py's ``gtx.as_field([Cell, K], a)``: a copy of ``a`` as a weir array (weir's fields are
    NumPy arrays; their dimensions come from the program's annotations), checked to have one
    axis per dimension of ``domain`` (a sequence of Dimensions or a {Dimension: size} dict)."""
    return _checked_array("as_field", domain, data, dtype, allocator)


def as_connectivity(domain, codomain, data, dtype=None, *, allocator=None, **_):
    """gt4py's ``gtx.as_connectivity([Cell, C2EDim], Edge, table)``: the table as a weir array
    (weir takes an int32 or int64 array as a connectivity), one axis per dimension of ``domain``."""
    return _checked_array("as_connectivity", domain, data, dtype, allocator)


def NeighborTableOffsetProvider(table, origin_axis, neighbor_axis, max_neighbors, has_skip_values=True):
    """gt4py's ``NeighborTableOffsetProvider(table, Cell, Edge, 3)``: the table itself (weir's
    offset_provider maps each offset to its int32 or int64 table), checked to have
    ``max_neighbors`` columns."""
    import numpy as np

    table = np.asarray(table)
    if table.ndim != 2 or table.shape[1] != max_neighbors:
        raise ValueError(
            f"NeighborTableOffsetProvider: a table of {max_neighbors} neighbours per {getattr(origin_axis, 'value', origin_axis)} has shape "
            f"(rows, {max_neighbors}), got {table.shape}"
        )
    return table


# -- builtins: field-view code only -------------------------------------------------------------


def _builtin(name):
    def builtin(*args, **kwargs):
        raise StandInError(
            f"{name}() is a gt4py field-view builtin: it runs inside a field operator that weir compiles or "
            "interprets, not when called from Python (weir's gt4py stand-in)"
        )

    builtin.__name__ = builtin.__qualname__ = name
    return builtin


_BUILTINS = (
    "neighbor_sum max_over min_over where broadcast astype abs minimum maximum fmod power sqrt exp log "
    "sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh cbrt floor ceil trunc "
    "isfinite isinf isnan"
).split()
_EXPERIMENTAL = ("concat_where", "as_offset")
_DTYPES = "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64".split()


def _namespace():
    import numpy as np  # here, not at `import weir`: only modules that import gt4py need it

    names = {
        "Dimension": Dimension,
        "DimensionKind": DimensionKind,
        "GridType": GridType,
        "FieldOffset": FieldOffset,
        "Field": Field,
        "Dims": Dims,
        "IndexType": np.int32,
        "field_operator": field_operator,
        "scan_operator": scan_operator,
        "program": program,
        "zeros": zeros,
        "empty": empty,
        "full": full,
        "as_field": as_field,
        "as_connectivity": as_connectivity,
        "NeighborTableOffsetProvider": NeighborTableOffsetProvider,
    }
    names.update({n: getattr(np, "bool_" if n == "bool" else n) for n in _DTYPES})
    names.update({n: _builtin(n) for n in _BUILTINS + list(_EXPERIMENTAL)})
    return names


def _module(name):
    m = types.ModuleType(name, f"weir's stand-in for {name} (weir.gt4py_stand_in)")
    m.__weir_stand_in__ = True
    if name == "gt4py.next":
        m.__dict__.update(_namespace())
        m.__all__ = sorted(n for n in m.__dict__ if not n.startswith("_"))
    elif name == "gt4py.next.experimental":
        m.__dict__.update({n: _builtin(n) for n in _EXPERIMENTAL})
        m.__all__ = list(_EXPERIMENTAL)

    def missing(attr):
        raise AttributeError(
            f"weir's stand-in for '{name}' has no '{attr}': it provides the names a field-view module uses "
            "while Python imports it (install gt4py for the rest)"
        )

    m.__getattr__ = missing
    return m


_MODULES = ("gt4py", "gt4py.next", "gt4py.next.experimental")


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname not in _MODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=fullname != _MODULES[-1])

    def create_module(self, spec):
        return _module(spec.name)

    def exec_module(self, module):
        pass


_finder = _Finder()


def install():
    """Lets ``import gt4py.next`` find the stand-in when no real gt4py is found first (the
    finder goes last on ``sys.meta_path``). Returns True when gt4py now comes from the stand-in,
    False when a real gt4py is importable (then nothing changes for it). Idempotent."""
    if _finder not in sys.meta_path:
        sys.meta_path.append(_finder)
    import importlib.util

    spec = importlib.util.find_spec("gt4py")
    return spec is not None and spec.loader is _finder


def uninstall():
    """Removes the finder and the stand-in's modules from ``sys.modules`` (modules that
    imported them keep their references)."""
    while _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in _MODULES:
        if getattr(sys.modules.get(name), "__weir_stand_in__", False):
            del sys.modules[name]

