"""The audit matrix of issue 38 (docs/adr/0057, section "2026-12-06, session 29"): every program
and orchestration function of the examples must run on 1, 2, 3 and 4 ranks in the MPI tests,
compared byte for byte with one rank and with NumPy, unless it is listed in EXCLUDED with the
reason. This check reads tests/mpi/CMakeLists.txt: an example is covered by an entry of
weir_mpi_test (check_decomposed.py) or weir_mpi_parts_test (check_partitioned.py) that names it
with --program, runs in the default mode (equal) and on ranks 1, 2, 3 and 4 (the default, or
--ranks listing all four). It fails naming every example that is neither covered nor excluded,
and every exclusion that names no example (a stale entry)."""
import argparse
import ast
import pathlib
import re
import shlex
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))

FOLDERS = ["examples/cartesian", "examples/unstructured", "examples/orchestration", "examples/multimodule",
           "examples/namespaced"]

EXCLUDED = {
    "potential_program": "reads no connectivity table and has no I or J: nothing for --decompose or "
                         "weir mesh --parts to split (every column is independent)",
    "pair_program": "reads no connectivity table and has no I or J: nothing for --decompose or weir mesh "
                    "--parts to split (every column is independent)",
}


def examples(source):
    """{(file, name)} of every @program of the example folders and every orchestration function
    (the undecorated function of examples/orchestration named as its file). Programs and helper
    functions of examples/orchestration are called by those: covered with them."""
    found = set()
    for folder in FOLDERS:
        for f in sorted((source / folder).rglob("*.py")):
            tree = ast.parse(f.read_text(), str(f))
            for node in tree.body:
                if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
                    continue
                decorators = [ast.unparse(d) for d in node.decorator_list]
                is_program = any(re.match(r"(gtx\.)?program\b", d) for d in decorators)
                orchestration = folder == "examples/orchestration"
                if (is_program and not orchestration) or (orchestration and not decorators and node.name == f.stem):
                    found.add((str(f.relative_to(source)), node.name))
    return found


def files_of_checks():
    """{program: file} as check_decomposed.py and check_partitioned.py resolve --program."""
    import check_decomposed
    import check_partitioned
    out = {}
    for name, (ref, *_) in check_decomposed.EXAMPLES.items():
        f = ref.split("::")[0]
        out[name] = f if f.startswith(("tests/", "examples/")) else f"examples/cartesian/{f}"
    for name, (f, _, _, _, *folder) in check_partitioned.EXAMPLES.items():
        out[name] = f if f.startswith("examples/") else f"examples/{(folder or ['unstructured'])[0]}/{f}"
    return out


def covered(cmake_text):
    """{program: [ranks]} of the equal-mode entries of tests/mpi/CMakeLists.txt."""
    out = {}
    # Each call of weir_mpi_test / weir_mpi_parts_test, with its continuation lines.
    for m in re.finditer(r"^weir_mpi(?:_parts)?_test\((.*?)\)\s*$", cmake_text, re.S | re.M):
        args = shlex.split(m.group(1).replace("\n", " "))
        opts = {args[i]: args[i + 1] for i in range(len(args) - 1) if args[i].startswith("--")}
        if "--program" not in opts or opts.get("--mode", "equal") != "equal":
            continue
        ranks = sorted(int(r) for r in opts.get("--ranks", "1,2,3,4").split(","))
        out.setdefault(opts["--program"], []).append(ranks)
    return out


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--source", required=True)
    o = a.parse_args()
    source = pathlib.Path(o.source)
    progs = examples(source)
    cov = covered((source / "tests/mpi/CMakeLists.txt").read_text())
    fails = []
    files = files_of_checks()
    for f, name in sorted(progs):
        if name in EXCLUDED:
            print(f"excluded  {f}::{name}: {EXCLUDED[name]}")
            continue
        ranks = sorted({r for rs in cov.get(name, []) for r in rs})
        if name in cov and files.get(name) != f:
            fails.append(f"{f}::{name}: the MPI tests' --program {name} runs {files.get(name)}, another file")
        elif not {1, 2, 3, 4} <= set(ranks):
            fails.append(f"{f}::{name} runs on ranks {ranks or 'none'} in tests/mpi/CMakeLists.txt, not on 1 2 3 4 "
                         "(add it to the matrix or to EXCLUDED in check_matrix.py with the reason)")
        else:
            print(f"covered   {f}::{name} on ranks {ranks}")
    for name in sorted(set(EXCLUDED) - {n for _, n in progs}):
        fails.append(f"EXCLUDED names '{name}', which no example defines")
    if len(progs) < 10:
        fails.append(f"found only {len(progs)} example programs under {FOLDERS}: is --source the repository?")
    for f in fails:
        print("FAIL:", f)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
