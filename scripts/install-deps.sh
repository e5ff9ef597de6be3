#!/usr/bin/env bash
# Installs weir's build and test dependencies from Debian packages (Debian 12 "bookworm").
# Idempotent: does nothing when everything is already installed.
set -euo pipefail
packages=(
  build-essential cmake ninja-build ccache pkg-config
  libboost-graph-dev nlohmann-json3-dev libcli11-dev catch2 zlib1g-dev libomp-dev
  python3-numpy libssl-dev
  # the Python module `import weir` (python/: pybind11 over Debian's python3) and its pytest suite
  pybind11-dev python3-dev python3-pytest
  # CBLAS for CPP tasklets DaCe writes after auto-optimize (-lblas: OpenBLAS through Debian's
  # alternatives), LAPACKE for its LAPACK environments
  libopenblas-dev liblapacke-dev
  # the viewer (viewer/, `weir view`): its loopback server, and the browser its tests drive
  libcpp-httplib-dev chromium
  # scripts/format.sh --check, scripts/clang-check.sh and scripts/tidy.sh in CI (Debian 12's
  # clang 14); libFuzzer and clang's sanitizer runtimes for scripts/fuzz.sh
  clang-format-14 clang-14 clang-tidy-14 libclang-rt-14-dev
  # lld: scripts/test.sh links both of its builds with it (ld.lld; docs/testing.md, CI)
  lld
  # lit and FileCheck (and `not`) for the structural tests of tests/lit (run by ctest)
  llvm-14-tools
  # distributed memory (weir_mpi, `weir run --decompose`, tests/mpi under mpirun; optional at
  # build time: WEIR_MPI=AUTO), mpi4py for weir.decompose's test from Python, and METIS for the
  # partitioning of meshes
  openmpi-bin libopenmpi-dev python3-mpi4py libmetis-dev
)
# node and npm build the viewer bundle; a node from elsewhere (nodesource, nvm) is kept.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then packages+=(nodejs npm); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The viewer's npm packages, as pinned in viewer/package-lock.json (again only when it changed).
# --ignore-scripts: esbuild's postinstall only checks its platform binary, which the bundle build
# does not need; without it npm 11 prints an `npm warn install-scripts` block that looks like a fault.
viewer="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/viewer"
if [ ! -f "$viewer/node_modules/.package-lock.json" ] || [ "$viewer/package-lock.json" -nt "$viewer/node_modules/.package-lock.json" ]; then
  echo "installing the viewer's npm packages (npm ci in viewer/)"
  (cd "$viewer" && npm ci --no-audit --no-fund --ignore-scripts)
fi
