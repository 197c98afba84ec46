#!/usr/bin/env bash
# Times `make demo`'s two programs: the original (ORIGINAL) and flextile's
# output (FLEXTILE), both built with the same compiler and flags, with 1 and
# 2 OpenMP threads. Each program times REPS runs of its kernel itself and
# reports the best (time_ms min=...); setup and output are not timed.
# Says plainly when the machine is too loaded for the numbers to mean
# anything (load average above the number of cores).
#
# Usage: tools/demo-timing.sh ORIGINAL FLEXTILE [REPS]   (env: DEMO_SIZE, default bench)
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 ORIGINAL FLEXTILE [REPS]" >&2
  exit 2
fi
original=$1
flextile=$2
reps=${3:-5}
size=${DEMO_SIZE:-bench}
cores=$(nproc)

# The 1-minute load average, and whether it is above the core count.
load() { cut -d' ' -f1 /proc/loadavg; }
overloaded() { awk -v l="$1" -v c="$cores" 'BEGIN { exit !(l > c) }'; }

# Best kernel time in ms of `$1` with `$2` threads.
best_ms() {
  local err
  err=$("$1" --size "$size" --reps "$reps" --threads "$2" 2>&1 >/dev/null)
  sed -n 's/^time_ms min=\([0-9.]*\).*/\1/p' <<<"$err"
}

before=$(load)
echo "--- timing: the kernel only, best of $reps runs each, --size $size (ms, lower is better) ---"
for threads in 1 2; do
  t_orig=$(best_ms "$original" "$threads")
  t_flex=$(best_ms "$flextile" "$threads")
  if [ -z "$t_orig" ] || [ -z "$t_flex" ]; then
    echo "demo-timing: a program did not report its time (time_ms min=...)" >&2
    exit 1
  fi
  printf '  %d thread(s): original %10.1f ms   flextile output %10.1f ms   speed-up x%.2f\n' \
    "$threads" "$t_orig" "$t_flex" "$(awk -v a="$t_orig" -v b="$t_flex" 'BEGIN { print (b > 0) ? a / b : 0 }')"
done
after=$(load)
if [ "$cores" -lt 2 ]; then
  echo "  note: this machine has $cores core; 2 threads share it, so they cannot run faster than 1."
fi
if overloaded "$before" || overloaded "$after"; then
  echo "  WARNING: the load average ($before before, $after after) is above the number of cores ($cores):"
  echo "  other programs were competing for the CPU, so these timings mean nothing."
  echo "  Run 'make demo' again on an idle machine to compare."
else
  echo "  load average $before before, $after after, $cores cores: the machine was not overloaded."
fi
