"""weir from Python: gt4py field-view programs called with NumPy arrays, the backends as
objects, SDFGs loaded, optimized and saved (docs/adr/0042-python-api.md).

    import numpy as np, weir
    lap = weir.load("examples/cartesian/laplacian.py::laplacian", backend=weir.backends.cpu)
    f = np.random.rand(16, 16, 4)
    out = np.zeros_like(f)
    lap(f, out)                  # no copies: out is written in place
    sdfg = lap.__sdfg__()        # a fresh weir.SDFG
    fast = weir.optimize(sdfg, auto="cpu")
    g = weir.zeros((16, 16, 4))  # 64-byte aligned, as weir run's fields: the generated code's speed

    @weir.program(backend=weir.backends.cpu)   # in a module file: the same as weir.load(...)
    @gtx.program
    def my_program(...): ...

Where gt4py is not installed, ``weir.gt4py_stand_in.install()`` lets a field-view module's
``import gt4py.next as gtx`` import (docs/adr/0045-python-decorator.md).
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
    DecomposedProgram,
    PartitionedProgram,
    compose,
    cpu_backend,
    gpu_backend,
    optimize,
    view,
)
from . import backends, gt4py_stand_in  # noqa: F401
from . import _dace  # noqa: F401  (program.__sdfg__(dace=...))
from ._arrays import array, empty, full, zeros  # noqa: F401
from ._decorator import program  # noqa: F401
from ._distributed import decompose, mpi_available, partitioned, read_part  # noqa: F401
from ._load import load  # noqa: F401
from ._profile import Profile  # noqa: F401

# __sdfg__'s default: False (a weir.SDFG), True (a dace.SDFG) or "auto" (dace.SDFG when DaCe imports).
sdfg_as_dace = False

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
    "Profile",
    "Program",
    "SDFG",
    "DecomposedProgram",
    "PartitionedProgram",
    "array",
    "backends",
    "compose",
    "cpu_backend",
    "decompose",
    "empty",
    "full",
    "gpu_backend",
    "gt4py_stand_in",
    "load",
    "mpi_available",
    "optimize",
    "partitioned",
    "program",
    "read_part",
    "sdfg_as_dace",
    "view",
    "zeros",
] + list(_error_names)
