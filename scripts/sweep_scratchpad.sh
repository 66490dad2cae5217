#!/usr/bin/env bash
# The standard scratchpad sweep (seed 003 Fig. 15: 0.5-4 MB per core): vgg16 and resnet50 at batch
# 512, DeepSpatialMatrix plan re-made at every point (memory reuse and DySM depend on the scratchpad),
# replayed on SimGrid, on configs/torus_8pf.yaml.
# Writes OUT/sweep_scratchpad_<workload>.csv and .png (OUT default docs/figures).
# Usage: scripts/sweep_scratchpad.sh [BUILD_DIR] [OUT]
#   PARTSIM_GRANULARITY=core for core-granularity replays (slower); PARTSIM_JOBS = parallel points.
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
exec "$(dirname "$0")/sweep_figure.sh" scratchpad "system.device_types.dsm_chip.core.scratchpad=512KiB..4MiB*2" \
  "scratchpad per core" "$@"
