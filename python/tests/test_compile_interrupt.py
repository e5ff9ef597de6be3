# Ctrl-C during a compile (docs/adr/0038, "Interrupted compiles"): KeyboardInterrupt arrives while
# the compiler still runs (not when it finishes), the compiler processes are stopped and the
# build leaves no temporaries in the cache.
import os
import signal
import subprocess
import sys
import time

from conftest import LAPLACIAN

SLOW_COMPILER = """#!/bin/sh
case " $* " in *" --version "*) exec /usr/bin/c++ "$@";; esac
sleep 30 &
echo $! >> "$WEIR_TEST_PIDS"
echo $$ >> "$WEIR_TEST_PIDS"
wait $!
exec /usr/bin/c++ "$@"
"""

CALLER = """
import sys
import numpy as np
import weir
backend = weir.cpu_backend(cache_dir=sys.argv[1], compiler=sys.argv[2])
p = weir.load(sys.argv[3], backend=backend)
f = np.zeros((12, 12, 2))
out = np.zeros((12, 12, 2))
try:
    p(f, out)
    print("finished", flush=True)
except KeyboardInterrupt as e:
    print("KeyboardInterrupt", e, flush=True)
"""


def running(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def test_keyboard_interrupt_during_a_compile_stops_the_compiler(tmp_path):
    wrapper = tmp_path / "c++"
    wrapper.write_text(SLOW_COMPILER)
    wrapper.chmod(0o700)
    pids, cache = tmp_path / "pids", tmp_path / "cache"
    caller = tmp_path / "caller.py"
    caller.write_text(CALLER)
    # The precompiled header in this cache (WEIR_PCH_DIR, which scripts/test.sh sets, off), checked below.
    env = dict(os.environ, WEIR_TEST_PIDS=str(pids), WEIR_PCH_DIR="")
    proc = subprocess.Popen(
        [sys.executable, str(caller), str(cache), str(wrapper), LAPLACIAN],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and (not pids.exists() or len(pids.read_text().split()) < 2):
            assert proc.poll() is None, proc.stdout.read()
            time.sleep(0.05)
        compiler = [int(p) for p in pids.read_text().split()]
        assert len(compiler) >= 2
        proc.send_signal(signal.SIGINT)  # to the Python process alone, not its group
        # The wrapper sleeps 30 s before it compiles: the interrupt must arrive well before.
        out, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "KeyboardInterrupt" in out, out
    assert "finished" not in out
    for pid in compiler:
        deadline = time.monotonic() + 10
        while running(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not running(pid), f"compiler process {pid} still runs"
    pch = cache / "v1" / "pch"
    assert not [n for n in (os.listdir(pch) if pch.exists() else []) if ".tmp." in n]
    tmp = cache / "v1" / "tmp"
    assert not (tmp.exists() and os.listdir(tmp))
    assert not (cache / "v1" / "failed").exists()
