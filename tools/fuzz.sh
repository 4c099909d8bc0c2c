#!/usr/bin/env bash
# Coverage-guided fuzzing of Throng's parsers with cargo-fuzz (libFuzzer).
#
#   tools/fuzz.sh [SECONDS] [TARGET...]
#
# Runs each target (default: all of throng_file gltf provenance cli_args
# wgsl) for
# SECONDS (default 600), one after another, from the committed seeds
# (fuzz/seeds/TARGET) into a working corpus (fuzz/corpus/TARGET, not
# committed) that later runs start from. Builds on the stable toolchain
# without a sanitizer (`-s none`: the code under test is safe Rust; ASan
# needs nightly) and with debug assertions, so overflow panics too.
# A crash is saved under fuzz/artifacts/TARGET/ and stops that target;
# make it a regression test by copying it to fuzz/regressions/TARGET/
# under a name that says what it found (`cargo test -p throng-fuzz`
# replays every seed and regression). Logs: fuzz/logs/TARGET.log, whose
# last lines give executions and coverage (`cov:`, `ft:`).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-600}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(throng_file gltf provenance cli_args wgsl)
fi
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

# Largest input a target is given: a .throng of a small model, a small
# glTF, an argument, a shader.
max_len() {
    case $1 in
        throng_file) echo 49152 ;;
        gltf) echo 65536 ;;
        provenance) echo 16384 ;;
        cli_args) echo 512 ;;
        wgsl) echo 8192 ;;
        *) echo "unknown target $1 (throng_file, gltf, provenance, cli_args, wgsl)" >&2; exit 2 ;;
    esac
}

mkdir -p fuzz/logs
for t in "${targets[@]}"; do
    len=$(max_len "$t")
    mkdir -p "fuzz/corpus/$t"
    echo "== $t: ${seconds} s, inputs up to $len bytes"
    cargo fuzz run -s none -a -O "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
        -max_total_time="$seconds" -max_len="$len" -timeout=20 -rss_limit_mb=4096 \
        -print_final_stats=1 2>&1 | tee "fuzz/logs/$t.log" | grep -E '^#[0-9]+ +(DONE|INITED)|==ERROR|panicked|Test unit written' || true
    tail -n 12 "fuzz/logs/$t.log" | grep -E 'stat::number_of_executed_units|cov:' || true
done
