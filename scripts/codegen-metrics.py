#!/usr/bin/env python3
"""Measures issue 33's size limits of code generation (docs/adr/0033).

- Function lengths: every function body in the given C++ files (default: codegen/src/*.cpp and
  *.h), counted from the line of its `{` to the line of its `}` (both included), after comments,
  string and character literals (raw strings too) are blanked; lambdas and local classes count
  towards the function that holds them. Prints those over --limit lines (default 150), longest
  first, then the longest --top.
- StateGen's methods: the distinct member-function names declared in `class StateGen` of
  codegen/src/state_codegen.h (comments removed, nested structs and classes skipped, overloads
  once; constructors and operators included).

Exit status 1 when a function is over the limit or StateGen declares --max-methods names or more
(default 35), so CI or a reviewer can run it as a check: `python3 scripts/codegen-metrics.py`.
"""
import argparse
import glob
import os
import re
import sys


def blank(text):
    """Text with comments and literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = text.find("(", i + 2)
            delim = text[i + 2 : k]
            j = text.find(")" + delim + '"', k)
            j = n if j < 0 else j + len(delim) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum() and text[i + 1 : i + 2].isalnum():
                out.append(c)  # a digit separator: 1'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_preprocessor(text):
    return re.sub(r"(?m)^[ \t]*#.*$", lambda m: " " * len(m.group(0)), text)


def functions(path):
    """(name, first line, lines) of every function body of a file."""
    text = strip_preprocessor(blank(open(path, encoding="utf-8").read()))
    stack = []  # kinds: "ns", "class", "fn", "other"; with (start line, name) for "fn"
    found = []
    head_start = 0
    line = 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c in ";":
            if not stack or stack[-1][0] in ("ns", "class"):
                head_start = i + 1
        elif c == "{":
            outer = stack[-1][0] if stack else "ns"
            head = text[head_start:i]
            if outer in ("fn", "other"):
                stack.append(("other", line, ""))
            elif re.search(r"\bnamespace\b", head) or re.search(r'\bextern\s*$', head):
                stack.append(("ns", line, ""))
            elif ")" in head and not re.search(r"=\s*$", head) and not re.search(r"\b(class|struct|union|enum)\b[^()]*$", head):
                m = re.search(r"([~\w:]+(?:operator\s*[^\s(]+)?)\s*\(", head)
                name = m.group(1) if m else "?"
                stack.append(("fn", line, name))
            elif re.search(r"\b(class|struct|union|enum)\b", head) and "=" not in head:
                stack.append(("class", line, ""))
            else:
                stack.append(("other", line, ""))
            head_start = i + 1
        elif c == "}":
            if stack:
                kind, start, name = stack.pop()
                if kind == "fn":
                    found.append((name, start, line - start + 1))
            if not stack or stack[-1][0] in ("ns", "class"):
                head_start = i + 1
    return found


def state_gen_methods(header):
    text = blank(open(header, encoding="utf-8").read())
    m = re.search(r"\bclass\s+StateGen\b[^;{]*\{", text)
    if not m:
        return None
    depth, i, body = 1, m.end(), []
    while depth and i < len(text):
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if depth == 1 and c not in "{}":
            body.append(c)
        elif depth == 1 and c == "}":
            body.append(";")  # a nested body ends a declaration
        i += 1
    names = set()
    for decl in "".join(body).split(";"):
        decl = re.sub(r"\b(public|private|protected)\s*:", " ", decl)
        if re.search(r"\b(struct|class|using|friend|typedef|enum)\b", decl):
            continue
        fm = re.search(r"([~\w]+|operator\s*\S+?)\s*\(", decl)
        if fm and not re.search(r"=\s*[^=]*\($", decl[: fm.end()]):
            names.add(fm.group(1))
    return names


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--limit", type=int, default=150)
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--max-methods", type=int, default=35)
    a = ap.parse_args()
    files = a.files or sorted(glob.glob(os.path.join(root, "codegen/src/*.cpp")) + glob.glob(os.path.join(root, "codegen/src/*.h")))
    rows = []
    for f in files:
        for name, start, n in functions(f):
            rows.append((n, os.path.relpath(f, root), start, name))
    rows.sort(reverse=True)
    over = [r for r in rows if r[0] > a.limit]
    print(f"functions over {a.limit} lines: {len(over)} (of {len(rows)} in {len(files)} files)")
    for n, f, start, name in over:
        print(f"  {n:4d}  {name}  {f}:{start}")
    print(f"longest {a.top}:")
    for n, f, start, name in rows[: a.top]:
        print(f"  {n:4d}  {name}  {f}:{start}")
    bad = bool(over)
    if not a.files:
        names = state_gen_methods(os.path.join(root, "codegen/src/state_codegen.h"))
        print(f"StateGen member-function names: {len(names)} (limit: under {a.max_methods})")
        bad = bad or len(names) >= a.max_methods
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
