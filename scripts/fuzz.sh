#!/usr/bin/env bash
# fuzz.sh SECONDS [NAME...]: runs the libFuzzer targets built by the `fuzz` preset (clang, ASan +
# UBSan, no recovery) for SECONDS each. Each run first replays every input under
# fuzz/<area>/corpus (seeds, and the crashes and limit cases found so far, kept as regression
# inputs), then mutates them until the time is up. New inputs go to a scratch folder, so the
# checked-in corpus changes only when someone copies a finding into it. FUZZ_SEED (default 0:
# a new random seed each run) fixes the mutation sequence; CI uses 1 so a finding there
# reproduces with the same command.
#
# FUZZ_RUNS=N (CI: make test) replaces the time bound with a fixed number of new inputs, so that
# with FUZZ_SEED fixed every run explores the same inputs: each target replays its corpus, then
# makes exactly N mutations. The target runs with address-space randomization off (setarch -R,
# when setarch exists), so anything in the program that depends on where memory lands (pointer
# hashing, allocation order seen through addresses) is the same each run and cannot steer
# libFuzzer's coverage feedback differently. SECONDS then only bounds a target that hangs.
#
# One line per target: executions, corpus size, peak memory. Exit status 1 on the first crash,
# sanitizer report, leak, timeout (-timeout) or memory blow-up (-rss_limit_mb); the reproducer is
# left in build/fuzz/artifacts/ and its name is printed. Reproduce with
#   build/fuzz/fuzz/<area>/fuzz_<name> build/fuzz/artifacts/<name>-crash-...
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
build=build/fuzz
artifacts=$build/artifacts
mkdir -p "$artifacts"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Inputs larger than this are not generated (packs and models need room; text formats do not).
max_len() {
  case "$1" in
    gltf|rpak|rmip) echo 65536 ;;
    scene) echo 8192 ;;
    *) echo 4096 ;;
  esac
}

status=0
total_execs=0
ran=0
for bin in "$build"/fuzz/*/fuzz_*; do
  [ -x "$bin" ] || continue
  area=$(basename "$(dirname "$bin")")
  name=$(basename "$bin"); name=${name#fuzz_}
  if [ "$#" -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then
    continue
  fi
  ran=$((ran + 1))
  seeds=fuzz/$area/corpus
  work=$scratch/$name
  mkdir -p "$work"
  log=$scratch/$name.log
  bound=(-max_total_time="$secs")
  [ -n "${FUZZ_RUNS:-}" ] && bound=(-runs="$FUZZ_RUNS" -max_total_time="$secs")
  args=("${bound[@]}" -seed="${FUZZ_SEED:-0}" -timeout=10 -rss_limit_mb=2560 -max_len="$(max_len "$area")"
        -print_final_stats=1 -artifact_prefix="$artifacts/$name-" "$work")
  [ -d "$seeds" ] && args+=("$seeds")
  norand=()
  [ -n "${FUZZ_RUNS:-}" ] && command -v setarch >/dev/null && norand=(setarch "$(uname -m)" -R)
  if "${norand[@]}" "$bin" "${args[@]}" >"$log" 2>&1; then
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
    units=$(ls "$work" | wc -l)
    seeded=$( [ -d "$seeds" ] && ls "$seeds" | wc -l || echo 0)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    printf 'fuzz %-18s ok: %9s executions, %s seed(s) + %s new input(s), %s, peak %s MB\n' \
      "$name" "${execs:-?}" "$seeded" "$units" "${cov:-cov: ?}" "${rss:-?}"
    total_execs=$((total_execs + ${execs:-0}))
  else
    echo "fuzz $name FAILED; the end of its log:"
    tail -40 "$log"
    ls -t "$artifacts"/"$name"-* 2>/dev/null | head -1 | sed 's/^/reproducer: /'
    status=1
  fi
done
if [ "$ran" -eq 0 ]; then
  echo "fuzz: no fuzz target found under $build/fuzz (build them: make fuzz-build)" >&2
  exit 1
fi
echo "fuzz: $ran target(s), $total_execs executions in all"
exit $status
