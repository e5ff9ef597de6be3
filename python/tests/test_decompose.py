# weir.decompose without mpirun (docs/distributed.md "From C++ and Python"): the argument forms,
# the refusals, and the local layout, worked out by hand. The runs on ranks with mpi4py
# communicators are the ctest entry "mpi: python: ..." (tests/mpi/check_python_comm.py).
import pytest

import weir
from conftest import EDGES, HDIFF, LAPLACIAN, ROOT

needs_mpi = pytest.mark.skipif(not weir.mpi_available, reason="weir was built without MPI")


def test_without_mpi_decompose_says_how_to_get_it():
    if weir.mpi_available:
        pytest.skip("weir was built with MPI")
    with pytest.raises(weir.BackendError, match="built without MPI"):
        weir.decompose(weir.load(LAPLACIAN), "I,J", (2, 1))


@pytest.mark.parametrize("bad, message", [
    (dict(program="lap.py::laplacian", dims="I", grid=(2,)), "must be a weir.Program"),
    (dict(dims=("I", 3), grid=(2, 1)), "dims must be dimension names"),
    (dict(dims="I,J", grid=(2, "1")), "grid must be ranks per dimension"),
])
def test_argument_forms_are_checked(bad, message):
    args = dict(program=weir.load(LAPLACIAN), dims="I,J", grid=(2, 1))
    args.update(bad)
    with pytest.raises(TypeError, match=message):
        weir.decompose(args["program"], args["dims"], args["grid"])


@needs_mpi
def test_laplacian_layout_by_hand():
    # laplacian writes out[1:-1, 1:-1] and reads f one point around: frame 1/1 along I and J, one
    # exchange (f). 13 points along I: an output domain of 11 over 2 ranks is 6 + 5 points, rank 0
    # computing I = 1..6 and holding 0..7 (its part and the frame), owning 0..6 (the global frame
    # below it too); rank 1 computing 7..11, holding 6..12, owning 7..12. J is not split (1 rank).
    dp = weir.decompose(weir.load(LAPLACIAN), "I,J", (2, 1))
    assert dp.dims == ["I", "J"] and dp.grid == [2, 1]
    assert dp.exchanges == 1
    assert dp.frame == {"I": (1, 1), "J": (1, 1)}
    assert dp.window("f", (13, 11, 3), [0, 0]) == [(0, 8), (0, 11), (0, 3)]
    assert dp.window("f", (13, 11, 3), [1, 0]) == [(6, 13), (0, 11), (0, 3)]
    assert dp.window("out", (13, 11, 3), [0, 0], own=True) == [(0, 7), (0, 11), (0, 3)]
    assert dp.window("out", (13, 11, 3), [1, 0], own=True) == [(7, 13), (0, 11), (0, 3)]


@needs_mpi
def test_hdiff_layout_by_hand():
    # hdiff writes out[2:-2, 2:-2] and reads u two points around (coeff unshifted): frame 2/2, one
    # exchange. 12 points along J over 3 ranks: a domain of 8 is 3 + 3 + 2, the middle rank
    # computing J = 5..7 and holding 3..9 (owning only its part).
    dp = weir.decompose(weir.load(HDIFF), ("I", "J"), (1, 3))
    assert dp.exchanges == 1 and dp.frame == {"I": (2, 2), "J": (2, 2)}
    assert dp.window("u", (14, 12, 2), [0, 1]) == [(0, 14), (3, 10), (0, 2)]
    assert dp.window("coeff", (14, 12, 2), [0, 1], own=True) == [(0, 14), (5, 8), (0, 2)]
    with pytest.raises(weir.Error, match="coordinate 3 along J is outside the grid 1x3"):
        dp.window("u", (14, 12, 2), [0, 3])


@needs_mpi
def test_refusals_before_any_message():
    with pytest.raises(weir.Error, match="process grid: 0 ranks along J"):
        weir.decompose(weir.load(LAPLACIAN), "I,J", (2, 0))
    with pytest.raises(weir.Error, match="2 dimensions and 1 counts"):
        weir.decompose(weir.load(LAPLACIAN), "I,J", (2,))
    # An unstructured program has no I and J to split.
    with pytest.raises(weir.Error, match="program 'edge_sum_program' writes no field along dimension I to decompose"):
        weir.decompose(weir.load(EDGES), "I,J", (2, 1))


@needs_mpi
def test_global_reductions_and_their_refusals():
    # tests/mpi/global_reductions.py (docs/adr/0057 "global reductions"): np.max(u) of the whole
    # field is one Reduce over the owned points and one Allreduce; a slice reaching 3 points into
    # the ranks' parts along I (frame 1), a field without J and a field no call reads or writes
    # (not split) are refused at their statements.
    src = ROOT / "tests" / "mpi" / "global_reductions.py"
    dp = weir.decompose(weir.load(f"{src}::peak_step"), "I,J", (2, 1))
    assert dp.reductions == 1 and dp.exchanges == 1
    assert weir.decompose(weir.load(LAPLACIAN), "I,J", (2, 1)).reductions == 0
    with pytest.raises(weir.Error, match=r"global_reductions.py:31:9: cannot decompose the reduction over 'u': "
                       r"its slice 3: along I reaches past the frame \(1 point before, 1 after\)"):
        weir.decompose(weir.load(f"{src}::past_frame"), "I,J", (2, 1))
    with pytest.raises(weir.Error, match=r"global_reductions.py:38:9: cannot decompose the reduction over 'c': "
                       r"it has no dimension J, along which the program is split"):
        weir.decompose(weir.load(f"{src}::column_max"), "I,J", (2, 1))
    with pytest.raises(weir.Error, match=r"global_reductions.py:44:9: cannot decompose the reduction over 'w': "
                       r"no call of the function reads or writes it"):
        weir.decompose(weir.load(f"{src}::unsplit"), "I,J", (2, 1))
