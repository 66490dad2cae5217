#!/usr/bin/env bash
# Reproduces AccPar's evaluation (seed 000 §6: Fig. 5, 6, 7, 8) with simplan and writes
# docs/reproductions/accpar.md: speedups over dp of owt, hypar and accpar side by side with the
# paper's numbers, the hierarchy-level sweep on vgg19, and alexnet's per-layer types.
# Usage: scripts/reproduce_accpar.sh [BUILD_DIR] (default build; needs BUILD_DIR/bin/simplan).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
simplan="$build/bin/simplan"
[[ -x "$simplan" ]] || { echo "reproduce_accpar.sh: $simplan not found (run scripts/build.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

models=(lenet alexnet vgg11 vgg13 vgg16 vgg19 resnet18 resnet34 resnet50)
strategies=(dp owt hypar accpar)
for config in tpu_v2v3_256 tpu_v3_128; do
  for model in "${models[@]}"; do
    for s in "${strategies[@]}"; do
      "$simplan" --config "configs/$config.yaml" --workload "$model" --batch 512 --strategy "$s" \
        -o "$work/$config.$model.$s.json" > /dev/null
    done
  done
done
# Fig. 8: vgg19 on the heterogeneous array, hierarchy levels 2..8 (256 devices have 8 levels).
for h in 2 3 4 5 6 7 8; do
  for s in "${strategies[@]}"; do
    "$simplan" --config configs/tpu_v2v3_256.yaml --workload vgg19 --batch 512 --strategy "$s" --levels "$h" \
      -o "$work/fig8.$h.$s.json" > /dev/null
  done
done
# Fig. 7: alexnet, 7 hierarchy levels, batch 128 (the homogeneous array of §6.3: 128 = 2^7 devices).
"$simplan" --config configs/tpu_v3_128.yaml --workload alexnet --batch 128 --strategy accpar -o "$work/fig7.json" > /dev/null
"$simplan" --config configs/tpu_v2v3_256.yaml --workload alexnet --batch 128 --strategy accpar --levels 7 \
  -o "$work/fig7_hetero.json" > /dev/null

python3 scripts/accpar_report.py "$work" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  > docs/reproductions/accpar.md.tmp
mv docs/reproductions/accpar.md.tmp docs/reproductions/accpar.md
echo "wrote docs/reproductions/accpar.md"
