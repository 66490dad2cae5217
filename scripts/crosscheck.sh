#!/usr/bin/env bash
# Cross-check across strategies (issue 6): plans and replays dp, owt, hypar and accpar on both TPU
# configs and dsm on both torus configs, for the zoo's CNNs at batch 512, and writes
# docs/crosscheck.md: predicted vs closed form vs simulated per run, Pearson r over all runs, and
# whether the strategies rank the same by prediction and by simulation.
# Usage: scripts/crosscheck.sh [BUILD_DIR]   (default build; configured and built if needed)
#   PARTSIM_CROSSCHECK_MODELS="alexnet vgg16" limits the workloads; PARTSIM_GRANULARITY=core.
set -euo pipefail
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
cd "$(dirname "$0")/.."
build=${1:-build}
jobs=${PARTSIM_JOBS:-2}
granularity=${PARTSIM_GRANULARITY:-chip}
models=(${PARTSIM_CROSSCHECK_MODELS:-lenet alexnet vgg11 vgg13 vgg16 vgg19 resnet18 resnet34 resnet50})
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$jobs" --target simplan simrun >/dev/null
work="$build/crosscheck"
rm -rf "$work"
mkdir -p "$work"

run() {  # config strategy model
  local name="$1__$2__$3"
  if "$build/bin/simplan" --config "configs/$1.yaml" --workload "$3" --batch 512 --strategy "$2" \
       -o "$work/$name.plan.json" >"$work/$name.log" 2>&1 &&
     "$build/bin/simrun" --config "configs/$1.yaml" --plan "$work/$name.plan.json" --granularity "$granularity" \
       --reproducible --out "$work/$name.results.json" >>"$work/$name.log" 2>&1; then
    echo "ok     $name"
  else
    echo "FAILED $name: $(tail -n 1 "$work/$name.log")"
  fi
}

for model in "${models[@]}"; do
  for config in tpu_v2v3_256 tpu_v3_128; do
    for s in dp owt hypar accpar; do run "$config" "$s" "$model"; done
  done
  for config in torus_8pf torus_8pf_asym; do run "$config" dsm "$model"; done
done
/usr/bin/python3 scripts/crosscheck_report.py "$work" "$granularity" > docs/crosscheck.md.tmp
mv docs/crosscheck.md.tmp docs/crosscheck.md
echo "wrote docs/crosscheck.md"
