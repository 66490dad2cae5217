#!/usr/bin/env bash
# The standard link-bandwidth sweep (seed 003 Fig. 14 style, on bandwidth instead of chip count):
# vgg16 and resnet50 at batch 512, DeepSpatialMatrix plan re-made at every point, replayed on SimGrid,
# chip-to-chip bandwidth (both torus dimensions) 20..320 GB/s on configs/torus_8pf.yaml.
# Writes OUT/sweep_bandwidth_<workload>.csv and .png (OUT default docs/figures).
# Usage: scripts/sweep_bandwidth.sh [BUILD_DIR] [OUT]
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
  csv="$out/sweep_bandwidth_$workload.csv"
  "$build/bin/simsweep" --config configs/torus_8pf.yaml --workload "$workload" --batch 512 --strategy dsm \
    --vary "system.torus.bandwidth=20GB/s..320GB/s*2" --granularity "$granularity" --jobs "$jobs" \
    --out "$csv" --work-dir "$build/sweeps/bandwidth_$workload"
  /usr/bin/python3 scripts/plot_sweep.py "$csv" -o "$out/sweep_bandwidth_$workload.png" --log-x \
    --title "$workload b512, dsm on torus_8pf: chip-to-chip link bandwidth ($granularity replay)"
done
