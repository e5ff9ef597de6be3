#!/usr/bin/env python3
"""The result-cache keys of scripts/tidy.sh: for each source named on stdin (one a line), prints
"SOURCE<TAB>KEY", KEY empty where the source cannot be keyed (then tidy.sh checks it).

    python3 scripts/tidy_keys.py BUILD_DIR ROOT CLANG_TIDY < sources

A key is the SHA-256 of everything a clang-tidy run over the source reads: the clang-tidy binary,
the .clang-tidy files from ROOT down to the source's folder, tidy.sh and this script, the
source's compile command, and the path and content of every file the compilation read (the
source and each header, system ones included), as the plain build recorded them (ninja's
dependency log, `ninja -t deps`, of the object the command writes). Paths below ROOT are keyed
relative to it, so a clone elsewhere (CI's) has the same keys. Comments are content, so a
NOLINT added or removed changes the key. No key where the record may not name every file the
source reads now: no record, a stale one, an object older than a file it read (an edit since
the build may have added an #include), or a file that is gone.
"""
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys

_digests = {}


def digest(path):
    """SHA-256 of a file's bytes (once per file and run); None if it cannot be read."""
    if path not in _digests:
        try:
            with open(path, "rb") as f:
                _digests[path] = hashlib.sha256(f.read()).hexdigest()
        except OSError:
            _digests[path] = None
    return _digests[path]


def ninja_deps(build):
    """{object path relative to BUILD: [files it read]} for the objects whose record is VALID."""
    try:
        out = subprocess.run(["ninja", "-C", build, "-t", "deps"], capture_output=True, text=True, check=False)
    except OSError:  # no ninja: no records, so no keys
        return {}
    deps, current = {}, None
    for line in out.stdout.splitlines():
        m = re.match(r"^(\S.*): #deps \d+, deps mtime \d+ \((VALID|STALE)\)$", line)
        if m:
            current = [] if m.group(2) == "VALID" else None
            if current is not None:
                deps[m.group(1)] = current
        elif line.startswith("    ") and current is not None:
            current.append(line.strip())
    return deps


def main():
    build, root, tidy = (os.path.realpath(a) for a in sys.argv[1:4])
    entries = {}
    for e in json.load(open(os.path.join(build, "compile_commands.json"))):
        entries.setdefault(os.path.realpath(os.path.join(e["directory"], e["file"])), e)
    deps = ninja_deps(build)
    rel = lambda p: "<root>" + p[len(root):] if p == root or p.startswith(root + "/") else p
    fixed = hashlib.sha256()
    for part in (tidy, os.path.join(root, "scripts", "tidy.sh"), os.path.abspath(__file__)):
        fixed.update(f"{rel(part)} {digest(part)}\n".encode())
    for line in sys.stdin:
        source = line.rstrip("\n")
        print(f"{source}\t{key(source, entries, deps, rel, fixed.copy(), root)}")


def key(source, entries, deps, rel, h, root):
    """The source's key ("" where it has none), continuing the hash `h` of the fixed parts."""
    path = os.path.realpath(source)
    e = entries.get(path)
    if e is None:
        return ""
    args = e["arguments"] if "arguments" in e else shlex.split(e["command"])
    # The object: the entry's "output" where CMake writes one, else the command's -o.
    output = e.get("output") or next((b for a, b in zip(args, args[1:]) if a == "-o"), None)
    if output is None:
        return ""
    build_dir = e["directory"]
    read = deps.get(os.path.normpath(output))
    obj = os.path.join(build_dir, output)
    if read is None or not os.path.exists(obj):
        return ""
    built = os.stat(obj).st_mtime_ns
    # The configuration clang-tidy finds: each .clang-tidy from the root down to the source.
    folder = os.path.dirname(path)
    while folder == root or folder.startswith(root + "/"):
        config = os.path.join(folder, ".clang-tidy")
        if os.path.exists(config):
            h.update(f"config {rel(config)} {digest(config)}\n".encode())
        folder = os.path.dirname(folder)
    h.update(("command " + " ".join(a.replace(root + "/", "<root>/") for a in args) + "\n").encode())
    h.update(f"source {rel(path)}\n".encode())
    for f in [path] + [os.path.realpath(os.path.join(build_dir, p)) for p in read]:
        d = digest(f)
        if d is None or os.stat(f).st_mtime_ns > built:
            return ""
        h.update(f"{rel(f)} {d}\n".encode())
    return h.hexdigest()


if __name__ == "__main__":
    main()
