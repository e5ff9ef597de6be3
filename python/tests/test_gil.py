# The GIL is released while weir works (compiling, running compiled code, the embedded
# interpreter): a Python thread makes progress during the call.
import threading
import time

import numpy as np

import weir
from conftest import example

HEAT = example("orchestration/heat.py", "heat")
HDIFF = example("cartesian/hdiff.py", "hdiff_program")


def progress_during(call):
    """How often a Python thread got to run during `call()`, and how long the call took."""
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    time.sleep(0.01)
    before = len(ticks)
    started = time.perf_counter()
    try:
        call()
    finally:
        elapsed = time.perf_counter() - started
        during = len(ticks) - before
        stop.set()
        t.join()
    return during, elapsed


def test_the_embedded_backend_interprets_without_the_gil(rng):
    p = weir.load(HDIFF)  # the embedded backend: interpreting takes a while
    # 128x128x12 took 0.047 s on a CI machine (too short to tell); 4x that leaves a margin.
    u, coeff = rng.random((256, 256, 12)), rng.random((256, 256, 12))
    out = np.zeros_like(u)
    p(u, coeff, out)  # the call measured is a repeated one: the fast path releases the GIL too
    during, elapsed = progress_during(lambda: p(u, coeff, out))
    assert elapsed > 0.05, "the call is too short to tell"
    assert during >= 5  # with the GIL held the thread could not run at all


def test_compiled_code_runs_without_the_gil(rng):
    heat = weir.load(HEAT, backend=weir.backends.cpu)
    heat.compile()  # from the program cache after the first run of the suite
    u, kappa = rng.random((512, 512)), rng.random((512, 512)) * 0.2
    u_next = u.copy()
    for steps in (250, 1000, 4000, 16000):  # long enough to tell on a fast machine too
        during, elapsed = progress_during(lambda: heat(u, u_next, kappa, 0.1, steps))
        if elapsed > 0.1:
            break
    assert elapsed > 0.05, "the call is too short to tell"
    assert during >= 5


def test_compiling_runs_without_the_gil(tmp_path):
    # A cache of its own: the C++ compiler runs (seconds) while the thread counts.
    heat = weir.load(HEAT, backend=weir.cpu_backend(cache_dir=str(tmp_path)))
    during, elapsed = progress_during(heat.compile)
    assert elapsed > 0.2, "compiled too fast to tell"
    assert during >= 20
