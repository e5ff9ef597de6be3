# weir.partitioned and weir.read_part without mpirun (docs/distributed.md "Unstructured programs
# from C++ and Python"): which arrays a program exchanges, the refusals, and a part read back in
# the forms the call takes. The runs on ranks with mpi4py communicators are the ctest entry
# "mpi: python: unstructured programs ..." (tests/mpi/check_python_parts.py).
import json
import os
import subprocess

import numpy as np
import pytest

import weir
from conftest import LAPLACIAN, ROOT

needs_mpi = pytest.mark.skipif(not weir.mpi_available, reason="weir was built without MPI")
NABLA = str(ROOT / "examples/unstructured/nabla.py") + "::nabla_program"
CELL_LAPLACIAN = str(ROOT / "examples/unstructured/cell_laplacian.py") + "::cell_laplacian"


def test_without_mpi_partitioned_says_how_to_get_it():
    if weir.mpi_available:
        pytest.skip("weir was built with MPI")
    with pytest.raises(weir.BackendError, match="built without MPI"):
        weir.partitioned(weir.load(CELL_LAPLACIAN))


def test_program_must_be_a_weir_program():
    with pytest.raises(TypeError, match="must be a weir.Program"):
        weir.partitioned("cell_laplacian.py::cell_laplacian")


@needs_mpi
def test_exchanged_arrays_are_the_inputs_on_mesh_entities():
    # nabla reads pp, sign, vol on Vertex and S_MXX, S_MYY on Edge; it only writes out_x, out_y,
    # and E2V, V2E are its tables: those are not exchanged.
    pp = weir.partitioned(weir.load(NABLA))
    assert pp.exchanged == {"pp": "Vertex", "sign": "Vertex", "vol": "Vertex", "S_MXX": "Edge", "S_MYY": "Edge"}
    assert pp.entities == {"Vertex", "Edge"}
    assert weir.partitioned(weir.load(CELL_LAPLACIAN)).exchanged == {"psi": "Cell", "weights": "Cell"}


@needs_mpi
def test_a_cartesian_program_is_refused():
    with pytest.raises(weir.Error, match="reads no connectivity table: only unstructured programs are partitioned"):
        weir.partitioned(weir.load(LAPLACIAN))


def test_read_part_refuses_a_folder_without_partition(tmp_path):
    with pytest.raises(ValueError, match="partition.json: no partition here"):
        weir.read_part(tmp_path, 0)


@pytest.mark.skipif(not os.environ.get("WEIR_BIN"), reason="needs WEIR_BIN (the weir command)")
def test_read_part_gives_the_files_of_weir_mesh(tmp_path):
    subprocess.run([os.environ["WEIR_BIN"], "mesh", "--parts", "2", "--program", CELL_LAPLACIAN, "--nx", "4",
                    "--ny", "3", "-o", str(tmp_path)], check=True, capture_output=True)
    meta = json.loads((tmp_path / "partition.json").read_text())
    for p in range(2):
        part = weir.read_part(tmp_path, p)
        assert part.parts == 2 and part.primary == "Cell"
        ids = part.global_ids["Cell"]
        assert part.owned["Cell"] == meta["owned"][p]["Cell"] and len(ids) == meta["local"][p]["Cell"]
        assert part.tables["C2E2CO"].shape == (len(ids), 4)
        send, recv = part.lists["Cell"][1 - p]
        assert np.array_equal(send, np.load(tmp_path / f"part{p}" / f"send_Cell_to_{1 - p}.npy"))
        # Received rows are the halo: every local row past the owned ones, once.
        assert sorted(recv.tolist()) == list(range(part.owned["Cell"], len(ids)))
    with pytest.raises(ValueError, match="part 2 is not one of its 2 parts"):
        weir.read_part(tmp_path, 2)
