"""``weir.decompose``: a Cartesian program on the ranks of an MPI process grid.

docs/distributed.md "From C++ and Python" and docs/adr/0057-distributed-memory.md
("communicators"). The work is in C++ (python/src/distributed.cpp over
weir/distributed/decomposed_program.h); this wraps the argument forms.
"""

from ._weir import Program, _decompose, mpi_available  # noqa: F401


def decompose(program, dims, grid, *, cache_dir=None):
    """Returns a ``weir.DecomposedProgram``: ``program`` (a ``weir.Program`` of a Cartesian
    ``@program`` or orchestration function, from ``weir.load`` or ``@weir.program``) split along
    ``dims`` (``"I,J"``, ``("I", "J")`` or ``"I"``) over a process grid of ``grid`` ranks per
    dimension (``(2, 2)``; row-major, the last dimension fastest).

    Call the result on every rank of a communicator of ``prod(grid)`` ranks with that rank's
    local arrays and ``comm=`` (an mpi4py communicator; default ``MPI.COMM_WORLD``)::

        from mpi4py import MPI
        dp = weir.decompose(weir.load("lap.py::laplacian"), "I,J", (2, 1))
        c = dp.coordinates(comm)
        (i0, i1), (j0, j1), _ = dp.window("f", f_global.shape, c)
        f = np.ascontiguousarray(f_global[i0:i1, j0:j1])   # the halo may be anything
        out = np.zeros_like(f)
        dp(f, out, comm=comm)    # out's owned block: dp.window("out", ..., c, own=True)

    The program is compiled (into the program cache, ``cache_dir`` or weir's default) on the
    first call or by ``dp.prepare()``. Raises ``weir.BackendError`` when weir was built without
    MPI, ``TypeError`` for ``dims`` or ``grid`` of the wrong kind, and weir's errors (naming the
    program and dimension) for a program that cannot be decomposed along ``dims``.
    """
    if not isinstance(program, Program):
        raise TypeError(f"decompose(): program must be a weir.Program (weir.load, @weir.program), got "
                        f"{type(program).__name__}")
    if isinstance(dims, str):
        dims = [d.strip() for d in dims.split(",")]
    dims = list(dims)
    if not all(isinstance(d, str) and d for d in dims):
        raise TypeError(f"decompose(): dims must be dimension names such as 'I,J' or ('I', 'J'), got {dims!r}")
    if isinstance(grid, int):
        grid = [grid]
    grid = list(grid)
    if not all(isinstance(g, int) and not isinstance(g, bool) for g in grid):
        raise TypeError(f"decompose(): grid must be ranks per dimension such as (2, 2), got {grid!r}")
    return _decompose(program, dims, grid, None if cache_dir is None else str(cache_dir))
