"""weir from Python: gt4py field-view programs called with NumPy arrays, the backends as
objects, SDFGs loaded, optimized and saved (docs/adr/0042-python-api.md).

    import numpy as np, weir
    lap = weir.load("examples/cartesian/laplacian.py::laplacian", backend=weir.backends.cpu)
    f = np.random.rand(16, 16, 4)
    out = np.zeros_like(f)
    lap(f, out)                  # no copies: out is written in place
    sdfg = lap.__sdfg__()        # a fresh weir.SDFG
    fast = weir.optimize(sdfg, auto="cpu")
"""

from ._errors import *  # noqa: F401,F403  (first: the extension raises these classes)
from ._errors import __all__ as _error_names
from ._weir import (  # noqa: F401
    Allocator,
    Backend,
    CompilableProgram,
    CompilationArtifact,
    CompiledBackend,
    CompiledProgram,
    CompiledSDFG,
    Compiler,
    EmbeddedBackend,
    Loader,
    Problem,
    Program,
    SDFG,
    cpu_backend,
    gpu_backend,
    load,
    optimize,
)
from . import backends  # noqa: F401

from ._weir import __version__  # noqa: F401,E402

__all__ = [
    "Allocator",
    "Backend",
    "CompilableProgram",
    "CompilationArtifact",
    "CompiledBackend",
    "CompiledProgram",
    "CompiledSDFG",
    "Compiler",
    "EmbeddedBackend",
    "Loader",
    "Problem",
    "Program",
    "SDFG",
    "backends",
    "cpu_backend",
    "gpu_backend",
    "load",
    "optimize",
] + list(_error_names)
