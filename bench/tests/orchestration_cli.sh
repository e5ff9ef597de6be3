#!/bin/sh
# weir_bench_orchestration's command line (ctest): --help prints the options and exits 0; a
# malformed or out-of-range value and an unknown granule exit 2 with an error naming the option,
# never an uncaught exception.
bench="$1"
fail() { echo "FAIL: $*"; exit 1; }
out=$("$bench" --help 2>&1) || fail "--help exited $?"
echo "$out" | grep -q -- "--levels" || fail "--help lists no --levels: $out"
expect_usage_error() {
  want="$1"; shift
  out=$("$bench" "$@" 2>&1); rc=$?
  [ "$rc" -eq 2 ] || fail "$* exited $rc, not 2: $out"
  echo "$out" | grep -q "terminate called" && fail "$* crashed: $out"
  echo "$out" | grep -q "weir_bench_orchestration: error: .*$want" || fail "$*: no error naming $want: $out"
  echo "ok: $*: $(echo "$out" | head -1)"
}
expect_usage_error "levels" --levels abc
expect_usage_error "levels" --levels 0
expect_usage_error "granules" --granules diffusion,heat
expect_usage_error "nx" --nx 2
expect_usage_error "bogus" --bogus 3
