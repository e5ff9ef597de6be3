# lit configuration of weir's structural tests (tests/lit/README.md): `.test` files whose RUN
# lines call the built `weir` and pipe what it prints into FileCheck, as LLVM and MLIR test their
# tools. Loaded by lit.site.cfg.py, which CMake writes into the build folder with this build's
# paths; run lit on that folder:
#   /usr/bin/python3 /usr/lib/llvm-14/build/utils/lit/lit.py -sv build-test/tests/lit
import os

import lit.formats
import lit.util

if not hasattr(config, "weir_bin"):
    lit_config.fatal(
        "tests/lit has no site configuration: run lit on the build folder's tests/lit "
        "(e.g. build-test/tests/lit), which CMake writes, not on the source folder")

config.name = "weir"
# The internal shell (as MLIR's suites): the same behaviour on every machine, pipefail on.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test"]
config.excludes = ["Inputs", "tools", "README.md", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
# %t files go below the build folder (test_exec_root, set by lit.site.cfg.py).

if not os.path.exists(config.weir_bin):
    lit_config.fatal("weir is not built: %s is missing (cmake --build BUILD --target weir)" % config.weir_bin)

source = config.weir_source_dir
tools = os.path.join(config.test_source_root, "tools")


def shared_dir():
    # As the C++ suites (tests/support/corpus.cpp): $WEIR_SHARED_DIR, ../shared beside the
    # checkout, or ../../shared for a git worktree one level deeper.
    candidates = []
    if os.environ.get("WEIR_SHARED_DIR"):
        candidates.append(os.environ["WEIR_SHARED_DIR"])
    candidates += [os.path.join(source, "..", "shared"), os.path.join(source, "..", "..", "shared")]
    for c in candidates:
        if os.path.isdir(os.path.join(c, "corpus")):
            return os.path.realpath(c)
    lit_config.warning("the corpus is missing: expected %s/corpus (tests that read it will fail)"
                       % os.path.realpath(candidates[0]))
    return os.path.realpath(candidates[0])


corpus = os.path.join(shared_dir(), "corpus")

# Longest first: lit applies these in order, before its own %s, %S, %t.
config.substitutions.append(("%expect-exit", "%s %s" % (config.python3, os.path.join(tools, "expect_exit.py"))))
config.substitutions.append(("%examples", os.path.join(source, "examples")))
config.substitutions.append(("%corpus", corpus))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%weir", config.weir_bin))

# FileCheck and not from the same LLVM (Debian's llvm-14-tools) first in PATH.
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(config.filecheck), os.path.dirname(config.not_tool), config.environment.get("PATH", "")])
# Compiled programs (weir compile) go into a cache of this suite's own, kept between runs: a second
# run of the suite compiles nothing. Every pass validates what it leaves, as in the C++ suites.
config.environment["WEIR_CACHE_DIR"] = os.path.join(config.test_exec_root, "program-cache")
config.environment["WEIR_VERIFY_EACH"] = "1"
for var in ["HOME", "WEIR_SHARED_DIR", "OMP_NUM_THREADS"]:
    if os.environ.get(var):
        config.environment[var] = os.environ[var]
