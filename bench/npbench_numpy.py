"""NumPy implementations of the npbench kernels of ../shared/corpus/npbench (spcl/npbench's
benchmark definitions, written here for Debian's python3-numpy; no SciPy). Each takes the
corpus case's arguments by name (inputs/*.npy, symbols.json, scalars.json) and returns the
arrays the kernel writes (by name, `__return*` for returned values), so bench/npbench.py can
check them against the corpus's expected/ before timing them.
"""
import numpy as np


def arc_distance(a):
    t1, p1, t2, p2 = a["theta_1"], a["phi_1"], a["theta_2"], a["phi_2"]
    temp = np.sin((t2 - t1) / 2)**2 + np.cos(t1) * np.cos(t2) * np.sin((p2 - p1) / 2)**2
    return {"__return": 2 * np.arctan2(np.sqrt(temp), np.sqrt(1 - temp))}


def atax(a):
    return {"__return": (a["A"] @ a["x"]) @ a["A"]}


def azimint_hist(a):
    histu = np.histogram(a["radius"], a["npt"])[0]
    histw = np.histogram(a["radius"], a["npt"], weights=a["data"])[0]
    return {"__return": histw / histu}


def cholesky(a):
    A = a["A"]
    A[0, 0] = np.sqrt(A[0, 0])
    for i in range(1, A.shape[0]):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = np.sqrt(A[i, i])
    return {"A": A}


def conv2d(a):
    inp, w, bias = a["input"], a["weights"], a["bias"]
    K = w.shape[0]
    h_out, w_out = inp.shape[1] - K + 1, inp.shape[2] - K + 1
    out = np.empty((inp.shape[0], h_out, w_out, w.shape[3]), dtype=np.float32)
    for i in range(h_out):
        for j in range(w_out):
            out[:, i, j, :] = np.sum(inp[:, i:i + K, j:j + K, :, np.newaxis] * w[np.newaxis, :, :, :], axis=(1, 2, 3))
    return {"__return": out + bias}


def correlation(a):
    data, float_n, M = a["data"], a["float_n"], a["M"]
    mean = np.mean(data, axis=0)
    stddev = np.std(data, axis=0)
    stddev[stddev <= 0.1] = 1.0
    data -= mean
    data /= np.sqrt(float_n) * stddev
    corr = np.eye(M, dtype=data.dtype)
    for i in range(M - 1):
        corr[i + 1:M, i] = corr[i, i + 1:M] = data[:, i] @ data[:, i + 1:M]
    return {"__return": corr}


def crc16(a, poly=0x8408):
    crc = 0xFFFF
    for b in a["data"]:
        cur = 0xFF & int(b)
        for _ in range(8):
            if (crc & 1) ^ (cur & 1):
                crc = (crc >> 1) ^ poly
            else:
                crc >>= 1
            cur >>= 1
    crc = ~crc & 0xFFFF
    crc = (crc << 8) | ((crc >> 8) & 0xFF)
    return {"__return": np.array(crc & 0xFFFF, dtype=np.int64)}


def deriche(a):
    alpha, img = a["alpha"], a["imgIn"]
    e = np.exp(-alpha)
    k = (1.0 - e) * (1.0 - e) / (1.0 + alpha * e - np.exp(2.0 * alpha))
    a1 = a5 = k
    a2 = a6 = k * e * (alpha - 1.0)
    a3 = a7 = k * e * (alpha + 1.0)
    a4 = a8 = -k * np.exp(-2.0 * alpha)
    b1 = 2.0**(-alpha)
    b2 = -np.exp(-2.0 * alpha)
    y1 = np.empty_like(img)
    y1[:, 0] = a1 * img[:, 0]
    y1[:, 1] = a1 * img[:, 1] + a2 * img[:, 0] + b1 * y1[:, 0]
    for j in range(2, img.shape[1]):
        y1[:, j] = a1 * img[:, j] + a2 * img[:, j - 1] + b1 * y1[:, j - 1] + b2 * y1[:, j - 2]
    y2 = np.empty_like(img)
    y2[:, -1] = 0.0
    y2[:, -2] = a3 * img[:, -1]
    for j in range(img.shape[1] - 3, -1, -1):
        y2[:, j] = a3 * img[:, j + 1] + a4 * img[:, j + 2] + b1 * y2[:, j + 1] + b2 * y2[:, j + 2]
    out = y1 + y2
    y1[0, :] = a5 * out[0, :]
    y1[1, :] = a5 * out[1, :] + a6 * out[0, :] + b1 * y1[0, :]
    for i in range(2, img.shape[0]):
        y1[i, :] = a5 * out[i, :] + a6 * out[i - 1, :] + b1 * y1[i - 1, :] + b2 * y1[i - 2, :]
    y2[-1, :] = 0.0
    y2[-2, :] = a7 * out[-1, :]
    for i in range(img.shape[0] - 3, -1, -1):
        y2[i, :] = a7 * out[i + 1, :] + a8 * out[i + 2, :] + b1 * y2[i + 1, :] + b2 * y2[i + 2, :]
    out[:] = y1 + y2
    return {"__return": out}


def floyd_warshall(a):
    path = a["path"]
    for k in range(path.shape[0]):
        path[:] = np.minimum(path[:], np.add.outer(path[:, k], path[k, :]))
    return {"path": path}


def gemm(a):
    C = a["C"]
    C[:] = a["alpha"] * a["A"] @ a["B"] + a["beta"] * C
    return {"C": C}


def go_fast(a):
    x = a["a"]
    trace = 0.0
    for i in range(x.shape[0]):
        trace += np.tanh(x[i, i])
    return {"__return": x + trace}


def jacobi_1d(a):
    A, B = a["A"], a["B"]
    for _ in range(1, a["TSTEPS"]):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])
    return {"A": A, "B": B}


def mandelbrot1(a):
    X = np.linspace(a["xmin"], a["xmax"], a["XN"], dtype=np.float64)
    Y = np.linspace(a["ymin"], a["ymax"], a["YN"], dtype=np.float64)
    C = X + Y[:, None] * 1j
    N = np.zeros(C.shape, dtype=np.int64)
    Z = np.zeros(C.shape, dtype=np.complex128)
    maxiter = int(a["maxiter"])
    for n in range(maxiter):
        inside = np.less(abs(Z), a["horizon"])
        N[inside] = n
        Z[inside] = Z[inside]**2 + C[inside]
    N[N == maxiter - 1] = 0
    return {"__return_0": Z, "__return_1": N}


def spmv(a):
    row, col, val, x = a["A_row"], a["A_col"], a["A_val"], a["x"]
    rows = np.repeat(np.arange(a["M"]), np.diff(row))
    return {"__return": np.bincount(rows, weights=val * x[col], minlength=a["M"])}


def syrk(a):
    C, A, alpha, beta = a["C"], a["A"], a["alpha"], a["beta"]
    for i in range(A.shape[0]):
        C[i, :i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, :i + 1] += alpha * A[i, k] * A[:i + 1, k]
    return {"C": C}


KERNELS = {f.__name__: f for f in (arc_distance, atax, azimint_hist, cholesky, conv2d, correlation, crc16, deriche,
                                   floyd_warshall, gemm, go_fast, jacobi_1d, mandelbrot1, spmv, syrk)}
