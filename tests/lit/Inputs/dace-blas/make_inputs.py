#!/usr/bin/env python3
"""Writes the small SDFGs of tests/lit/dace-blas and tests/npbench/test_dace_blas_calls.cpp.

Each is one state: access nodes of the arrays, one C++ tasklet holding a CBLAS call in the shape
DaCe's OpenBLAS expansions of MatMul, Gemm, Gemv and Dot write (dace/libraries/blas/nodes/*.py:
`cblas_dgemm(CblasColMajor, ...)` with `double(1)` constants and pointer connectors), and the
output access node. The near misses change one thing of a recognised shape. Run it from this
folder (/usr/bin/python3 make_inputs.py) after changing a case; the files are committed.
"""
import json

F64 = "float64"


def rng(start, end):
    return {"start": start, "end": end, "step": "1", "tile": "1"}


def subset(text):
    ranges = []
    for part in text.split(","):
        part = part.strip()
        if ":" in part:
            a, b = part.split(":")
            ranges.append(rng(a.strip(), "%s - 1" % b.strip()))
        else:
            ranges.append(rng(part, part))
    return {"type": "Range", "ranges": ranges}


def array(shape, strides=None, dtype=F64):
    if strides is None:
        strides = []
        acc = "1"
        for d in reversed(shape):
            strides.insert(0, acc)
            acc = d if acc == "1" else "%s*%s" % (acc, d)
    total = "*".join("(%s)" % d for d in shape)
    return {"type": "Array", "attributes": {"dtype": dtype, "shape": shape, "strides": strides,
                                           "total_size": total, "offset": ["0"] * len(shape),
                                           "transient": False}}


def memlet(data, sub):
    return {"type": "Memlet", "attributes": {"data": data, "subset": subset(sub)}}


def sdfg(name, arrays, symbols, code, ins, outs, out_types=None, dtype=F64):
    """ins / outs: (connector, container, subset). Connectors are pointers to `dtype`, but those
    out_types names (Dot's scalar result)."""
    out_types = out_types or {}
    nodes, edges = [], []
    tasklet_id = len(ins) + len(outs)
    for i, (conn, data, sub) in enumerate(ins):
        nodes.append({"type": "AccessNode", "label": data, "id": i, "attributes": {"data": data}})
        edges.append({"type": "MultiConnectorEdge", "src": str(i), "src_connector": None,
                      "dst": str(tasklet_id), "dst_connector": conn,
                      "attributes": {"data": memlet(data, sub)}})
    for j, (conn, data, sub) in enumerate(outs):
        k = len(ins) + j
        nodes.append({"type": "AccessNode", "label": data, "id": k, "attributes": {"data": data}})
        edges.append({"type": "MultiConnectorEdge", "src": str(tasklet_id), "src_connector": conn,
                      "dst": str(k), "dst_connector": None, "attributes": {"data": memlet(data, sub)}})
    ptr = {"type": "pointer", "dtype": dtype}
    nodes.append({"type": "Tasklet", "label": "_MatMult_", "id": tasklet_id, "attributes": {
        "label": "_MatMult_", "code": {"language": "CPP", "string_data": code},
        "in_connectors": {c: ptr for c, _, _ in ins},
        "out_connectors": {c: out_types.get(c, ptr) for c, _, _ in outs}}})
    state = {"type": "SDFGState", "label": "main", "id": 0, "nodes": nodes, "edges": edges,
             "attributes": {}}
    return {"type": "SDFG", "dace_version": "2.0.0a6", "label": name,
            "attributes": {"name": name, "_arrays": arrays, "symbols": {s: "int64" for s in symbols},
                           "arg_names": sorted(arrays)},
            "nodes": [state], "edges": [], "start_block": 0}


GEMM = ("cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, NJ, NI, NK, double(1), _b, NJ, _a, NK, "
        "double(0), _c, NJ);")


def gemm(name, code):
    # C = A @ B, A NI x NK, B NK x NJ, row-major: as DaCe's MatMul -> OpenBLAS (B passed first).
    return sdfg(name, {"A": array(["NI", "NK"]), "B": array(["NK", "NJ"]), "C": array(["NI", "NJ"])},
                ["NI", "NJ", "NK"], code, [("_a", "A", "0:NI, 0:NK"), ("_b", "B", "0:NK, 0:NJ")],
                [("_c", "C", "0:NI, 0:NJ")])


GEMV_T = "cblas_dgemv(CblasColMajor, CblasTrans, N, M, double(1), _A, N,\n                                _x, 1, double(0), _y, 1);"
GEMV_N = "cblas_dgemv(CblasColMajor, CblasNoTrans, N, M, double(1), _A, N,\n                                _x, 1, double(0), _y, 1);"


def gemv(name, code, trans):
    # y = A @ x (DaCe's code with CblasTrans) or y = A.T @ x (CblasNoTrans); A M x N row-major.
    xn, yn = ("N", "M") if trans else ("M", "N")
    return sdfg(name, {"A": array(["M", "N"]), "x": array([xn]), "y": array([yn])}, ["M", "N"], code,
                [("_A", "A", "0:M, 0:N"), ("_x", "x", "0:%s" % xn)], [("_y", "y", "0:%s" % yn)])


def dot(name, code):
    # r[0] = A[:, 1] . y: x is a column of A (N x 3), increment 3.
    return sdfg(name, {"A": array(["N", "3"]), "y": array(["N"]), "r": array(["1"])}, ["N"], code,
                [("_x", "A", "0:N, 1"), ("_y", "y", "0:N")], [("_result", "r", "0")],
                out_types={"_result": F64})


CASES = {
    # Recognised.
    "gemm": gemm("gemm", GEMM),
    # C = A.T @ B (A stored NK x NI) times 2: B first, A with CblasTrans, alpha 2.
    "gemm-transa-alpha": sdfg(
        "gemm_transa_alpha", {"A": array(["NK", "NI"]), "B": array(["NK", "NJ"]), "C": array(["NI", "NJ"])},
        ["NI", "NJ", "NK"],
        "cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, NJ, NI, NK, double(2), _b, NJ, _a, NI, "
        "double(0), _c, NJ);", [("_a", "A", "0:NK, 0:NI"), ("_b", "B", "0:NK, 0:NJ")],
        [("_c", "C", "0:NI, 0:NJ")]),
    "gemv": gemv("gemv", GEMV_T, True),
    "gemv-transposed": gemv("gemv_transposed", GEMV_N, False),
    "dot": dot("dot", "_result = cblas_ddot(N, _x, 3, _y, 1);"),
    # Not DaCe's shape, but CBLAS's other layout: float32, row-major, y = 2 A x.
    "sgemv-rowmajor": sdfg(
        "sgemv_rowmajor", {"A": array(["M", "N"], dtype="float32"), "x": array(["N"], dtype="float32"),
                           "y": array(["M"], dtype="float32")}, ["M", "N"],
        "cblas_sgemv(CblasRowMajor, CblasNoTrans, M, N, float(2), _A, N, _x, 1, float(0), _y, 1);",
        [("_A", "A", "0:M, 0:N"), ("_x", "x", "0:N")], [("_y", "y", "0:M")], dtype="float32"),
    # Near misses: each stays a C++ tasklet.
    "gemm-wrong-ld": gemm("gemm_wrong_ld", GEMM.replace("_b, NJ", "_b, NK")),
    "gemm-two-statements": gemm("gemm_two_statements", GEMM + "\n" + GEMM),
    "gemm-unknown-function": gemm("gemm_unknown_function", GEMM.replace("cblas_dgemm", "cblas_dsymm")),
    "gemv-beta": gemv("gemv_beta", GEMV_T.replace("double(0)", "double(1)"), True),
    "dot-wrong-increment": dot("dot_wrong_increment", "_result = cblas_ddot(N, _x, 1, _y, 1);"),
}

for name, s in CASES.items():
    with open(name + ".sdfg", "w") as f:
        json.dump(s, f, indent=1)
        f.write("\n")
