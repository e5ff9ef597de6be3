# Source locations at load time (docs/adr/0061-source-locations-at-load-time.md): a compiled
# program's code names no .py path and no line, so two checkouts of the same file share one
# program-cache entry and a comment line added at the top recompiles nothing, while a fault
# still names the file where it is now, at its current line and column.
import numpy as np
import pytest

import weir

# `ident(f, out=out)` at line 9, column 5.
COPY = (
    "import gt4py.next as gtx\nfrom gt4py.next import Field, float64\n"
    "I = gtx.Dimension('I')\n@gtx.field_operator\n"
    "def ident(f: Field[[I], float64]) -> Field[[I], float64]:\n    return f\n"
    "@gtx.program\ndef copy(f: Field[[I], float64], out: Field[[I], float64]):\n"
    "    ident(f, out=out)\n"
)


def write_copy(folder, extra=0):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "copy.py"
    path.write_text("# a comment line added above the program\n" * extra + COPY)
    return path


def recording_backend(cache):
    """A cpu backend on `cache` whose compile steps' artifacts are listed in `artifacts`."""
    base = weir.cpu_backend(cache_dir=str(cache))
    artifacts = []

    def recording(program):
        artifacts.append(base.compiler(program))
        return artifacts[-1]

    return base.replace(compiler=recording), artifacts


def fault(path, backend):
    """The ProgramError of copy(f, out) with f smaller than out: a failed bounds check."""
    with pytest.raises(weir.ProgramError) as e:
        weir.load(f"{path}::copy", backend=backend)(np.arange(4.0), out=np.zeros(6))
    return e.value


def expected(path, line):
    return f"{path}:{line}:5: 'f' is read over I: [0, 6), outside its domain I: [0, 4)\n"


def test_two_checkouts_share_one_compiled_program(tmp_path):
    backend, artifacts = recording_backend(tmp_path / "cache")
    a = write_copy(tmp_path / "checkout-a" / "model")
    b = write_copy(tmp_path / "checkout-b" / "model")
    ea = fault(a, backend)
    eb = fault(b, backend)
    assert [x.cache_hit for x in artifacts] == [False, True]
    assert artifacts[0].fingerprint == artifacts[1].fingerprint
    assert expected(a, 9) in str(ea) and (ea.file, ea.line, ea.column) == (str(a), 9, 5)
    assert expected(b, 9) in str(eb) and (eb.file, eb.line, eb.column) == (str(b), 9, 5)
    for x in artifacts:  # the cached source names neither checkout
        source = open(x.source).read()
        assert str(tmp_path) not in source and "copy.py" not in source


def test_a_comment_line_on_top_recompiles_nothing(tmp_path):
    backend, artifacts = recording_backend(tmp_path / "cache")
    path = write_copy(tmp_path / "model")
    assert expected(path, 9) in str(fault(path, backend))
    write_copy(tmp_path / "model", extra=1)
    e = fault(path, backend)
    assert expected(path, 10) in str(e) and e.line == 10
    assert [x.cache_hit for x in artifacts] == [False, True]
