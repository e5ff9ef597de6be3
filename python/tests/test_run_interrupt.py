# Ctrl-C while a compiled program runs (user32 H19; docs/adr/0038, session 34): a time loop of
# 10**8 steps stops between two iterations with KeyboardInterrupt, not when it ends, and leaves
# the arrays as the iterations before the interrupt wrote them. A second thread sends SIGINT once
# the arrays show the loop running (a condition the program's progress sets, not a delay).
import os
import signal
import threading

import numpy as np
import pytest

import weir
from conftest import program

COUNT = program("count.py", "count")


def test_ctrl_c_stops_a_running_time_loop_between_iterations(tmp_path):
    p = weir.load(COUNT, backend=weir.cpu_backend(cache_dir=str(tmp_path / "cache")))
    u, v = np.zeros((8, 6)), np.zeros((8, 6))
    p(u, v, 3)  # compiles it; 3 steps: v holds 3, u 2
    assert np.all(v == 3.0) and np.all(u == 2.0)
    u[...] = 0.0
    v[...] = 0.0
    done = threading.Event()
    sent = []

    def interrupt_when_running():
        # The loop runs once a level holds 2 or more (past its first iterations).
        while not done.is_set():
            if max(u.max(), v.max()) >= 2.0:
                sent.append(True)
                os.kill(os.getpid(), signal.SIGINT)
                return

    steps = 10**8  # minutes of iterations; before the fix KeyboardInterrupt came after the last
    watcher = threading.Thread(target=interrupt_when_running)
    watcher.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            p(u, v, steps)
    finally:
        done.set()
        watcher.join()
    assert sent
    # A defined state: every iteration before the interrupt ran whole, none after it began.
    assert np.all(u == u.flat[0]) and np.all(v == v.flat[0]), (u, v)
    assert abs(u.flat[0] - v.flat[0]) == 1.0, (u.flat[0], v.flat[0])
    assert max(u.flat[0], v.flat[0]) < steps  # it stopped, not ran to its end
    # The program is usable afterwards, and the next call is not interrupted.
    u[...] = 0.0
    v[...] = 0.0
    p(u, v, 4)
    assert np.all(u == 4.0) and np.all(v == 3.0)
