#!/usr/bin/env bash
# One standard sweep figure: vgg16 and resnet50 at batch 512 on configs/torus_8pf.yaml, the
# DeepSpatialMatrix plan re-made at every point, replayed on SimGrid; writes
# OUT/sweep_NAME_<workload>.csv and .png. Called by scripts/sweep_bandwidth.sh and
# scripts/sweep_scratchpad.sh (use those).
# Usage: scripts/sweep_figure.sh NAME KEY=RANGE "TITLE" [BUILD_DIR] [OUT]
#   PARTSIM_GRANULARITY=core for core-granularity replays (slower); PARTSIM_JOBS = parallel points.
#   Run again after an interruption: simsweep --resume keeps the points already done (docs/sweeps.md).
set -euo pipefail
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
cd "$(dirname "$0")/.."
name=${1:?NAME}
vary=${2:?KEY=RANGE}
title=${3:?TITLE}
build=${4:-build}
out=${5:-docs/figures}
jobs=${PARTSIM_JOBS:-2}
granularity=${PARTSIM_GRANULARITY:-chip}
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$jobs" --target simplan simrun simsweep >/dev/null
mkdir -p "$out"
for workload in vgg16 resnet50; do
  csv="$out/sweep_${name}_$workload.csv"
  "$build/bin/simsweep" --config configs/torus_8pf.yaml --workload "$workload" --batch 512 --strategy dsm \
    --vary "$vary" --granularity "$granularity" --jobs "$jobs" --out "$csv" --work-dir "$build/sweeps/${name}_$workload" \
    --resume
  /usr/bin/python3 scripts/plot_sweep.py "$csv" -o "$out/sweep_${name}_$workload.png" --log-x --utilization \
    --title "$workload b512, dsm on torus_8pf: $title ($granularity replay)"
done
