"""Profiles from Python (docs/adr/0048-profiling.md, "From Python"): what
``weir.SDFG.compile(profile=True)`` followed by ``CompiledSDFG.profile()`` returns.

    c = weir.optimize(program.__sdfg__(), auto="cpu").compile(profile=True)
    for _ in range(5):
        c(f, out)
    p = c.profile()
    p.report["traceEvents"]   # DaCe's instrumentation-report format (SDFV overlays it)
    print(p.table)            # the 10 elements of largest median time, as `weir run --profile`
"""

import pathlib

_PROBE = "libweir_stream_probe.so"


class Profile:
    """A profile: ``report`` (a dict: Chrome's trace events as DaCe's InstrumentationReport
    writes them, with weir's per-element summary under ``report["weir_profile"]``) and
    ``table`` (text: the headline with the bandwidth probe, then the 10 elements of largest
    median time). ``str(profile)`` is the table."""

    __slots__ = ("report", "table")

    def __init__(self, report, table):
        self.report = report
        self.table = table

    def save(self, path):
        """Writes the report as JSON (what ``weir run --profile=FILE`` writes; ``weir view
        --report FILE`` overlays it)."""
        import json

        pathlib.Path(path).write_text(json.dumps(self.report, indent=1) + "\n")

    def __str__(self):
        return self.table

    def __repr__(self):
        calls = self.report.get("weir_profile", {}).get("calls", 0)
        return f"<weir.Profile of '{self.report['weir_profile']['program']}', {calls} call(s)>"


def probe_library():
    """The bandwidth probe library (bench/hand's triad): in the build tree BUILD/lib next to
    BUILD/python/weir, installed in LIBDIR next to LIBDIR/pythonX.Y/site-packages/weir; ""
    when neither exists (the report then says the probe was not measured)."""
    here = pathlib.Path(__file__).resolve().parent
    for candidate in (here.parents[1] / "lib" / _PROBE, here.parents[2] / _PROBE):
        if candidate.is_file():
            return str(candidate)
    return ""
