# weir.load of SDFG files, weir.compose, weir.view and __sdfg__ as a dace.SDFG (with a stand-in
# `dace` module on sys.path that records what it is given: DaCe is not a Debian package).
import json
import sys

import numpy as np
import pytest

import weir
from conftest import ROOT, example, laplacian_numpy
from test_programs import heat_numpy

LAPLACIAN = example("cartesian/laplacian.py", "laplacian")
DACE_HDIFF = ROOT.parent / "shared" / "corpus" / "dace" / "hdiff"


def test_load_an_sdfg_file(tmp_path, rng):
    weir.load(LAPLACIAN).__sdfg__().save(tmp_path / "lap.sdfg")
    compiled = weir.load(str(tmp_path / "lap.sdfg"), backend=weir.backends.cpu)
    assert isinstance(compiled, weir.CompiledSDFG) and compiled.backend is weir.backends.cpu
    f = rng.random((7, 8, 2))
    out = np.zeros_like(f)
    compiled(f=f, out=out)
    np.testing.assert_array_equal(out[1:-1, 1:-1], laplacian_numpy(f))
    # The same as SDFG.load(path).compile(): the default backend is cpu; a path object works too.
    assert weir.load(tmp_path / "lap.sdfg").backend is weir.backends.cpu
    with pytest.raises(TypeError, match="an SDFG file imports none"):
        weir.load(tmp_path / "lap.sdfg", include=["."])
    with pytest.raises(weir.SDFGError, match="missing.sdfg"):
        weir.load(tmp_path / "missing.sdfg")


@pytest.mark.skipif(not DACE_HDIFF.is_dir(), reason="../shared/corpus/dace is not there")
def test_load_daces_sdfg_file():
    compiled = weir.load(DACE_HDIFF / "hdiff.auto_optimized_cpu.sdfg", backend=weir.backends.cpu)
    inputs = {p.stem: np.load(p) for p in (DACE_HDIFF / "inputs").glob("*.npy")}
    symbols = json.loads((DACE_HDIFF / "symbols.json").read_text())
    compiled(**inputs, **symbols)
    expected = np.load(DACE_HDIFF / "expected" / "out_field.npy")
    np.testing.assert_allclose(inputs["out_field"], expected, rtol=1e-12, atol=0)


def heat_composition(stage):
    return {
        "name": "heat_twice",
        "arrays": {
            "u": {"dtype": "float64", "shape": ["N", "M"]},
            "u_next": {"dtype": "float64", "shape": ["N", "M"]},
            "kappa": {"dtype": "float64", "shape": ["N", "M"]},
        },
        "scalars": {"dt": "float64"},
        "stages": {"step": stage},
        "sequence": [
            {
                "for": "t",
                "range": [0, "T"],
                "body": [
                    {"call": "step", "bind": {"u": "u", "kappa": "kappa", "dt": "dt", "out": "u_next"}},
                    {"call": "step", "bind": {"u": "u_next", "kappa": "kappa", "dt": "dt", "out": "u"}},
                ],
            }
        ],
    }


def test_compose(tmp_path, rng):
    weir.load(example("orchestration/heat.py", "heat_step")).__sdfg__().save(tmp_path / "heat_step.sdfg")
    spec = heat_composition("heat_step.sdfg")
    (tmp_path / "heat.json").write_text(json.dumps(spec))
    from_file = weir.compose(tmp_path / "heat.json")  # stages relative to the file's folder
    from_dict = weir.compose(spec, base_dir=tmp_path)
    assert isinstance(from_file, weir.SDFG) and from_file == from_dict
    assert from_file.name == "heat_twice" and from_file.validate() == []
    u, kappa = rng.random((9, 7)), rng.random((9, 7))
    u_next = u.copy()
    want_u, want_next = heat_numpy(u, u_next, kappa, 0.1, 4)  # T = 2: two steps per iteration
    from_file.compile(backend=weir.backends.cpu)(u=u, u_next=u_next, kappa=kappa, dt=0.1, T=2)
    np.testing.assert_allclose(u, want_u, rtol=0, atol=1e-14)
    np.testing.assert_allclose(u_next, want_next, rtol=0, atol=1e-14)


def test_compose_errors_name_the_description(tmp_path):
    spec = heat_composition("nowhere.sdfg")
    (tmp_path / "heat.json").write_text(json.dumps(spec))
    with pytest.raises(weir.Error, match=r"heat.json: /stages/step: .*nowhere.sdfg"):
        weir.compose(tmp_path / "heat.json")
    with pytest.raises(weir.Error, match=r"^composition description: /stages/step"):
        weir.compose(spec, base_dir=tmp_path)
    (tmp_path / "bad.json").write_text('{"name": }')
    with pytest.raises(weir.Error) as e:
        weir.compose(tmp_path / "bad.json")
    assert e.value.file.endswith("bad.json") and e.value.line == 1
    with pytest.raises(TypeError, match="compose\\(\\): expected the description's file"):
        weir.compose(["not", "a", "description"])


def test_view_writes_the_page(tmp_path):
    p = weir.load(LAPLACIAN)
    fast = weir.optimize(p.__sdfg__(), auto="cpu")
    try:
        notes = weir.view(fast, html=tmp_path / "lap.html", compare=p)
    except weir.Error as e:
        if "built without the viewer bundle" not in str(e):
            raise
        pytest.skip(str(e))  # a build without node/npm (-DWEIR_REQUIRE_VIEWER=OFF)
    html = (tmp_path / "lap.html").read_text()
    assert html.startswith("<!DOCTYPE html>") or html.lstrip().lower().startswith("<!doctype html>")
    assert '"title":"laplacian.sdfg"' in html and '"compareTitle":"laplacian.sdfg"' in html
    assert any(n.startswith("history: ") for n in notes)
    assert any(n.startswith("source: ") and n.endswith("laplacian.py") for n in notes)  # from debuginfo
    weir.view(LAPLACIAN, html=tmp_path / "src.html")  # a reference, as `weir view` takes it
    assert "return -4.0 * f" in (tmp_path / "src.html").read_text()
    with pytest.raises(TypeError, match="give html="):
        weir.view(fast)
    with pytest.raises(TypeError, match="expected a weir.SDFG, a weir.Program"):
        weir.view(3, html=tmp_path / "x.html")
    with pytest.raises(ValueError, match=r"^view\(\): 'x.py' names no definition: expected FILE.py::NAME"):
        weir.view("x.py", html=tmp_path / "x.html")
    fast.save(tmp_path / "fast.sdfg")
    with pytest.raises(ValueError, match="refusing to write over it"):
        weir.view(tmp_path / "fast.sdfg", html=tmp_path / "fast.sdfg")


@pytest.fixture
def dace_stand_in(tmp_path, monkeypatch):
    """A module `dace` whose SDFG.from_json records its argument (DaCe's signature)."""
    (tmp_path / "dace").mkdir()
    (tmp_path / "dace" / "__init__.py").write_text(
        "calls = []\n\n\nclass SDFG:\n    def __init__(self, json_obj):\n        self.json_obj = json_obj\n\n"
        "    @staticmethod\n    def from_json(json_obj, context=None):\n        calls.append(json_obj)\n"
        "        return SDFG(json_obj)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "dace", raising=False)
    yield
    sys.modules.pop("dace", None)


def test_sdfg_as_a_dace_sdfg(dace_stand_in, monkeypatch):
    import dace

    p = weir.load(LAPLACIAN)
    assert isinstance(p.__sdfg__(), weir.SDFG) and dace.calls == []  # the default: weir's
    d = p.__sdfg__(dace=True)
    assert isinstance(d, dace.SDFG) and d.json_obj == p.__sdfg__().to_json() and len(dace.calls) == 1
    assert isinstance(p.__sdfg__(dace=False), weir.SDFG)
    monkeypatch.setattr(weir, "sdfg_as_dace", "auto")
    assert isinstance(p.__sdfg__(), dace.SDFG)
    monkeypatch.setattr(weir, "sdfg_as_dace", True)
    assert isinstance(p.__sdfg__(), dace.SDFG) and len(dace.calls) == 3
    with pytest.raises(ValueError, match="True, False or 'auto'"):
        p.__sdfg__(dace="yes")


def test_sdfg_as_a_dace_sdfg_without_dace(monkeypatch):
    monkeypatch.setitem(sys.modules, "dace", None)  # `import dace` raises ImportError
    p = weir.load(LAPLACIAN)
    with pytest.raises(ImportError, match=r"__sdfg__\(dace=True\) returns a dace.SDFG and needs DaCe"):
        p.__sdfg__(dace=True)
    assert isinstance(p.__sdfg__(dace="auto"), weir.SDFG)
