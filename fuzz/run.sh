#!/usr/bin/env bash
# Builds the fuzz targets with cargo-fuzz (libFuzzer) and fuzzes one of them.
#   fuzz/run.sh TARGET [SECONDS] [extra libFuzzer flags...]
# TARGET: pragma_scan | parse_file | compile. The corpus (fuzz/corpus/TARGET,
# not in git) is seeded from testsuite/ and benchmarks/ on first use; crashes
# go to fuzz/artifacts/TARGET/. Works on a stable toolchain: RUSTC_BOOTSTRAP=1
# lets cargo-fuzz pass its -Z flags (sanitizer, coverage) to stable rustc.
set -euo pipefail
target=${1:?usage: fuzz/run.sh TARGET [SECONDS] [libFuzzer flags...]}
seconds=${2:-600}
shift $(( $# >= 2 ? 2 : 1 ))
cd "$(dirname "$0")/.."
command -v cargo-fuzz > /dev/null || cargo install cargo-fuzz
RUSTC_BOOTSTRAP=1 cargo fuzz build -O --debug-assertions --codegen-units 8 "$target"
corpus=fuzz/corpus/$target
if [ ! -d "$corpus" ]; then
    mkdir -p "$corpus"
    i=0
    for f in $(find testsuite benchmarks -name '*.c' | sort); do
        i=$((i + 1))
        case $target in
            pragma_scan) grep -h -A3 '#pragma' "$f" > "$corpus/seed_$i" || true ;;
            compile) { printf '\001'; cat "$f"; } > "$corpus/seed_$i"
                     { printf '\013'; cat "$f"; } > "$corpus/seedr_$i"
                     { printf '\023'; cat "$f"; } > "$corpus/seeds_$i"
                     { printf '\003'; cat "$f"; } > "$corpus/seedb_$i" ;;
            *) cp "$f" "$corpus/seed_$i" ;;
        esac
    done
fi
mkdir -p "fuzz/artifacts/$target"
leaks=1; [ "$target" = pragma_scan ] || leaks=0
exec fuzz/target/x86_64-unknown-linux-gnu/release/"$target" "$corpus" -detect_leaks=$leaks \
    -dict=fuzz/omplc.dict -max_total_time="$seconds" -max_len=8192 -timeout=60 -rss_limit_mb=4096 \
    -artifact_prefix="fuzz/artifacts/$target/" -print_final_stats=1 "$@"
