# program.__sdfg__ (fresh every call) and the DaCe protocol, weir.SDFG and weir.optimize.
import json

import numpy as np
import pytest

import weir
from conftest import ROOT, example, laplacian_numpy, program

LAPLACIAN = example("cartesian/laplacian.py", "laplacian")
INVALID = ROOT / "tests" / "lit" / "Inputs" / "sdfg" / "invalid-laplacian.sdfg"


def test_sdfg_is_fresh_every_call(rng):
    p = weir.load(LAPLACIAN, backend=weir.backends.cpu)
    a, b = p.__sdfg__(), p.__sdfg__()
    assert isinstance(a, weir.SDFG)
    assert a == b and a is not b
    assert a.name == "laplacian"
    a.name = "changed"
    assert a != b and b.name == "laplacian"
    assert p.__sdfg__().name == "laplacian" and p.__sdfg__() == b
    # Changing the returned SDFG changes nothing the program compiles.
    f = rng.random((7, 6, 2))
    out = np.zeros_like(f)
    p(f, out)
    np.testing.assert_array_equal(out[1:-1, 1:-1], laplacian_numpy(f))


def test_sdfg_of_each_kind_of_program():
    assert weir.load(program("pointwise.py", "axpy")).__sdfg__().validate() == []
    heat = weir.load(example("orchestration/heat.py", "heat")).__sdfg__()
    assert heat.name == "heat" and heat.validate() == []
    e = weir.load(program("edges.py", "edge_sum_program"))
    two = e.__sdfg__()
    three = e.__sdfg__(offset_provider={"E2V": np.zeros((4, 3), np.int32)})
    assert two != three  # the table's width is part of the lowering


def dace_like_call(obj, *args, **kwargs):
    """What DaCe's Python frontend does with an object in a @dace.program (a stand-in: DaCe is
    not a Debian package): ask it for its SDFG, argument names and closure."""
    sdfg = obj.__sdfg__(*args, **kwargs)
    names, constants = obj.__sdfg_signature__()
    closure = obj.__sdfg_closure__()
    return sdfg, names, constants, closure


def test_dace_protocol():
    p = weir.load(LAPLACIAN)
    f = np.zeros((5, 5, 2))
    sdfg, names, constants, closure = dace_like_call(p, f, np.zeros_like(f))
    assert names == ["f", "out"] and constants == [] and closure == {}
    assert [n for n in sdfg.arglist if n in names] == names
    assert sdfg.to_json()["type"] == "SDFG"
    fo = weir.load(program("pointwise.py", "axpy"))
    assert fo.__sdfg_signature__() == (["a", "x", "y", "__out"], [])
    assert weir.load(program("edges.py", "edge_sum_program")).__sdfg_signature__()[0] == ["v", "out", "E2V"]


def test_save_load_and_json(tmp_path):
    s = weir.load(LAPLACIAN).__sdfg__()
    for name in ["lap.sdfg", "lap.sdfgz"]:
        s.save(tmp_path / name)
        t = weir.SDFG.load(tmp_path / name)
        assert t == s and t is not s
        assert s.difference(t) == ""
    s.save(str(tmp_path / "indented.sdfg"), indent=2)
    assert (tmp_path / "indented.sdfg").read_text().startswith("{\n  ")
    d = s.to_json()
    assert isinstance(d, dict) and d["type"] == "SDFG"
    assert weir.SDFG.from_json(d) == s
    assert weir.SDFG.from_json(json.dumps(d)) == s
    c = s.copy()
    assert c == s and c is not s
    c.name = "other"
    assert s.name == "laplacian"
    assert "name" in s.difference(c) or s.difference(c) != ""


def test_validate_lists_problems_with_their_elements():
    s = weir.SDFG.load(INVALID)
    problems = s.validate()
    assert len(problems) == 4
    assert all(isinstance(p, weir.Problem) for p in problems)
    assert "tasklet-no-code" in [p.code for p in problems]
    assert "access-unknown-data" in [p.code for p in problems]
    assert any("node 4 ('out')" in p.element for p in problems)
    assert "[tasklet-no-code]" in str(problems[0]) or any("[tasklet-no-code]" in str(p) for p in problems)


def test_sdfg_load_errors(tmp_path):
    with pytest.raises(weir.SDFGError):
        weir.SDFG.load(tmp_path / "missing.sdfg")
    bad = tmp_path / "bad.sdfg"
    bad.write_text('{"type": "SDFG",\n  oops}')
    with pytest.raises(weir.SDFGError) as e:
        weir.SDFG.load(bad)
    assert e.value.file is not None and e.value.file.endswith("bad.sdfg") and e.value.line == 2


def test_optimize(rng):
    s = weir.load(example("cartesian/hdiff.py", "hdiff_program")).__sdfg__()
    assert s.history == []
    o = weir.optimize(s, auto="cpu")
    assert isinstance(o, weir.SDFG) and o is not s and o != s
    assert s.history == [] and len(o.history) > 0
    assert o.validate() == []
    assert weir.optimize(s, auto="CPU") == o
    p = weir.optimize(s, passes="simplify")
    assert p.validate() == []


def test_optimize_errors():
    s = weir.load(LAPLACIAN).__sdfg__()
    with pytest.raises(ValueError, match="unknown device 'tpu' for auto= \\(devices: cpu, gpu\\)"):
        weir.optimize(s, auto="tpu")
    with pytest.raises(TypeError, match="exactly one of"):
        weir.optimize(s, auto="cpu", passes="simplify")
    with pytest.raises(TypeError, match="exactly one of"):
        weir.optimize(s)
    with pytest.raises(weir.TransformError, match="simplfy"):
        weir.optimize(s, passes="simplfy")


def test_optimize_with_a_script(tmp_path):
    s = weir.load(LAPLACIAN).__sdfg__()
    script = [{"transformation": "MapTiling", "where": "all", "options": {"tile_sizes": [4, 4]}}]
    try:
        t = weir.optimize(s, script=script)
    except weir.TransformError as e:  # the script's form is the CLI's (docs/transformation-scripts.md)
        pytest.fail(str(e))
    assert len(t.history) >= 1 and t.validate() == []
    path = tmp_path / "tune.json"
    path.write_text(json.dumps(script))
    assert weir.optimize(s, script=path) == t
    assert weir.optimize(s, script=str(path)) == t


def test_optimize_with_a_script_as_json_text(tmp_path):
    # user31's G21: script= also takes the script's JSON text (a str starting with '[' or '{').
    s = weir.load(LAPLACIAN).__sdfg__()
    script = [{"transformation": "MapTiling", "where": "all", "options": {"tile_sizes": [4, 4]}}]
    t = weir.optimize(s, script=script)
    assert weir.optimize(s, script=json.dumps(script)) == t
    assert weir.optimize(s, script="  \n" + json.dumps({"steps": script})) == t
    # Errors in JSON text are located as in a list's (the CLI's form, `<script>:` first).
    with pytest.raises(weir.Error, match="^<script>: .*MapTilin"):
        weir.optimize(s, script='[{"transformation": "MapTilin"}]')
    missing = str(tmp_path / "nonexistent.json")
    with pytest.raises(weir.Error, match="^script '.*nonexistent.json': no such file \\(script= takes a file, "
                       "the script's JSON text starting with '\\[' or '\\{', or a list or dict\\)$"):
        weir.optimize(s, script=missing)
    with pytest.raises(weir.Error, match="is a directory, not a script file"):
        weir.optimize(s, script=tmp_path)
    with pytest.raises(TypeError, match="script= must be a script file .* not int"):
        weir.optimize(s, script=5)


def test_compile_an_sdfg(rng):
    s = weir.optimize(weir.load(LAPLACIAN).__sdfg__(), auto="cpu")
    c = s.compile(backend=weir.backends.cpu)
    assert isinstance(c, weir.CompiledSDFG) and c.backend is weir.backends.cpu
    assert c.arglist[:2] == ["f", "out"]
    f = rng.random((8, 7, 3))
    big = np.zeros((2, 8, 7, 3))
    out = big[1]
    assert c(f=f, out=out) is None  # sizes inferred from the shapes
    np.testing.assert_array_equal(big[1, 1:-1, 1:-1], laplacian_numpy(f))
    out2 = np.zeros_like(f)
    c(f, out2)
    np.testing.assert_array_equal(out2, big[1])
    with pytest.raises(TypeError, match="argument 'f': expected a NumPy float64 array with 3 dimensions"):
        c(f=f.astype(np.float32), out=out)
    with pytest.raises(TypeError, match="unexpected argument 'g'"):
        c(g=f)
    with pytest.raises(ValueError, match="not C-contiguous"):
        c(f=np.asfortranarray(f), out=out)
    with pytest.raises(weir.ArgumentError, match="missing argument 'f'"):
        c(out=out)
    with pytest.raises(weir.BackendError, match="needs a compiled backend"):
        s.compile(backend=weir.backends.embedded)
    with pytest.raises(TypeError, match="SDFG.compile\\(\\): backend: expected"):
        s.compile(backend="cpu")


CORPUS = ROOT.parent / "shared" / "corpus" / "dace" / "hdiff"


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus/dace is missing")
def test_compile_daces_hdiff_against_its_expected_output():
    c = weir.SDFG.load(CORPUS / "hdiff.auto_optimized_cpu.sdfg").compile()
    inputs = {n: np.load(CORPUS / "inputs" / f"{n}.npy") for n in ["in_field", "coeff", "out_field"]}
    symbols = json.loads((CORPUS / "symbols.json").read_text())
    c(**inputs, **symbols)
    np.testing.assert_allclose(inputs["out_field"], np.load(CORPUS / "expected" / "out_field.npy"), rtol=1e-12, atol=0)
