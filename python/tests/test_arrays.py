# weir.zeros/empty/full/array: NumPy arrays in a backend's memory, aligned as its allocator
# aligns (64 bytes for the ready backends), owned by the array, passed to programs without a copy.
import gc

import numpy as np
import pytest

import weir
from conftest import HDIFF, hdiff_numpy


@pytest.mark.parametrize("shape", [(7,), (5, 3), (256, 256, 80), (3, 0, 2), ()])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "bool", np.complex128])
def test_zeros_are_aligned_zero_filled_c_order(shape, dtype):
    a = weir.zeros(shape, dtype)
    assert isinstance(a, np.ndarray)
    assert a.shape == shape and a.dtype == np.dtype(dtype)
    assert a.flags.c_contiguous and a.flags.writeable and a.flags.aligned
    assert a.ctypes.data % 64 == 0
    assert not a.any()


def test_an_int_shape_and_the_other_constructors():
    assert weir.zeros(5).shape == (5,)
    e = weir.empty((4, 2), np.float32)
    assert e.dtype == np.float32 and not e.any() and e.ctypes.data % 64 == 0
    f = weir.full((3, 4), 2.5)
    np.testing.assert_array_equal(f, np.full((3, 4), 2.5))
    values = np.arange(24.0).reshape(2, 3, 4)[:, ::-1, :]  # not C-contiguous: copied into C order
    c = weir.array(values)
    np.testing.assert_array_equal(c, values)
    assert c.flags.c_contiguous and c.ctypes.data % 64 == 0 and not np.shares_memory(c, values)
    assert weir.array([[1, 2], [3, 4]], dtype="float64").dtype == np.float64


def test_the_alignment_is_the_allocators():
    a = weir.zeros((100,), backend=weir.Allocator(alignment=4096))
    assert a.ctypes.data % 4096 == 0
    custom = weir.backends.cpu.replace(name="paged", allocator=weir.Allocator(alignment=1024))
    for _ in range(8):
        assert weir.zeros((33,), backend=custom).ctypes.data % 1024 == 0


def test_the_memory_lives_as_long_as_a_view():
    a = weir.full((1000,), 7.0)
    tail = a[500:]
    del a
    gc.collect()
    # The view keeps the buffer: writing and reading it stays valid (ASan would catch a free).
    tail[...] += 1.0
    np.testing.assert_array_equal(tail, np.full(500, 8.0))


def test_programs_write_into_them_without_copying(backend, rng):
    p = weir.load(HDIFF, backend=backend)
    u, coeff = weir.array(rng.random((12, 11, 3))), weir.array(rng.random((12, 11, 3)))
    out = weir.zeros(u.shape)
    before = out.ctypes.data
    p(u, coeff, out)
    assert out.ctypes.data == before
    np.testing.assert_allclose(out[2:-2, 2:-2], hdiff_numpy(u, coeff), rtol=1e-14, atol=0)


def test_bad_arguments_are_refused_with_their_reason():
    with pytest.raises(weir.ArgumentError, match=r"shape \(4, -3\): negative extent"):
        weir.zeros((4, -3))
    with pytest.raises(TypeError, match="shape: expected an int or a sequence of ints, got str"):
        weir.zeros(("4",))
    with pytest.raises(TypeError, match="not an element type of weir's fields"):
        weir.zeros((4,), dtype=object)
    with pytest.raises(TypeError, match="not an element type of weir's fields"):
        weir.zeros((4,), dtype=">f8")
    with pytest.raises(TypeError, match="expected a weir.Backend .* or a weir.Allocator, got str"):
        weir.zeros((4,), backend="cpu")


def test_a_shape_larger_than_memory_names_its_bytes():
    # user30 F4a: MemoryError "std::bad_alloc" before. 10**6 * 10**6 * 10**3 float64 elements
    # are 8 * 10**15 bytes, 8 PB; (10**5, 10**5, 10**3) of float32 are 4 * 10**13 bytes, 40 TB.
    with pytest.raises(weir.ArgumentError,
                       match=r"^shape \(1000000, 1000000, 1000\) of float64 needs 8 PB, more than this "
                             r"machine's memory \([0-9.]+ [kMGT]B\)$"):
        weir.zeros((10**6, 10**6, 10**3))
    with pytest.raises(weir.ArgumentError, match=r"^shape \(100000, 100000, 1000\) of float32 needs 40 TB"):
        weir.empty((10**5, 10**5, 10**3), dtype=np.float32)
