#!/usr/bin/env bash
# The main job, as the README runs it: installs what is missing, builds, then on
# configs/torus_8pf.yaml (seed 003's 8 PFLOP/s system, 64 chips):
#   1. plans vgg16 training at batch 512 with the DeepSpatialMatrix strategy (simplan);
#   2. lowers the plan and replays it on SimGrid (simrun --plan) and prints, per layer and pass, the
#      planner's prediction, the closed form of the lowered program, the simulated time and the
#      error, then totals, utilization and the largest disagreements with their cause.
# Files in build/demo/: plan.json, results.json (docs/results-format.md), layers.csv, timeline.json
# (open in https://ui.perfetto.dev or chrome://tracing).
# Usage: scripts/demo.sh [--granularity chip|core]   (default chip; core replays every core)
set -euo pipefail
cd "$(dirname "$0")/.."
granularity=chip
if [ "${1:-}" = "--granularity" ]; then granularity=${2:?--granularity needs chip or core}; fi
scripts/install_deps.sh
scripts/build.sh release >/dev/null
bin=build/bin
out=build/demo
mkdir -p "$out"

echo "== simplan: vgg16, batch 512, DeepSpatialMatrix on configs/torus_8pf.yaml (seed 003 §IV-V) =="
"$bin/simplan" --config configs/torus_8pf.yaml --workload vgg16 --batch 512 --strategy dsm -o "$out/plan.json"
echo
echo "== simrun: replay of the plan on SimGrid, $granularity granularity =="
"$bin/simrun" --config configs/torus_8pf.yaml --plan "$out/plan.json" --granularity "$granularity" \
  --out "$out/results.json" --csv "$out/layers.csv" --timeline "$out/timeline.json"
echo
echo "files: $out/plan.json $out/results.json $out/layers.csv $out/timeline.json"
