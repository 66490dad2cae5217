#!/usr/bin/env bash
# Fuzzes the parsers of user input (issue 21) with libFuzzer: builds the harnesses of fuzz/ with clang
# (ASan + UBSan) in build-fuzz/ and runs each for the given time,
# FUZZ_JOBS (default: the number of cores) at a time.
#
#   scripts/fuzz.sh [--seconds N] [harness...]     harnesses: platform workload units set plan vary (default: all)
#
# Each harness keeps its corpus in build-fuzz/corpus/<harness>/inputs (grown run after run) and writes
# the inputs that crash, hang, leak or break the parser's contract to build-fuzz/corpus/<harness>/artifacts.
# Seeds: configs/*.yaml, workloads/examples/*.yaml and tests/data (platform and workload files, the
# quantities they contain, --set assignments made from them) and fuzz/seeds/plan (plans simplan wrote
# for each strategy on small platforms), and for --vary the lists and ranges of the docs and tests.
# Exit code 1 when any harness found
# something; reproduce a finding with build-fuzz/bin/fuzz_<harness> <artifact>.
set -euo pipefail
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
cd "$(dirname "$0")/.."
root=$(pwd)

seconds=60
harnesses=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    platform|workload|units|set|plan|vary) harnesses+=("$1"); shift ;;
    *) echo "fuzz.sh: unknown argument '$1' (harnesses: platform workload units set plan vary)" >&2; exit 2 ;;
  esac
done
[[ ${#harnesses[@]} -gt 0 ]] || harnesses=(platform workload units set plan vary)
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: --seconds takes a whole number" >&2; exit 2; }
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (apt-get install clang)" >&2; exit 2; }

build=build-fuzz
start=$(date +%s)
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS="-O1 -g" -DPARTSIM_FUZZ=ON -DPARTSIM_BUILD_TESTS=OFF -DPARTSIM_BUILD_BENCH=OFF >/dev/null
targets=()
for h in "${harnesses[@]}"; do targets+=(--target "fuzz_$h"); done
cmake --build "$build" -j"${FUZZ_JOBS:-$(nproc)}" "${targets[@]}" >/dev/null
echo "fuzz.sh: built ${harnesses[*]} in $(( $(date +%s) - start ))s"

# Seeds, rebuilt every run from the sources (the corpus keeps what the fuzzer found).
seed_dir() {
  local dir="$build/seeds/$1"
  rm -rf "$dir" && mkdir -p "$dir"
  echo "$dir"
}
platform_seeds=$(seed_dir platform)
cp configs/*.yaml tests/data/bad/platform_*.yaml "$platform_seeds"/
workload_seeds=$(seed_dir workload)
cp workloads/examples/*.yaml tests/data/bad/workload_*.yaml "$workload_seeds"/
units_seeds=$(seed_dir units)
# The first 500 (awk reads the rest: `head` would close the pipe under sort, whose SIGPIPE fails the
# script under pipefail once sort writes more than one buffer).
grep -ohE '[-+]?[0-9][0-9.eE+-]*[ ]?[A-Za-z/µ]*' configs/*.yaml workloads/examples/*.yaml tests/data/bad/*.yaml |
  sort -u | awk -v d="$units_seeds" 'NR <= 500 { f = d "/q" NR; printf "%s", $0 > f; close(f) }'
vary_seeds=$(seed_dir vary)
# The --vary arguments the README, docs and tests write (one file each).
grep -ohE -- "--vary [^ '\"]+" README.md docs/*.md tests/cli/*.cpp tests/sweep/*.cpp scripts/*.sh 2>/dev/null |
  sed 's/^--vary //' | sort -u | awk -v d="$vary_seeds" 'NR <= 300 { f = d "/v" NR; printf "%s", $0 > f; close(f) }'
plan_seeds=$(seed_dir plan)
cp fuzz/seeds/plan/*.json "$plan_seeds"/
set_seeds=$(seed_dir set)
# "system.a.b=value" for every scalar of every config (the file picked by the first byte).
i=0
for config in configs/*.yaml; do
  python3 - "$config" "$i" "$set_seeds" <<'PY'
import sys, re
path, index, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
stack, n = [], 0
for line in open(path, encoding="utf-8"):
    m = re.match(r"^(\s*)([A-Za-z_]+):\s*(.*?)\s*$", line)
    if not m or line.lstrip().startswith("#"):
        continue
    depth = len(m.group(1)) // 2
    stack = stack[:depth] + [m.group(2)]
    value = m.group(3)
    if value and not value.startswith("#"):
        with open(f"{out}/s{index}_{n}", "wb") as f:
            f.write(bytes([index]) + (".".join(stack) + "=" + value).encode())
        n += 1
PY
  i=$((i + 1))
done

# One harness: its summary line (and the first lines of any finding) to $build/corpus/<h>/summary,
# exit 1 when it found something. Harnesses run FUZZ_JOBS at a time (default: the cores), each
# single-threaded, so a 2-core machine fuzzes for half the wall time at the same time per harness.
run_harness() {
  local h=$1
  local corpus="$build/corpus/$h/inputs"
  local artifacts="$build/corpus/$h/artifacts"
  mkdir -p "$corpus" "$artifacts"
  local seeds_var="${h}_seeds"
  local args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
              -artifact_prefix="$artifacts/")
  case "$h" in
    platform|workload) args+=(-max_len=16384 -dict=fuzz/yaml.dict) ;;
    set) args+=(-max_len=512 -dict=fuzz/yaml.dict) ;;
    plan) args+=(-max_len=32768 -dict=fuzz/plan.dict) ;;
    vary) args+=(-max_len=256 -dict=fuzz/yaml.dict) ;;
    units) args+=(-max_len=128) ;;
  esac
  local log="$build/corpus/$h/last_run.log"
  local summary="$build/corpus/$h/summary"
  local before t0 rc took runs found
  before=$(ls "$artifacts" | wc -l)
  t0=$(date +%s)
  set +e
  "$build/bin/fuzz_$h" "${args[@]}" "$corpus" "${!seeds_var}" >"$log" 2>&1
  rc=$?
  set -e
  took=$(( $(date +%s) - t0 ))
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  found=$(( $(ls "$artifacts" | wc -l) - before ))
  echo "fuzz.sh: $h: ${runs:-?} executions in ${took}s, corpus $(ls "$corpus" | wc -l) inputs, $found new artifact(s), exit $rc (log: $log)" >"$summary"
  if [[ $rc -ne 0 || $found -gt 0 ]]; then
    grep -E 'FINDING|ERROR: |SUMMARY|runtime error' "$log" | awk 'NR <= 5 { print "    " $0 }' >>"$summary"
    return 1
  fi
}

parallel=${FUZZ_JOBS:-$(nproc)}
pids=()
for h in "${harnesses[@]}"; do
  while [[ $(jobs -rp | wc -l) -ge $parallel ]]; do wait -n || true; done
  run_harness "$h" &
  pids+=($!)
done
status=0
for i in "${!harnesses[@]}"; do
  wait "${pids[$i]}" || status=1
  cat "$build/corpus/${harnesses[$i]}/summary"
done
echo "fuzz.sh: done in $(( $(date +%s) - start ))s"
exit $status
