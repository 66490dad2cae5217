#!/usr/bin/env bash
# The main job, as the README runs it: installs what is missing, builds, then on
# configs/torus_8pf.yaml (seed 003's 8 PFLOP/s system, 64 chips):
#   1. plans vgg16 training at batch 512 with the DeepSpatialMatrix strategy (simplan);
#   2. lowers the plan and replays it on SimGrid (simrun --plan) and prints, per layer and pass, the
#      planner's prediction, the closed form of the lowered program, the simulated time and the
#      error, then totals, utilization and the largest disagreements with their cause.
#   3. draws the per-layer breakdown (seed 003 Fig. 13) and the timeline of devices d0-d3.
# Files in build/demo/: plan.json, results.json (docs/results-format.md), layers.csv, timeline.json
# (open in https://ui.perfetto.dev or chrome://tracing), layers.png, timeline.png.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: scripts/demo.sh [--granularity chip|core] [--help]

Plans vgg16 training (batch 512, DeepSpatialMatrix) on configs/torus_8pf.yaml, replays the plan on
SimGrid and prints the per-layer cross-check. Installs missing Debian packages and builds first.
Writes build/demo/plan.json, results.json, layers.csv, timeline.json and the figures layers.png
(per-layer breakdown) and timeline.png.

  --granularity chip|core   chip: every chip is one SimGrid host (default, seconds);
                            core: every core and memory a host (about a second, a larger timeline)
  -h, --help                this text
EOF
}

granularity=chip
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    --granularity)
      [ $# -ge 2 ] || { echo "demo.sh: error: --granularity needs a value: chip or core (see --help)" >&2; exit 2; }
      granularity=$2
      shift 2 ;;
    --granularity=*) granularity=${1#--granularity=}; shift ;;
    *) echo "demo.sh: error: unknown argument '$1' (allowed: --granularity chip|core, --help)" >&2; exit 2 ;;
  esac
done
case "$granularity" in
  chip | core) ;;
  *) echo "demo.sh: error: --granularity '$granularity': allowed values are chip, core" >&2; exit 2 ;;
esac

cd "$(dirname "$0")/.."
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
echo "== figures: per-layer breakdown (scripts/plot_breakdown.py), timeline (scripts/plot_timeline.py) =="
/usr/bin/python3 scripts/plot_breakdown.py "$out/results.json" -o "$out/layers.png"
/usr/bin/python3 scripts/plot_timeline.py "$out/timeline.json" -o "$out/timeline.png" --rows '^d[0-3]/|^links/d0->' \
  --title "vgg16 b512 dsm on torus_8pf ($granularity replay): devices d0-d3 and the links out of d0"
echo
echo "files: $out/plan.json $out/results.json $out/layers.csv $out/timeline.json $out/layers.png $out/timeline.png"
