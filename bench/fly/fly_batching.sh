#!/usr/bin/env bash
# The demo city's fly-through with static batching off and on, side by side in one run, plus
# bench_batching and bench_extract: the figures that decide static batching's default.
# Usage: bench/fly/fly_batching.sh OUT [BIN_DIR] [BASE_RILL]
#   OUT        where log.txt, summary.txt, frames_*.jsonl.gz and the bench lines go
#   BIN_DIR    a folder with rill, bench_batching, bench_extract (default build/release/{tools,
#              bench/render}); on a GPU machine, the bundle of scripts/gpu-bundle.sh
#   BASE_RILL  optional: another rill binary, flown batching-on too (before / after)
# FLY_SIZE (default 1920x1080) and FLY_FRAMES (default: the whole path) set the fly-through.
set -u
out=${1:?usage: bench/fly/fly_batching.sh OUT [BIN_DIR] [BASE_RILL]}
here=$(cd "$(dirname "$0")" && pwd)
rill=${2:+$2/rill}; rill=${rill:-build/release/tools/rill}
bench=${2:-build/release/bench/render}
base=${3:-}
size=${FLY_SIZE:-1920x1080}
frames=${FLY_FRAMES:+--frames $FLY_FRAMES}
d=$(mktemp -d)
mkdir -p "$out"
t0=$(date +%s)
"$rill" demo --out "$d" --no-render --fly-frames 1 > "$d/demo.log" 2>&1 || { tail -20 "$d/demo.log"; exit 1; }
cp -r "$d/project" "$d/project_b"
printf '\n[rendering]\nstatic_batching = true\n' >> "$d/project_b/project.toml"
"$rill" export "$d/project_b" --out "$d/demo_b.rpak" > "$d/export.log" 2>&1 || { tail -5 "$d/export.log"; exit 1; }
echo "demo and export: $(( $(date +%s) - t0 )) s" >> "$out/log.txt"
fly() { # name binary pack
    local s=$(date +%s)
    # shellcheck disable=SC2086
    "$2" fly "$3" --out "$d/fly_$1" --path "$d/fly_path.json" --speed 40 --size "$size" $frames \
        > "$d/fly_$1.log" 2>&1
    echo "fly $1: rc $? in $(( $(date +%s) - s )) s: $(tail -1 "$d/fly_$1.log")" >> "$out/log.txt"
    python3 "$here/flysum.py" "$d/fly_$1" >> "$out/summary.txt" 2>&1
    gzip -c "$d/fly_$1/frames.jsonl" > "$out/frames_$1.jsonl.gz"
}
fly off "$rill" "$d/demo.rpak"
fly on "$rill" "$d/demo_b.rpak"
[ -n "$base" ] && fly base_on "$base" "$d/demo_b.rpak"
"$bench/bench_batching" "$d/demo.rpak" 60 "$size" 64 16 > "$out/bench_batching.jsonl" 2>&1
{ "$bench/bench_extract" "$d/demo.rpak" 100 0,1,4,8,15 off
  "$bench/bench_extract" "$d/demo.rpak" 100 0,1,4,8,15 on; } > "$out/bench_extract.jsonl" 2>&1
echo "total: $(( $(date +%s) - t0 )) s" >> "$out/log.txt"
rm -rf "$d"
