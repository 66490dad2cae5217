#!/usr/bin/env bash
# Reproduces seed 004's Table III (MARS vs its baseline on the F1.16xlarge) and Table IV (MARS vs the
# H2H-style mapping on CASIA-SURF and FaceBagNet against the host-link bandwidth, configs/f1_hetero.yaml)
# with partsim's `mars` and `h2h` strategies, replays every plan with simrun, times the search against
# generations (ResNet101) and writes docs/reproductions/mars.md.
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
# Table IV: the eight FPGA-host links (graph.links[8..15] of configs/f1_hetero.yaml) at H2H's five levels.
hetero=configs/f1_hetero.yaml
for model in casia_surf facebagnet; do
  for bw in 1 1.2 2 4 10; do
    sets=()
    for link in 8 9 10 11 12 13 14 15; do sets+=(--set "system.graph.links[$link].bandwidth=${bw}Gb/s"); done
    for strategy in h2h mars; do
      options=()
      # shellcheck disable=SC2206
      [ "$strategy" = mars ] && options=(--seed "$seed" --option designs=fixed $extra)
      plan="$work/t4_${model}_${bw}_${strategy}.json"
      start=$(date +%s.%N)
      "$build/bin/simplan" --config "$hetero" "${sets[@]}" --workload "workloads/examples/$model.yaml" --batch 1 \
        --mode inference --strategy "$strategy" "${options[@]}" -o "$plan" >/dev/null
      end=$(date +%s.%N)
      echo "$end - $start" | bc > "$work/t4_${model}_${bw}_${strategy}.search_s"
      "$build/bin/simrun" --config "$hetero" "${sets[@]}" --plan "$plan" --reproducible \
        --out "$work/t4_${model}_${bw}_${strategy}.results.json" >/dev/null
    done
  done
done
"$build/bin/mars_search_bench" resnet101 0 5 20 40 > "$work/bench.txt"
write_output docs/reproductions/mars.md python3 scripts/mars_report.py "$work" "$seed" "$extra"
