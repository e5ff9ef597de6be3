#!/usr/bin/env bash
# Configures and builds weir into BUILD_DIR (default: build). Extra arguments go to cmake.
# BUILD_TARGETS (e.g. "weir") builds only those targets and what they need; default: everything
# (libraries, `weir`, test suites, benchmarks). Ninja prints [done/total] as it goes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
# ccache hits across clones and worktrees (CI builds a fresh clone in another folder): paths
# below the checkout are hashed relative to it, and the build directory is not part of the key.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" "$@" >/dev/null
cmake --build "$build" -j "${JOBS:-2}" ${BUILD_TARGETS:+--target $BUILD_TARGETS}
