#!/usr/bin/env bash
# The standard scratchpad sweep (seed 003 Fig. 15: 0.5-4 MB per core): vgg16 and resnet50 at batch
# 512, DeepSpatialMatrix plan re-made at every point (memory reuse and DySM depend on the scratchpad),
# replayed on SimGrid, on configs/torus_8pf.yaml.
# Writes OUT/sweep_scratchpad_<workload>.csv and .png (OUT default docs/figures).
# Usage: scripts/sweep_scratchpad.sh [BUILD_DIR] [OUT]
#   PARTSIM_GRANULARITY=core for core-granularity replays (slower); PARTSIM_JOBS = parallel points.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-docs/figures}
jobs=${PARTSIM_JOBS:-2}
granularity=${PARTSIM_GRANULARITY:-chip}
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$jobs" --target simplan simrun simsweep >/dev/null
mkdir -p "$out"
for workload in vgg16 resnet50; do
  csv="$out/sweep_scratchpad_$workload.csv"
  "$build/bin/simsweep" --config configs/torus_8pf.yaml --workload "$workload" --batch 512 --strategy dsm \
    --vary "system.device_types.dsm_chip.core.scratchpad=512KiB..4MiB*2" --granularity "$granularity" \
    --jobs "$jobs" --out "$csv" --work-dir "$build/sweeps/scratchpad_$workload"
  /usr/bin/python3 scripts/plot_sweep.py "$csv" -o "$out/sweep_scratchpad_$workload.png" --log-x \
    --title "$workload b512, dsm on torus_8pf: scratchpad per core ($granularity replay)"
done
