# A nested field-operator call read at many neighbours (nabla4 = p - nu * vlap(vlap(p))): the
# lowering stores the inner call in a transient by its own map (docs/adr/0008, 2026-12-07).
# Results against NumPy on a small generated periodic triangular mesh, on both backends.
import numpy as np
import pytest

import weir
from conftest import program

NABLA4 = program("nabla4.py", "nabla4_program")
VLAP = program("nabla4.py", "vlap_program")


def periodic_mesh(nx, ny):
    """E2V and V2E of a periodic triangular mesh of nx x ny vertices: edges to the right, up
    and up-right of each vertex (3 per vertex), so every vertex has 6 edges."""
    nv = nx * ny
    vid = lambda i, j: (i % nx) * ny + (j % ny)  # noqa: E731
    e2v = []
    for i in range(nx):
        for j in range(ny):
            for di, dj in ((1, 0), (0, 1), (1, 1)):
                e2v.append((vid(i, j), vid(i + di, j + dj)))
    e2v = np.array(e2v, dtype=np.int32)
    v2e = [[] for _ in range(nv)]
    for e, (a, b) in enumerate(e2v):
        v2e[a].append(e)
        v2e[b].append(e)
    v2e = np.array(v2e, dtype=np.int32)
    assert v2e.shape == (nv, 6)
    return e2v, v2e


def vlap_numpy(p, sign, inv_len, e2v, v2e):
    grad = (p[e2v[:, 1]] - p[e2v[:, 0]]) * inv_len[:, None]
    return np.einsum("vjk,vj->vk", grad[v2e], sign)


@pytest.fixture
def mesh():
    return periodic_mesh(5, 4)


def test_nabla4_against_numpy(backend, rng, mesh):
    e2v, v2e = mesh
    nv, ne, nk = v2e.shape[0], e2v.shape[0], 3
    p = rng.random((nv, nk))
    sign = rng.choice([-1.0, 1.0], (nv, 6))
    inv_len = rng.random(ne) + 0.5
    nu = 0.01
    out = np.zeros((nv, nk))
    weir.load(NABLA4, backend=backend)(p, sign, inv_len, nu, out, offset_provider={"E2V": e2v, "V2E": v2e})
    want = p - nu * vlap_numpy(vlap_numpy(p, sign, inv_len, e2v, v2e), sign, inv_len, e2v, v2e)
    np.testing.assert_allclose(out, want, rtol=1e-13, atol=1e-13)
    # the inner Laplacian is not a small correction on this data: a wrong one would show
    assert np.abs(want - p).max() > 1e-3


def test_nabla4_stores_the_inner_call(mesh):
    # Two maps: the inner vlap into a transient over (Vertex, K), then nabla4 reading it.
    e2v, v2e = mesh
    sdfg = weir.load(NABLA4).__sdfg__(offset_provider={"E2V": e2v, "V2E": v2e}).to_json()
    arrays = sdfg["attributes"]["_arrays"]
    transients = [n for n, d in arrays.items() if d["attributes"].get("transient")]
    assert transients == ["__vlap_0"]
    states = [s["label"] for s in sdfg["nodes"]]
    assert states == ["call_0_vlap", "call_0_nabla4"]


def test_vlap_alone_is_one_map(backend, rng, mesh):
    e2v, v2e = mesh
    nv, ne, nk = v2e.shape[0], e2v.shape[0], 2
    p, sign, inv_len = rng.random((nv, nk)), rng.choice([-1.0, 1.0], (nv, 6)), rng.random(ne) + 0.5
    out = np.zeros((nv, nk))
    weir.load(VLAP, backend=backend)(p, sign, inv_len, out, offset_provider={"E2V": e2v, "V2E": v2e})
    np.testing.assert_allclose(out, vlap_numpy(p, sign, inv_len, e2v, v2e), rtol=1e-13, atol=1e-13)
