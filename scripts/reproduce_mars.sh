#!/usr/bin/env bash
# Reproduces seed 004's Table III (MARS vs its baseline on the F1.16xlarge) with partsim's `mars`
# strategy, replays every plan with simrun, times the search against generations (ResNet101) and
# writes docs/reproductions/mars.md.
# Usage: scripts/reproduce_mars.sh [BUILD_DIR]   (default: build; configured if needed, only simplan
# and simrun are built, with at most 2 jobs). PARTSIM_MARS_OPTIONS adds --option words to the search
# (e.g. "--option generations=40"); PARTSIM_MARS_SEED sets the seed (default 1).
set -euo pipefail
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
# shellcheck source=scripts/reproduce_common.sh
source "$(dirname "$0")/reproduce_common.sh"
build=${1:-build}
seed=${PARTSIM_MARS_SEED:-1}
extra=${PARTSIM_MARS_OPTIONS:-}
build_targets "$build" simplan simrun mars_search_bench
work=$(mktemp -d)
remove_on_exit "$work"
config=configs/f1_16xlarge.yaml
for model in alexnet vgg16 resnet34 resnet101 wrn50_2; do
  for mapping in baseline search; do
    plan="$work/${model}_${mapping}.json"
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$build/bin/simplan" --config "$config" --workload "$model" --batch 1 --mode inference --strategy mars \
      --seed "$seed" --option mapping=$mapping $extra -o "$plan" >/dev/null
    end=$(date +%s.%N)
    echo "$end - $start" | bc > "$work/${model}_${mapping}.search_s"
    "$build/bin/simrun" --config "$config" --plan "$plan" --reproducible --out "$work/${model}_${mapping}.results.json" >/dev/null
  done
done
"$build/bin/mars_search_bench" resnet101 0 5 20 40 > "$work/bench.txt"
write_output docs/reproductions/mars.md python3 scripts/mars_report.py "$work" "$seed" "$extra"
