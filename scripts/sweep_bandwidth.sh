#!/usr/bin/env bash
# The standard link-bandwidth sweep (seed 003 Fig. 14 style, on bandwidth instead of chip count):
# vgg16 and resnet50 at batch 512, DeepSpatialMatrix plan re-made at every point, replayed on SimGrid,
# chip-to-chip bandwidth (both torus dimensions) 20..320 GB/s on configs/torus_8pf.yaml.
# Writes OUT/sweep_bandwidth_<workload>.csv and .png (OUT default docs/figures).
# Usage: scripts/sweep_bandwidth.sh [BUILD_DIR] [OUT]
#   PARTSIM_GRANULARITY=core for core-granularity replays (slower); PARTSIM_JOBS = parallel points.
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
exec "$(dirname "$0")/sweep_figure.sh" bandwidth "system.torus.bandwidth=20GB/s..320GB/s*2" \
  "chip-to-chip link bandwidth" "$@"
