#!/usr/bin/env bash
# Cross-check across the whole matrix (issues 6 and 13): every strategy of `simplan
# --list-strategies` on every shipped platform (configs/*.yaml) that accepts it, for alexnet, vgg16,
# resnet50, inception_v3, gnmt and bert_large at batch 512: plan (simplan), replay (simrun --plan)
# and write docs/crosscheck.md (predicted vs closed form vs simulated, the contention part, per-link
# hot spots, simplan's warnings, Pearson r linear and log, and whether the strategies rank the same
# by prediction and by simulation per (platform, workload)), once as planned and once with the
# trusted option of the strategies that have one (the AccPar family's compute=device).
#
# Usage: scripts/crosscheck.sh [BUILD_DIR]   (default build; configured and built if needed)
# Environment (space-separated lists; the defaults are the full matrix, which takes hours on 2 cores):
#   PARTSIM_CROSSCHECK_MODELS      workloads        (default: alexnet vgg16 resnet50 inception_v3 gnmt bert_large)
#   PARTSIM_CROSSCHECK_CONFIGS     platform names   (default: every configs/*.yaml)
#   PARTSIM_CROSSCHECK_STRATEGIES  strategy names   (default: every strategy of simplan --list-strategies)
#   PARTSIM_CROSSCHECK_BATCH       minibatch        (default 512)
#   PARTSIM_CROSSCHECK_TRUSTED     both | off | only: the strategies that declare compute= are also
#                                  (both), never (off) or only (only) planned with compute=device
#                                  (default both)
#   PARTSIM_CROSSCHECK_SYNC        in_order | concurrent: how training plans of the strategies on the
#                                  shared sharding lowering synchronise gradients. in_order (default):
#                                  one all-reduce at a time per device in backward order, consecutive
#                                  layers' gradients fused into 25 MB buckets (simplan
#                                  --gradient-sync-order in_order --gradient-bucket 25MB: PyTorch DDP,
#                                  NCCL's stream, XLA's combiner; it also keeps the 256- and 1,024-chip
#                                  replays to seconds); concurrent: every layer's all-reduce starts as
#                                  soon as its gradient exists (simplan's default)
#   PARTSIM_CROSSCHECK_TIMEOUT     seconds per simplan or simrun call (default 1800; a run over it is
#                                  listed as failed)
#   PARTSIM_CROSSCHECK_MEMORY_GB   address space per simplan or simrun call, GB (default: no limit); a run
#                                  over it fails with "out of memory" and is listed as failed, instead of
#                                  the kernel's OOM killer picking a process (owt bert_large point to point
#                                  on the 1,024-chip pods needs about 18 GB)
#   PARTSIM_CROSSCHECK_RESUME      1: keep BUILD_DIR/crosscheck from an earlier run and do only what it
#                                  lacks (failed runs are tried again, but not those that timed out at
#                                  this PARTSIM_CROSSCHECK_TIMEOUT or a larger one), so the full
#                                  matrix can be run in several sittings; refused if simplan or simrun
#                                  is not the build that began it (--version). Default 0: start afresh
#   PARTSIM_CROSSCHECK_RECORDS     the runs as records, one JSON line each (default
#                                  docs/data/crosscheck_runs.jsonl): written with the report; with
#                                  PARTSIM_CROSSCHECK_RESUME=1 also read first, and the runs it holds
#                                  that this build would make the same (same build, or one whose
#                                  sources differ only in docs, tests and report scripts) are not
#                                  made again, so that sittings on different machines add up to the
#                                  full matrix (scripts/crosscheck_records.py)
#   PARTSIM_CROSSCHECK_REDO        strategy names: with PARTSIM_CROSSCHECK_RESUME=1 and a build other than
#                                  the one that began the run (after a change to those strategies
#                                  alone), their runs are removed and made again by this build, and
#                                  only they are run; the other strategies' runs are kept as they are.
#                                  VERSIONS and the report's header name the build of each
#   PARTSIM_JOBS                   runs at a time (default 2); PARTSIM_GRANULARITY chip | core (default chip)
#   PARTSIM_SKIP_BUILD=1           use BUILD_DIR/bin/simplan and simrun as they are (a copy, while the build
#                                  directory is rebuilt during a run of hours)
# A strategy that refuses a platform or workload (simplan exits 2) is skipped with simplan's message
# (deepa refuses where its eq. 1 precomputation would pass its option xfer_limit, one to two minutes:
# from the 128-chip platforms up for the larger CNNs).
set -euo pipefail
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
source "$(dirname "$0")/reproduce_common.sh"
build=${1:-build}
export jobs=${PARTSIM_JOBS:-2}
export granularity=${PARTSIM_GRANULARITY:-chip}
export batch=${PARTSIM_CROSSCHECK_BATCH:-512}
export timeout_s=${PARTSIM_CROSSCHECK_TIMEOUT:-1800}
export memory_gb=${PARTSIM_CROSSCHECK_MEMORY_GB:-}
case "$memory_gb" in '' | [1-9] | [1-9][0-9] | [1-9][0-9][0-9]) ;; *) echo "PARTSIM_CROSSCHECK_MEMORY_GB: whole GB, 1 to 999 (got '$memory_gb')" >&2; exit 2 ;; esac
trusted=${PARTSIM_CROSSCHECK_TRUSTED:-both}
export sync=${PARTSIM_CROSSCHECK_SYNC:-in_order}
case "$sync" in in_order | concurrent) ;; *) echo "PARTSIM_CROSSCHECK_SYNC: in_order or concurrent (got '$sync')" >&2; exit 2 ;; esac
case "$trusted" in both | off | only) ;; *) echo "PARTSIM_CROSSCHECK_TRUSTED: both, off or only (got '$trusted')" >&2; exit 2 ;; esac
build_targets "$build" simplan simrun
export simplan="$build/bin/simplan" simrun="$build/bin/simrun"
listing=$("$simplan" --list-strategies)
models=(${PARTSIM_CROSSCHECK_MODELS:-alexnet vgg16 resnet50 inception_v3 gnmt bert_large})
strategies=(${PARTSIM_CROSSCHECK_STRATEGIES:-$(awk '/^[a-z]/ {print $1}' <<<"$listing")})
configs=(${PARTSIM_CROSSCHECK_CONFIGS:-$(for f in configs/*.yaml; do basename "$f" .yaml; done)})
# Strategies with a trusted-model option: those declaring compute=peak|device.
trusted_capable=" $(awk '/^[a-z]/ {s = $1} /--option compute=/ {print s}' <<<"$listing" | tr '\n' ' ') "
# Whether this call runs STRATEGY's VIEW (planned or trusted): the trusted view only for those
# strategies, none with PARTSIM_CROSSCHECK_TRUSTED=off, and =only leaves out their planned view.
runs_view() {
  local capable=0
  [[ "$trusted_capable" == *" $1 "* ]] && capable=1
  case "$2" in
    trusted) [ "$trusted" != off ] && [ "$capable" = 1 ] ;;
    planned) ! { [ "$trusted" = only ] && [ "$capable" = 1 ]; } ;;
  esac
}
export work="$build/crosscheck"
versions="$("$simplan" --version) / $("$simrun" --version)"
redo=(${PARTSIM_CROSSCHECK_REDO:-})
for s in "${redo[@]}"; do
  grep -q "^$s\b" <<<"$listing" || { echo "PARTSIM_CROSSCHECK_REDO: '$s' is not a strategy of simplan --list-strategies" >&2; exit 2; }
done
export records=${PARTSIM_CROSSCHECK_RECORDS:-docs/data/crosscheck_runs.jsonl}
resume=${PARTSIM_CROSSCHECK_RESUME:-0}
# What makes two runs comparable besides the build: the records keep them. recipe: the arguments run()
# gives simplan and simrun; bump it with any change to them, so that records made otherwise are made again
# (scripts/crosscheck_records.py counts this file among those that cannot change a run).
recipe=1
export PARTSIM_CROSSCHECK_SETTINGS="{\"batch\": $batch, \"granularity\": \"$granularity\", \"sync\": \"$sync\", \"recipe\": $recipe}"
if [ "$resume" = 1 ] && [ -f "$work/VERSIONS" ]; then
  began=$(head -n 1 "$work/VERSIONS")
  if [ "$began" != "$versions" ]; then
    if [ "${#redo[@]}" = 0 ]; then
      echo "crosscheck.sh: $work was begun by $began, this build is $versions: resume with that build, redo the changed strategies with this one (PARTSIM_CROSSCHECK_REDO), or run afresh (PARTSIM_CROSSCHECK_RESUME=0)" >&2
      exit 2
    fi
    strategies=("${redo[@]}")  # this build makes only the runs of the strategies it redoes
  else
    # The build that began the run does not add runs of a strategy another build has redone since.
    while IFS= read -r line; do
      s=${line%%: *}
      if [ "${line#*: }" != "$versions" ] && [[ " ${strategies[*]} " == *" $s "* ]] && [[ " ${redo[*]} " != *" $s "* ]]; then
        echo "crosscheck.sh: $s's runs were redone by ${line#*: }: this build leaves them" >&2
        strategies=($(printf '%s\n' "${strategies[@]}" | grep -vx "$s"))
      fi
    done < <(tail -n +2 "$work/VERSIONS")
  fi
  # VERSIONS: the build that began the run, then "STRATEGY: build" for each strategy redone since.
  for s in "${redo[@]}"; do
    made_by=$(sed -n "s|^$s: ||p" "$work/VERSIONS")
    if [ "${made_by:-$began}" != "$versions" ]; then
      rm -f "$work/"*"__${s}__"*
      sed -i "\|^$s: |d" "$work/VERSIONS"
      echo "$s: $versions" >>"$work/VERSIONS"
    fi
  done
else
  rm -rf "$work"
  mkdir -p "$work"
  echo "$versions" >"$work/VERSIONS"
  # Redone strategies on a fresh directory (resuming from records): said as on a resumed one, so that
  # the report's resume hint redoes them too (the other strategies' records may be another build's).
  for s in "${redo[@]}"; do echo "$s: $versions" >>"$work/VERSIONS"; done
fi
if [ "$resume" = 1 ]; then
  PARTSIM_CROSSCHECK_VERSIONS="$versions" PARTSIM_CROSSCHECK_REDO="${redo[*]}" \
    python3 scripts/crosscheck_records.py import "$records" "$work"
  # Failed runs are tried again, except those that ran out of time at this limit or a larger one:
  # the same limit would only spend the same time again.
  # Only those this call will run again: the others (other strategies, platforms, workloads or views
  # than this call's; PARTSIM_CROSSCHECK_TRUSTED=off runs no trusted view, =only no planned view of
  # the strategies with the option) stay listed as failed.
  for f in "$work"/*.failed; do
    [ -e "$f" ] || continue
    IFS=' ' read -r f_config f_strategy f_model f_variant <<<"$(basename "$f" .failed | sed 's/__/ /g')"
    [[ " ${configs[*]} " == *" $f_config "* && " ${strategies[*]} " == *" $f_strategy "* &&
       " ${models[*]} " == *" $f_model "* ]] || continue
    runs_view "$f_strategy" "$f_variant" || continue
    limit=$(sed -n 's/.*did not finish within \([0-9]*\) s (timeout).*/\1/p' "$f")
    if [ -n "$limit" ] && [ "$limit" -ge "$timeout_s" ]; then continue; fi
    # Likewise a run that needed more memory than this limit allows.
    limit=$(sed -n 's/.*(over the memory limit of \([0-9]*\) GB).*/\1/p' "$f")
    if [ -n "$limit" ] && [ -n "$memory_gb" ] && [ "$limit" -ge "$memory_gb" ]; then continue; fi
    rm -f "$f"
    # A recorded failure tried again is this build's run now.
    if [ -f "$work/RECORDED" ]; then sed -i "/^$(basename "$f" .failed)\t/d" "$work/RECORDED"; fi
  done
fi

# run CONFIG STRATEGY MODEL VARIANT: VARIANT "planned" (the defaults) or "trusted" (compute=device).
# Leaves NAME.plan.json, NAME.results.json and NAME.log, or NAME.skipped (the strategy refused) or
# NAME.failed (anything else), NAME = CONFIG__STRATEGY__MODEL__VARIANT. A trusted plan that places
# every layer as the planned one does (compute=device re-prices, the search is unchanged) is not
# replayed again: NAME.same_as names the planned run whose replay it shares.
run() {
  local config=$1 strategy=$2 model=$3 variant=$4
  local name="${config}__${strategy}__${model}__${variant}" options=() rc=0
  if [ -f "$work/$name.results.json" ] || [ -f "$work/$name.skipped" ] || [ -f "$work/$name.same_as" ] ||
     [ -f "$work/$name.failed" ] || [ -f "$work/$name.record.json" ]; then
    echo "kept   $name"  # PARTSIM_CROSSCHECK_RESUME=1: done in an earlier sitting
    return 0
  fi
  [ "$variant" = trusted ] && options=(--option compute=device)
  # This run's address space (run() is its own bash process under xargs, so the limit stays here).
  [ -n "$memory_gb" ] && ulimit -v $((memory_gb * 1024 * 1024))
  # " (over the memory limit of N GB)" when the log shows an allocation failure under the limit.
  memory_note() {
    [ -n "$memory_gb" ] && grep -q "bad_alloc\|out of memory\|Cannot allocate memory" "$work/$name.log" &&
      echo " (over the memory limit of ${memory_gb} GB)"
    return 0
  }
  local schedule=()
  [ "$sync" = in_order ] && schedule=(--gradient-sync-order in_order --gradient-bucket 25MB)
  timeout "$timeout_s" "$simplan" --config "configs/$config.yaml" --workload "$model" --batch "$batch" \
    --strategy "$strategy" "${options[@]}" "${schedule[@]}" -o "$work/$name.plan.json" >"$work/$name.log" 2>&1 || rc=$?
  # A strategy with a lowering of its own (dsm) refuses the schedule options: plan it without them.
  if [ "$rc" = 2 ] && [ "${#schedule[@]}" != 0 ] && grep -q 'has a lowering of its own' "$work/$name.log"; then
    rc=0
    timeout "$timeout_s" "$simplan" --config "configs/$config.yaml" --workload "$model" --batch "$batch" \
      --strategy "$strategy" "${options[@]}" -o "$work/$name.plan.json" >"$work/$name.log" 2>&1 || rc=$?
  fi
  # Stopped by a signal (the sitting interrupted: Ctrl-C, kill): no result either way, made on resume.
  if [ "$rc" = 130 ] || [ "$rc" = 143 ]; then echo "stopped $name"; return 0; fi
  if [ "$rc" = 2 ]; then
    grep -m1 ': error: ' "$work/$name.log" >"$work/$name.skipped" || tail -n 1 "$work/$name.log" >"$work/$name.skipped"
    echo "skip   $name: $(cat "$work/$name.skipped")"
    return 0
  elif [ "$rc" = 124 ]; then
    echo "simplan exit 124: did not finish within ${timeout_s} s (timeout)" >"$work/$name.failed"
    echo "FAILED $name: $(cat "$work/$name.failed")"
    return 0
  elif [ "$rc" != 0 ]; then
    echo "simplan exit $rc$(memory_note): $(tail -n 1 "$work/$name.log")" >"$work/$name.failed"
    echo "FAILED $name: $(cat "$work/$name.failed")"
    return 0
  fi
  local planned="${config}__${strategy}__${model}__planned"
  if [ "$variant" = trusted ] && [ -f "$work/$planned.plan.json" ] &&
     { [ -f "$work/$planned.results.json" ] || [ -f "$work/$planned.failed" ]; } &&
     python3 - "$work/$planned.plan.json" "$work/$name.plan.json" <<'EOF'; then
import json, sys
def placement(path):
    return [(layer["sharding"], layer.get("family")) for layer in json.load(open(path))["layers"]]
sys.exit(0 if placement(sys.argv[1]) == placement(sys.argv[2]) else 1)
EOF
    if [ -f "$work/$planned.results.json" ]; then
      echo "$planned" >"$work/$name.same_as"
      echo "ok     $name (same placement as $planned)"
    else
      # The same replay as the planned run's, which failed: say so rather than fail again.
      echo "same placement as $planned, whose $(cat "$work/$planned.failed")" >"$work/$name.failed"
      echo "FAILED $name: $(cat "$work/$name.failed")"
    fi
    return 0
  fi
  timeout "$timeout_s" "$simrun" --config "configs/$config.yaml" --plan "$work/$name.plan.json" \
    --granularity "$granularity" --reproducible --out "$work/$name.results.json" >>"$work/$name.log" 2>&1 || rc=$?
  if [ "$rc" = 0 ]; then
    echo "ok     $name"
  elif [ "$rc" = 130 ] || [ "$rc" = 143 ]; then
    echo "stopped $name"
  elif [ "$rc" = 124 ]; then
    echo "simrun exit 124: did not finish within ${timeout_s} s (timeout)" >"$work/$name.failed"
    echo "FAILED $name: $(cat "$work/$name.failed")"
  else
    echo "simrun exit $rc$(memory_note): $(tail -n 1 "$work/$name.log")" >"$work/$name.failed"
    echo "FAILED $name: $(cat "$work/$name.failed")"
  fi
}
export -f run

# Two phases: the trusted runs compare their placement with the planned runs' plans.
# With PARTSIM_CROSSCHECK_TRUSTED=only the planned phase runs only the strategies without the option.
for phase in planned trusted; do
  [ "$phase" = trusted ] && [ "$trusted" = off ] && continue
  for config in "${configs[@]}"; do
    for s in "${strategies[@]}"; do
      runs_view "$s" "$phase" || continue
      for model in "${models[@]}"; do echo "$config $s $model $phase"; done
    done
  done | xargs -r -P "$jobs" -L 1 bash -c 'run "$@"' run
done
# Which subset this was, and the command for the full matrix, go into the report's header.
export PARTSIM_CROSSCHECK_SUBSET="models: ${models[*]}; platforms: ${configs[*]}; strategies: ${strategies[*]}; batch $batch; trusted option: $trusted; gradient sync: $sync"
python3 scripts/crosscheck_records.py export "$work" "$records"
write_output docs/crosscheck.md python3 scripts/crosscheck_report.py "$work" "$granularity"
