#!/usr/bin/env bash
# astra_compare.sh: the same plan, the same time in ASTRA-sim? (issue 42)
#
# For each case, plans with simplan, replays the plan with simrun while exporting it as Chakra
# traces (docs/chakra-export.md), runs ASTRA-sim 2.x's analytical congestion-unaware backend on
# the traces, and prints one row: partsim's closed form and SimGrid times (results.json keys
# closed_form_iteration_s, simulated_iteration_s), ASTRA-sim's time (the largest
# "sys[N] finished, T cycles" over the ranks; ASTRA-sim's cycle is 1 ns: astra-sim/system/Common.hh
# CLOCK_PERIOD), their ratio, and the wall time of simrun (replay + export) and of ASTRA-sim with
# its peak memory (/usr/bin/time -v, where present).
#
# Usage:
#   scripts/astra_compare.sh [options] [CASE ...]
#     CASE: one quoted string "CONFIG WORKLOAD STRATEGY BATCH NETWORK_YML SYSTEM_JSON [simplan args]"
#     No CASE and no -f: the built-in list below (issue 42's: dp, owt, accpar, dsm, mcm_greedy on
#     configs/torus_8pf.yaml and configs/mcm_ring36.yaml).
#   Options:
#     -f FILE     read cases from FILE, one per line ('#' starts a comment); '-' = stdin
#     -w DIR      work directory (plans, traces, results, logs; default: a new mktemp -d)
#     -t SECONDS  timeout of each ASTRA-sim run (default 600; env ASTRA_TIMEOUT)
#     -T SECONDS  timeout of each simplan / simrun run (default 900; env SIM_TIMEOUT)
#     -k          keep the Chakra traces (default: deleted after each case, they can be large)
#     -h          this help
#   Relative paths in a case are taken from the repository root (the script runs there).
#   NETWORK_YML / SYSTEM_JSON without a '/' are looked up in $ASTRA_NOTES
#   (default /work/shared/notes/astra-sim: torus4x16.yml, ring36.yml, sendrecv_{1d,2d}.json).
#
# Environment:
#   ASTRA_BIN     ASTRA-sim binary (default
#                 /work/astra/build/astra_analytical/build/bin/AstraSim_Analytical_Congestion_Unaware)
#   ASTRA_REMOTE_MEMORY  --remote-memory-configuration (default $ASTRA_NOTES/remote_memory.json)
#   BUILD         partsim build directory (default build)
#
# Output: a Markdown table on stdout (also DIR/table.md) and DIR/table.tsv. A case whose simplan
# or simrun fails is a row saying so (the strategy refuses the platform, memory, ...); an ASTRA-sim
# run that aborts or times out is a row with the reason (e.g. "No dependancy free nodes found":
# a rank with no node) and how many ranks had finished. Exit status 0 unless the script itself
# is misused (a failed case is reported, not fatal).
#
# Example:
#   nice scripts/astra_compare.sh -w /tmp/ac \
#     "configs/torus_8pf.yaml vgg16 dp 64 torus4x16.yml sendrecv_2d.json"
. "$(dirname "$0")/help_option.sh" "$@"
set -u -o pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo" || exit 2

ASTRA_BIN=${ASTRA_BIN:-/work/astra/build/astra_analytical/build/bin/AstraSim_Analytical_Congestion_Unaware}
ASTRA_NOTES=${ASTRA_NOTES:-/work/shared/notes/astra-sim}
ASTRA_REMOTE_MEMORY=${ASTRA_REMOTE_MEMORY:-$ASTRA_NOTES/remote_memory.json}
ASTRA_TIMEOUT=${ASTRA_TIMEOUT:-600}
SIM_TIMEOUT=${SIM_TIMEOUT:-900}
BUILD=${BUILD:-build}
workdir=""
keep=0
cases=()

default_cases=(
  # torus_8pf: 64 chips, 4 x 16 torus, training, one sample per chip
  "configs/torus_8pf.yaml vgg16 dp 64 torus4x16.yml sendrecv_2d.json"
  "configs/torus_8pf.yaml vgg16 owt 64 torus4x16.yml sendrecv_2d.json"
  "configs/torus_8pf.yaml gpt:layers=4,width=512,heads=8,sequence=128 accpar 64 torus4x16.yml sendrecv_2d.json"
  "configs/torus_8pf.yaml vgg16 dsm 64 torus4x16.yml sendrecv_2d.json"
  "configs/torus_8pf.yaml resnet50 mcm_greedy 1 torus4x16.yml sendrecv_2d.json --mode inference"
  # mcm_ring36: 36 chiplets of 32 MiB; the training plans do not fit memory, the times still compare
  "configs/mcm_ring36.yaml vgg16 dp 64 ring36.yml sendrecv_1d.json --allow-over-memory"
  "configs/mcm_ring36.yaml vgg16 owt 64 ring36.yml sendrecv_1d.json --allow-over-memory"
  "configs/mcm_ring36.yaml gpt:layers=4,width=512,heads=8,sequence=128 accpar 64 ring36.yml sendrecv_1d.json --allow-over-memory"
  "configs/mcm_ring36.yaml vgg16 dsm 64 ring36.yml sendrecv_1d.json --allow-over-memory"
  "configs/mcm_ring36.yaml resnet50 mcm_greedy 1 ring36.yml sendrecv_1d.json --mode inference"
  "configs/mcm_ring36.yaml bert_base_ops mcm_greedy 1 ring36.yml sendrecv_1d.json --mode inference"
)

usage() { sed -n '2,/^set -u/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }

while getopts "f:w:t:T:kh" opt; do
  case $opt in
    f) if [ "$OPTARG" = - ]; then src=/dev/stdin; else src=$OPTARG; fi
       while IFS= read -r line; do
         line=${line%%#*}; [ -n "${line//[[:space:]]/}" ] && cases+=("$line")
       done < "$src" ;;
    w) workdir=$OPTARG ;;
    t) ASTRA_TIMEOUT=$OPTARG ;;
    T) SIM_TIMEOUT=$OPTARG ;;
    k) keep=1 ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
cases+=("$@")
[ ${#cases[@]} -eq 0 ] && cases=("${default_cases[@]}")

for b in "$BUILD/bin/simplan" "$BUILD/bin/simrun"; do
  [ -x "$b" ] || { echo "astra_compare: $b not found (build partsim first, or set BUILD)" >&2; exit 2; }
done
[ -x "$ASTRA_BIN" ] || { echo "astra_compare: ASTRA-sim binary $ASTRA_BIN not found (set ASTRA_BIN)" >&2; exit 2; }
[ -n "$workdir" ] || workdir=$(mktemp -d /tmp/astra_compare.XXXXXX)
mkdir -p "$workdir" || exit 2
timev=()
[ -x /usr/bin/time ] && timev=(/usr/bin/time -v)

resolve() {  # a network / system file: as given if it has a '/', else beside the notes
  case $1 in */*) echo "$1" ;; *) echo "$ASTRA_NOTES/$1" ;; esac
}
now() { date +%s.%N; }
secs() { python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }
first_error() {  # the most telling line of a log, one line, at most 160 characters
  local p l=""
  for p in 'what\(\)' 'Assertion' 'critical|error|Error' 'does not exist|Aborted|terminate'; do
    l=$(grep -m1 -E "$p" "$1") && break
  done
  [ -n "$l" ] || l=$(tail -n1 "$1")
  printf '%s\n' "$l" | sed -E 's/^\[[^]]*\] \[[^]]*\] \[[^]]*\] //; s/^ *what\(\): *//; s/[|]/\//g' | tr -d '\r' | cut -c1-160
}

tsv="$workdir/table.tsv"
md="$workdir/table.md"
printf 'case\tclosed_form_s\tsimgrid_s\tastra_s\tastra/closed\tsimrun_export_wall_s\tastra_wall_s\tastra_peak_MiB\tstatus\n' > "$tsv"
{
  echo "| case | closed form (s) | SimGrid (s) | ASTRA-sim (s) | ASTRA / closed | simrun+export wall (s) | ASTRA wall (s) | ASTRA peak (MiB) | status |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
} > "$md"
{
  echo "simrun: $BUILD/bin/simrun, built $(date -u -r "$BUILD/bin/simrun" '+%Y-%m-%d %H:%M:%S UTC') (git $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- sim/export 2>/dev/null || echo ', sim/export modified'))"
  echo "ASTRA-sim: $ASTRA_BIN"
  echo
} > "$workdir/header.txt"
cat "$workdir/header.txt"
cat "$md"

row() {  # name cf sg astra ratio exw aw mem status
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$tsv"
  local r; r=$(printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |' "$@")
  echo "$r" >> "$md"; echo "$r"
}

n=0
for c in "${cases[@]}"; do
  n=$((n + 1))
  read -r -a f <<< "$c"
  if [ ${#f[@]} -lt 6 ]; then
    row "case $n" - - - - - - - "malformed case (need CONFIG WORKLOAD STRATEGY BATCH NETWORK_YML SYSTEM_JSON): $c"
    continue
  fi
  config=${f[0]}; workload=${f[1]}; strategy=${f[2]}; batch=${f[3]}
  net=$(resolve "${f[4]}"); sys=$(resolve "${f[5]}"); extra=("${f[@]:6}")
  name="$(basename "$config" .yaml)/${strategy}/${workload%%:*}${extra[*]:+ ${extra[*]}}"
  d="$workdir/$n"; rm -rf "$d"; mkdir -p "$d"
  printf '%s\n' "$c" > "$d/case.txt"
  for p in "$config" "$net" "$sys" "$ASTRA_REMOTE_MEMORY"; do
    [ -r "$p" ] || { row "$name" - - - - - - - "missing file $p"; continue 2; }
  done

  # 1. plan
  if ! timeout "$SIM_TIMEOUT" "$BUILD/bin/simplan" --config "$config" --workload "$workload" --strategy "$strategy" \
       --batch "$batch" "${extra[@]}" -q -o "$d/plan.json" > "$d/simplan.log" 2>&1; then
    row "$name" - - - - - - - "simplan refused: $(grep -m1 'error' "$d/simplan.log" | sed 's/^simplan: error: //' | cut -c1-200 | tr '|' '/')"
    continue
  fi

  # 2. replay + export
  t0=$(now)
  timeout "$SIM_TIMEOUT" "$BUILD/bin/simrun" --config "$config" --plan "$d/plan.json" --export-chakra "$d/et" \
    --chakra-prefix t --out "$d/results.json" -q > "$d/simrun.log" 2>&1
  rc=$?; t1=$(now); exw=$(secs "$t0" "$t1")
  if [ $rc -ne 0 ] || [ ! -s "$d/results.json" ]; then
    row "$name" - - - - "$exw" - - "simrun failed (rc $rc): $(first_error "$d/simrun.log")"
    continue
  fi
  read -r cf sg < <(python3 - "$d/results.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print(r.get("closed_form_iteration_s", "nan"), r.get("simulated_iteration_s", "nan"))
EOF
)
  ranks=$(ls "$d/et" 2>/dev/null | grep -c '^t\.[0-9]*\.et$')
  npus=$(python3 - "$net" <<'EOF'
import sys, yaml, math
print(math.prod(yaml.safe_load(open(sys.argv[1]))["npus_count"]))
EOF
)
  if [ "$ranks" != "$npus" ]; then
    row "$name" "$cf" "$sg" - - "$exw" - - "trace files ($ranks) != network NPUs ($npus)"
    continue
  fi
  empty=$(python3 - "$d/et" <<'EOF'
import os, sys
# a rank whose file holds the metadata alone (no node) makes ASTRA-sim's feeder throw;
# count them by reading the delimited stream's message count (varint lengths)
def count(path):
    b = open(path, "rb").read(); i = n = 0
    while i < len(b):
        v = s = 0
        while True:
            x = b[i]; i += 1; v |= (x & 0x7f) << s; s += 7
            if x < 0x80: break
        i += v; n += 1
    return n - 1
d = sys.argv[1]
print(sum(1 for f in os.listdir(d) if f.endswith(".et") and count(os.path.join(d, f)) == 0))
EOF
)

  # 3. ASTRA-sim
  t0=$(now)
  "${timev[@]}" ${timev:+-o "$d/astra.time"} timeout "$ASTRA_TIMEOUT" "$ASTRA_BIN" \
    --workload-configuration="$d/et/t" --system-configuration="$sys" --network-configuration="$net" \
    --remote-memory-configuration="$ASTRA_REMOTE_MEMORY" --logging-folder="$d/astra_log" > "$d/astra.log" 2>&1
  rc=$?; t1=$(now); aw=$(secs "$t0" "$t1")
  mem=-
  [ -s "$d/astra.time" ] && mem=$(awk -F: '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$d/astra.time")
  read -r fin tmax < <(awk '/\] sys\[[0-9]+\] finished, [0-9]+ cycles/ {
      for (i = 1; i <= NF; i++) if ($i == "cycles,") { t = $(i - 1) + 0; if (t > m) m = t }
      n++ } END { printf "%d %d\n", n, m }' "$d/astra.log")
  [ "$keep" = 1 ] || rm -rf "$d/et"
  status=ok
  if [ $rc -eq 124 ]; then
    status="timeout after ${ASTRA_TIMEOUT} s ($fin/$npus ranks finished)"
  elif [ $rc -ne 0 ] || [ "$fin" -lt "$npus" ]; then
    status="ASTRA-sim abort (rc $rc, $fin/$npus ranks finished): $(first_error "$d/astra.log")"
  fi
  [ "$empty" -gt 0 ] && status="$status; $empty rank(s) with no node"
  if [ "$status" = ok ] || [ "$fin" -eq "$npus" ]; then
    read -r as ratio < <(python3 -c "import sys; a = int(sys.argv[1]) * 1e-9; c = float(sys.argv[2]); print('%.6g %s' % (a, ('%.3f' % (a / c)) if c > 0 else 'nan'))" "$tmax" "$cf")
  else
    as=-; ratio=-
  fi
  row "$name" "$(printf '%.6g' "$cf")" "$(printf '%.6g' "$sg")" "$as" "$ratio" "$exw" "$aw" "$mem" "$status"
done
echo
echo "work directory: $workdir (per case: case.txt, plan.json, results.json, *.log, astra.time, astra_log/)"
