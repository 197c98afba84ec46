#!/bin/sh
# Builds every benchmark program and compares its `--size test` stdout with
# benchmarks/expected/<program>.test.out (stdout is deterministic: checksums,
# hashes, samples; timing goes to stderr).
#
#   tools/verify.sh            check all programs
#   tools/verify.sh --update   rewrite the expected files from the current build
#   CC=clang CFLAGS=... tools/verify.sh
#
# The expected files were checked against the spec's Appendix A and
# reference_numpy.py (see README.md).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-gcc}
CFLAGS=${CFLAGS:--O2 -std=gnu99 -ffp-contract=off -fopenmp -Wno-unknown-pragmas}
work=$(mktemp -d "${TMPDIR:-/tmp}/flextile-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
update=0
[ "${1:-}" = "--update" ] && update=1
fail=0
for src in "$here"/*.c; do
  p=$(basename "$src" .c)
  if ! $CC $CFLAGS "$src" -o "$work/$p" -lm; then
    echo "FAIL $p (build)"; fail=1; continue
  fi
  if ! "$work/$p" --size test --reps 1 > "$work/$p.out" 2> "$work/$p.err"; then
    echo "FAIL $p (run)"; cat "$work/$p.err"; fail=1; continue
  fi
  exp="$here/expected/$p.test.out"
  if [ $update = 1 ]; then
    cp "$work/$p.out" "$exp"; echo "updated $p"
  elif diff -u "$exp" "$work/$p.out" > "$work/$p.diff"; then
    echo "ok   $p  $(grep '^fnv1a64' "$work/$p.out")"
  else
    echo "FAIL $p (output differs)"; cat "$work/$p.diff"; fail=1
  fi
done
exit $fail
