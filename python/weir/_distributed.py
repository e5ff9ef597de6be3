"""``weir.decompose``: a Cartesian program on the ranks of an MPI process grid;
``weir.partitioned`` and ``weir.read_part``: an unstructured program on the parts of a mesh.

docs/distributed.md "From C++ and Python" and docs/adr/0057-distributed-memory.md
("communicators"). The work is in C++ (python/src/distributed.cpp over
weir/distributed/decomposed_program.h); this wraps the argument forms.
"""

import json
import pathlib
import types

from ._weir import Program, _decompose, _partitioned, mpi_available  # noqa: F401


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


def partitioned(program, *, cache_dir=None):
    """Returns a ``weir.PartitionedProgram``: ``program`` (a ``weir.Program`` of an unstructured
    ``@program``, from ``weir.load`` or ``@weir.program``) with an UnstructuredHaloExchange node
    before it for every array it reads on an entity of its connectivity tables
    (``pp.exchanged``: ``{"psi": "Cell", ...}``).

    Call it on every rank of a communicator with that rank's local arrays in local numbering
    (owned rows first, then halo rows, whose values may be anything), its local tables and its
    send/receive lists (``weir.read_part`` reads both from ``weir mesh --parts`` files)::

        part = weir.read_part("parts4/", comm.rank)
        pp = weir.partitioned(weir.load("cell_laplacian.py::cell_laplacian"))
        pp(psi, weights, lap, offset_provider=part.tables, lists=part.lists, comm=comm)

    ``lists`` is ``{entity: {peer: (send, recv)}}``: the local rows sent to and received from each
    other rank, in the order the peer's lists give the same entities. The program is compiled on
    the first call or by ``pp.prepare()``. Raises ``weir.BackendError`` when weir was built
    without MPI, ``TypeError`` for arguments of the wrong kind, and weir's errors for a program
    that is not unstructured, a peer that is not another rank of ``comm`` and rows outside the
    local arrays (on the calling rank, before any message).
    """
    if not isinstance(program, Program):
        raise TypeError(f"partitioned(): program must be a weir.Program (weir.load, @weir.program), got "
                        f"{type(program).__name__}")
    return _partitioned(program, None if cache_dir is None else str(cache_dir))


def read_part(directory, part):
    """Part ``part`` of the partition ``weir mesh --parts N`` wrote into ``directory``, as a
    namespace: ``parts`` (N), ``primary`` (the entity split by METIS), ``tables`` (``{name: int32
    array}`` in local numbering, for ``offset_provider=``), ``global_ids`` (``{entity: int32
    array}``: the global id of every local row, owned rows first), ``owned`` (``{entity: int}``)
    and ``lists`` (``{entity: {peer: (send, recv)}}``, for ``lists=``). Raises ValueError naming
    the file for a missing file or a part outside the partition."""
    import numpy as np

    d = pathlib.Path(directory)
    header = d / "partition.json"
    if not header.exists():
        raise ValueError(f"{header}: no partition here (write one with 'weir mesh --parts N')")
    meta = json.loads(header.read_text())
    if not 0 <= part < meta["parts"]:
        raise ValueError(f"{header}: part {part} is not one of its {meta['parts']} parts")
    pd = d / f"part{part}"

    def load(name):
        f = pd / name
        if not f.exists():
            raise ValueError(f"{f}: missing file of the partition")
        return np.load(f)

    lists = {}
    for e in meta["entities"]:
        peers = {}
        for q in range(meta["parts"]):
            s, r = pd / f"send_{e}_to_{q}.npy", pd / f"recv_{e}_from_{q}.npy"
            if s.exists() or r.exists():
                empty = np.zeros(0, np.int32)
                peers[q] = (np.load(s) if s.exists() else empty, np.load(r) if r.exists() else empty)
        lists[e] = peers
    return types.SimpleNamespace(
        parts=meta["parts"], primary=meta["primary"],
        tables={name: load(f"{name}.npy") for name in meta["tables"]},
        global_ids={e: load(f"global_{e}.npy") for e in meta["entities"]},
        owned=dict(meta["owned"][part]), lists=lists)
