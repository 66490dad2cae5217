#!/usr/bin/env bash
# The `search` strategy against issue 44's acceptance, on the cross-check matrix (docs/crosscheck.md's
# platforms and six workloads at batch 512): per (platform, workload) pair, plan with
# `simplan --strategy search` (timed), replay the plan with `simrun --plan`, and write
# docs/search.md: the search's prediction against its own simulated time, its wall time, and its
# simulated time against the seeds it started from (every registered strategy's plan, with each
# gradient schedule variant, as the flow evaluator timed them: the search log's seed rows).
#
# Usage: scripts/search_check.sh [BUILD_DIR]   (default build; configured and built if needed)
# Environment (space-separated lists):
#   PARTSIM_SEARCH_MODELS   workloads (default: alexnet vgg16 resnet50 inception_v3 gnmt bert_large)
#   PARTSIM_SEARCH_CONFIGS  platform names (default: every configs/*.yaml)
#   PARTSIM_SEARCH_BATCH    minibatch (default 512)
#   PARTSIM_SEARCH_OPTIONS  extra simplan arguments (e.g. "--option budget_s=20 --seed 2")
#   PARTSIM_SEARCH_OUT      the report (default docs/search.md)
#   PARTSIM_JOBS            pairs at a time (default 1: the search's wall time is part of the result)
#   PARTSIM_SKIP_BUILD=1    use BUILD_DIR/bin/simplan and simrun as they are (a copy, while the build
#                           directory is rebuilt)
#   PARTSIM_SEARCH_RESUME=1 keep BUILD_DIR/search_check and run only the pairs it has no result for
#   PARTSIM_SEARCH_REPLAY_TIMEOUT  seconds a replay may take (default 0: no limit); one stopped is
#                           listed as failed with that reason (1,024-chip replays can take hours)
set -euo pipefail
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
source "$(dirname "$0")/reproduce_common.sh"
build=${1:-build}
build_targets "$build" simplan simrun
export simplan="$build/bin/simplan" simrun="$build/bin/simrun"
export batch=${PARTSIM_SEARCH_BATCH:-512}
export extra=${PARTSIM_SEARCH_OPTIONS:-}
models=(${PARTSIM_SEARCH_MODELS:-alexnet vgg16 resnet50 inception_v3 gnmt bert_large})
configs=(${PARTSIM_SEARCH_CONFIGS:-$(for f in configs/*.yaml; do basename "$f" .yaml; done)})
export work="$build/search_check"
[ "${PARTSIM_SEARCH_RESUME:-0}" = 1 ] || rm -rf "$work"
mkdir -p "$work"

# pair CONFIG MODEL: leaves NAME.plan.json, NAME.plan.search.csv (the search log), NAME.results.json, NAME.wall and NAME.log,
# or NAME.skipped (simplan refused: exit 2) or NAME.failed.
pair() {
  local config=$1 model=$2 name="$1__$2" rc=0 t0 t1
  if [ -f "$work/$name.results.json" ] || [ -f "$work/$name.skipped" ] || [ -f "$work/$name.failed" ]; then
    echo "kept    $name"; return 0
  fi
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$simplan" --config "configs/$config.yaml" --workload "$model" --batch "$batch" --strategy search $extra \
    -o "$work/$name.plan.json" >"$work/$name.log" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  if [ "$rc" = 2 ]; then mv "$work/$name.log" "$work/$name.skipped"; echo "skipped $name"; return 0; fi
  if [ "$rc" != 0 ]; then mv "$work/$name.log" "$work/$name.failed"; echo "FAILED  $name"; return 0; fi
  echo "$t0 $t1" | awk '{printf "%.3f\n", $2 - $1}' >"$work/$name.wall"
  rc=0
  timeout "${PARTSIM_SEARCH_REPLAY_TIMEOUT:-0}" "$simrun" --config "configs/$config.yaml" --plan "$work/$name.plan.json" \
    --quiet --out "$work/$name.results.json" >>"$work/$name.log" 2>&1 || rc=$?
  if [ "$rc" = 124 ]; then
    echo "simrun: stopped after PARTSIM_SEARCH_REPLAY_TIMEOUT=${PARTSIM_SEARCH_REPLAY_TIMEOUT} s (replay timeout)" >>"$work/$name.log"
  fi
  if [ "$rc" != 0 ]; then
    mv "$work/$name.log" "$work/$name.failed"; echo "FAILED  $name (replay)"; return 0
  fi
  echo "done    $name ($(cat "$work/$name.wall") s)"
}
export -f pair
for c in "${configs[@]}"; do for m in "${models[@]}"; do echo "$c $m"; done; done |
  xargs -P "${PARTSIM_JOBS:-1}" -n 2 bash -c 'pair "$0" "$1"'
python3 "$(dirname "$0")/search_report.py" "$work" "$("$simplan" --version)" "$batch" "$extra" >"${PARTSIM_SEARCH_OUT:-docs/search.md}"
echo "wrote ${PARTSIM_SEARCH_OUT:-docs/search.md}"
