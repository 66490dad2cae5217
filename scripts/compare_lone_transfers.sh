#!/usr/bin/env bash
# How far timing lone transfers moves the replay (docs/model.md "Programs and their two evaluators"):
# plans every strategy x workload on each platform (simplan, batch 512, in-order 25 MB gradient
# buckets where the strategy takes them) and replays each plan twice with simrun --plan, once with
# --lone-transfers timed (the default) and once with every transfer in SimGrid. Prints one row per
# run (both simulated iteration times, their relative difference, both replay wall times, how many
# transfers SimGrid ran and how many were timed alone), then how many runs agree within 1e-9, 0.1 %
# and 1 %. Runs a strategy does not accept (or over PARTSIM_COMPARE_TIMEOUT) are left out.
# Usage: scripts/compare_lone_transfers.sh [BUILD_DIR]   (default build; build it first)
# Environment (space-separated lists):
#   PARTSIM_COMPARE_CONFIGS     platform names (default: torus_8pf tpu_v3_128_torus_ici
#                               tpu_v2_256_torus_boardbw p100_4node)
#   PARTSIM_COMPARE_STRATEGIES  (default: accpar hypar owt dp deepa dsm mars h2h)
#   PARTSIM_COMPARE_MODELS      (default: alexnet vgg16 resnet50 gnmt)
#   PARTSIM_COMPARE_TIMEOUT     seconds per simplan or simrun call (default 600)
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
for program in simplan simrun; do
  [ -x "$build/bin/$program" ] || { echo "compare_lone_transfers.sh: $build/bin/$program not found (build first)" >&2; exit 2; }
done
configs="${PARTSIM_COMPARE_CONFIGS:-torus_8pf tpu_v3_128_torus_ici tpu_v2_256_torus_boardbw p100_4node}"
strategies="${PARTSIM_COMPARE_STRATEGIES:-accpar hypar owt dp deepa dsm mars h2h}"
models="${PARTSIM_COMPARE_MODELS:-alexnet vgg16 resnet50 gnmt}"
limit="${PARTSIM_COMPARE_TIMEOUT:-600}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

seconds() { date +%s.%N; }
printf '%-26s %-7s %-9s %15s %15s %11s %8s %8s %8s %8s\n' config strategy workload timed_s simgrid_s rel \
  wall_t wall_s sg_comms lone
for config in $configs; do
  yaml="$root/configs/$config.yaml"
  [ -f "$yaml" ] || { echo "compare_lone_transfers.sh: no platform $yaml" >&2; exit 2; }
  for strategy in $strategies; do
    for model in $models; do
      plan=(timeout "$limit" "$build/bin/simplan" --config "$yaml" --workload "$model" --batch 512 --strategy "$strategy"
            -q -o "$work/plan.json")
      # Strategies with a lowering of their own (dsm) refuse the gradient-sync options: plan them as they are.
      "${plan[@]}" --gradient-sync-order in_order --gradient-bucket 25MB >/dev/null 2>&1 ||
        "${plan[@]}" >/dev/null 2>&1 || continue
      replay=(timeout "$limit" "$build/bin/simrun" --config "$yaml" --plan "$work/plan.json" --reproducible -q)
      t0=$(seconds)
      "${replay[@]}" --lone-transfers timed --out "$work/timed.json" >/dev/null 2>&1 || continue
      t1=$(seconds)
      "${replay[@]}" --lone-transfers simgrid --out "$work/simgrid.json" >/dev/null 2>&1 || continue
      t2=$(seconds)
      python3 - "$work" "$config" "$strategy" "$model" "$t0" "$t1" "$t2" <<'EOF'
import json, sys
work, config, strategy, model = sys.argv[1:5]
t0, t1, t2 = (float(x) for x in sys.argv[5:8])
timed = json.load(open(f"{work}/timed.json"))
simgrid = json.load(open(f"{work}/simgrid.json"))
a, b = timed["simulated_iteration_s"], simgrid["simulated_iteration_s"]
print(f"{config:<26} {strategy:<7} {model:<9} {a:15.9e} {b:15.9e} {a / b - 1:11.3e} {t1 - t0:8.2f} {t2 - t1:8.2f} "
      f"{timed['simgrid_comms']:8d} {timed['lone_transfers']:8d}")
EOF
    done
  done
done | tee "$work/rows.txt"
python3 - "$work/rows.txt" <<'EOF'
import sys
rel = [abs(float(line.split()[5])) for line in open(sys.argv[1])]
if not rel:
    print("no run replayed")
    sys.exit(0)
within = lambda bound: sum(1 for r in rel if r < bound)
print(f"{len(rel)} runs: {within(1e-9)} within 1e-9, {within(1e-3)} within 0.1 %, {within(1e-2)} within 1 %, "
      f"largest difference {max(rel):.2%}")
EOF
