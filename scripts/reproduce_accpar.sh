#!/usr/bin/env bash
# Reproduces AccPar's evaluation (seed 000 §6: Fig. 5, 6, 7, 8) with simplan and writes
# docs/reproductions/accpar.md: speedups over dp of owt, hypar and accpar side by side with the
# paper's numbers, the hierarchy-level sweep on vgg19, and alexnet's per-layer types.
# Every plan takes eq. 7's b as the paper writes it, per accelerator (--option bandwidth=device);
# Fig. 5 and 6 are also planned with the default reading (bandwidth=cut) for the comparison of the
# two, and accpar on the heterogeneous array's TPU-v2 half alone for the gap notes.
# Usage: scripts/reproduce_accpar.sh [BUILD_DIR]   (default: build; it is configured if needed and only
# the simplan target is built, with at most 2 jobs).
set -euo pipefail
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
# shellcheck source=scripts/reproduce_common.sh
source "$(dirname "$0")/reproduce_common.sh"
build=${1:-build}
build_targets "$build" simplan
simplan="$build/bin/simplan"
work=$(mktemp -d)
remove_on_exit "$work"

models=(lenet alexnet vgg11 vgg13 vgg16 vgg19 resnet18 resnet34 resnet50)
strategies=(dp owt hypar accpar)
plan() {  # plan READING OUTPUT_NAME SIMPLAN_ARGS...: one plan with eq. 7's b read as READING (device | cut)
  local reading=$1 out=$2
  shift 2
  "$simplan" --option "bandwidth=$reading" "$@" -o "$work/$out.json" > /dev/null
}
for config in tpu_v2v3_256 tpu_v3_128; do
  for model in "${models[@]}"; do
    for s in "${strategies[@]}"; do
      for reading in device cut; do
        plan "$reading" "$reading.$config.$model.$s" --config "configs/$config.yaml" --workload "$model" --batch 512 \
          --strategy "$s"
      done
    done
  done
done
# The heterogeneous array's TPU-v2 half on its own: 128 TPU-v2 (the homogeneous array with TPU-v2 boards).
for model in "${models[@]}"; do
  for s in dp accpar; do
    plan device "v2half.$model.$s" --config configs/tpu_v3_128.yaml --set 'system.devices[0].type=tpu_v2' \
      --workload "$model" --batch 512 --strategy "$s"
  done
done
# Fig. 8: vgg19 on the heterogeneous array, hierarchy levels 2..8 (256 devices have 8 levels).
for h in 2 3 4 5 6 7 8; do
  for s in "${strategies[@]}"; do
    plan device "fig8.$h.$s" --config configs/tpu_v2v3_256.yaml --workload vgg19 --batch 512 --strategy "$s" --levels "$h"
  done
done
# Fig. 7: alexnet, 7 hierarchy levels, batch 128 (the homogeneous array of §6.3: 128 = 2^7 devices).
plan device fig7 --config configs/tpu_v3_128.yaml --workload alexnet --batch 128 --strategy accpar
plan device fig7_hetero --config configs/tpu_v2v3_256.yaml --workload alexnet --batch 128 --strategy accpar --levels 7

write_output docs/reproductions/accpar.md \
  python3 scripts/accpar_report.py "$work" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
