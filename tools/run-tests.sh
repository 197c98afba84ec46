#!/usr/bin/env bash
# The test tiers (docs/testing.md), run by `make check`, `make test` and `make test-all`.
#
#   tools/run-tests.sh check   unit tests, CLI, budget, template and lint tests, a fixed sample of the testsuite
#                              (C and the CUDA emulation), the snapshots' sample:
#                              minutes, before every commit
#   tools/run-tests.sh test    everything, with one share in three of the testsuite's
#                              CUDA sets (chosen by the commit: every set runs over
#                              three commits); CI's entry point
#   tools/run-tests.sh all     everything, every CUDA set
#
# Uses cargo-nextest where it is installed (it prints each test as it ends, n/N and its
# time), cargo test otherwise. Prints and records how long a successful run took.
set -euo pipefail
cd "$(dirname "$0")/.."
tier="${1:-test}"
CARGO="${CARGO:-cargo}"
time_file="target/make-$tier.time"

# The testsuite programs of the fast tier (each a few seconds to half a minute): a loop
# chain, a PolyBench-style scop with macros, multi-level tiles, a time-iterated scop,
# fusion with temporaries, and a region left as written.
CHECK_PROGRAMS=(
  programs::chain_1d_two_nests
  programs::polybench_macro_statements
  programs::multi_level_tiles
  programs::seidel2d_scop
  programs::minifluxdiv_minshift
  programs::unsigned_condition_kept
)

if [ -f "$time_file" ]; then
  t=$(cat "$time_file")
  echo "make $tier: the last successful run here took $((t / 60)) min $((t % 60)) s (load average now: $(cut -d' ' -f1 /proc/loadavg), $(nproc) cores)"
fi

share=""
case "$tier" in
  check) share="0/3" ;;
  test)
    h=$(git rev-parse --short=7 HEAD 2>/dev/null || echo 0)
    share="$((16#$h % 3))/3"
    ;;
  all) ;;
  *) echo "usage: $0 check|test|all" >&2; exit 2 ;;
esac
if [ -n "$share" ]; then
  export FLEXTILE_TEST_SHARE="$share"
  echo "make $tier: the testsuite's CUDA sets of share $share (FLEXTILE_TEST_SHARE)"
fi

nextest=0
if $CARGO nextest --version >/dev/null 2>&1; then nextest=1; fi

# cargo_tests ARGS... -- FILTERS...: the Rust tests, through nextest where there is one.
cargo_tests() {
  if [ "$nextest" = 1 ]; then
    $CARGO nextest run --release --no-fail-fast --show-progress counter "$@"
  else
    $CARGO test --release --no-fail-fast "$@"
  fi
}

start=$(date +%s)
case "$tier" in
  check)
    cargo_tests --lib
    cargo_tests --test cli
    cargo_tests --test missed
    cargo_tests --test alias_facts
    cargo_tests --test budget
    cargo_tests --test templates
    cargo_tests --test lint
    cargo_tests --test testsuite -- "${CHECK_PROGRAMS[@]}" errors:: harness_ every_
    FLEXTILE_SNAPSHOT=sample cargo_tests --test snapshots
    ;;
  test | all)
    cargo_tests
    python3 -m unittest -q tools/difftest/test_gen.py
    python3 tools/difftest/run.py -n 200 --seed 1 --no-save --quiet
    python3 tools/difftest/inline_fuzz.py -n 24 --seed 1
    ;;
esac
elapsed=$(($(date +%s) - start))
mkdir -p target
echo "$elapsed" > "$time_file"
echo "make $tier: passed in $((elapsed / 60)) min $((elapsed % 60)) s"
