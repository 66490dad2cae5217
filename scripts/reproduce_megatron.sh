#!/usr/bin/env bash
# Reproduces issue 40's Megatron-LM comparisons with simplan --strategy megatron and simrun, and
# writes docs/reproductions/megatron.md: Korthikanti et al. 2022's 22B GPT on 8 A100-80GB (planned
# and simulated iteration time against the measured 1.42 s, model-state and activation memory
# against 45.56, 59.25 and 9.56 GiB) and Narayanan et al. 2021's Table 1 (1.7B on 32 GPUs to 1T on
# 3,072: achieved TFLOP/s per GPU by the paper's eq. 3, planned and, where the replay is small
# enough, simulated), with the gap analysis. Platform configs/dgx_a100.yaml unchanged; nothing is
# fitted. Replays of Table 1 rows with more than REPLAY_MAX_GPUS GPUs (default 1024) are skipped
# unless the megatron strategy has the option fold_replicas (then every row is replayed with
# fold_replicas=true); each replay is limited to REPLAY_TIMEOUT seconds (default 300) and marked
# 'timed out' beyond. With fold_replicas: about 3 minutes and 9.6 GB of memory on 2 cores (the
# 1T / 3,072-GPU replay, 85-130 s; the doc states every measured time and, where /usr/bin/time
# exists, every replay's peak memory). Without it: about 2 minutes and 7.5 GB (the 1,024-GPU replay).
# Usage: scripts/reproduce_megatron.sh [BUILD_DIR]   (default: build; it is configured if needed and
# only the simplan and simrun targets are built, with at most 2 jobs; PARTSIM_SKIP_BUILD=1 uses
# BUILD_DIR/bin/simplan and simrun as they are, for a build directory someone else is building).
# MEGATRON_WORK=DIR keeps the runs' files in DIR (else a temporary folder, removed at the end), so
# that `python3 scripts/megatron_report.py report DIR COMMIT` can be rerun on them.
set -euo pipefail
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
# shellcheck source=scripts/reproduce_common.sh
source "$(dirname "$0")/reproduce_common.sh"
build=${1:-build}
build_targets "$build" simplan simrun
simplan="$build/bin/simplan"
simrun="$build/bin/simrun"
replay_max_gpus=${REPLAY_MAX_GPUS:-1024}
replay_timeout=${REPLAY_TIMEOUT:-300}
if [ -n "${MEGATRON_WORK:-}" ]; then  # keep the runs' files there (to rerun the report alone)
  work=$MEGATRON_WORK
  mkdir -p "$work"
else
  work=$(mktemp -d)
  remove_on_exit "$work"
fi
started=$(date +%s.%N)
"$simplan" --version > "$work/version"
config=configs/dgx_a100.yaml

elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$1" "$(date +%s.%N)"; }

# plan RUN NODES WORKLOAD BATCH SIMPLAN_OPTIONS...: simplan into $work/RUN.plan.json, its command and
# wall time recorded; a failure ends the script (set -e) with simplan's message on stderr.
plan() {
  local run=$1 nodes=$2 workload=$3 batch=$4
  shift 4
  local cmd=("$simplan" --config "$config" --set "system.cluster.nodes=$nodes" --workload "$workload"
    --batch "$batch" --strategy megatron "$@" -o "$work/$run.plan.json")
  echo "simplan --config $config --set system.cluster.nodes=$nodes --workload $workload --batch $batch --strategy megatron $* -o plan.json" \
    > "$work/$run.command"
  local t0
  t0=$(date +%s.%N)
  nice "${cmd[@]}" > "$work/$run.simplan.out"
  echo "simplan $(elapsed "$t0")" >> "$work/$run.seconds"
  echo "planned $run ($(tail -n1 "$work/$run.seconds"))" >&2
}

# replay RUN NODES: simrun of RUN's plan into $work/RUN.results.json, within $replay_timeout seconds;
# a timeout is recorded in RUN.status, any other failure ends the script.
replay() {
  local run=$1 nodes=$2 t0 rc=0 peak=()
  # the replay's peak resident memory (KiB) into RUN.simrun.kb, where GNU time is there
  if [ -x /usr/bin/time ]; then peak=(/usr/bin/time -f %M -o "$work/$run.simrun.kb"); fi
  t0=$(date +%s.%N)
  timeout "$replay_timeout" nice "${peak[@]}" "$simrun" --config "$config" --set "system.cluster.nodes=$nodes" \
    --plan "$work/$run.plan.json" --out "$work/$run.results.json" > "$work/$run.simrun.out" || rc=$?
  if [ "$rc" = 124 ]; then
    rm -f "$work/$run.results.json"
    echo "timed out (over ${replay_timeout} s)" > "$work/$run.status"
  elif [ "$rc" != 0 ]; then
    cat "$work/$run.simrun.out" >&2
    echo "simrun failed on $run (exit $rc)" >&2
    exit "$rc"
  else
    echo "replayed" > "$work/$run.status"
  fi
  echo "simrun $(elapsed "$t0")" >> "$work/$run.seconds"
  echo "replay $run: $(cat "$work/$run.status") ($(tail -n1 "$work/$run.seconds"))" >&2
}

# 1. Korthikanti 2022's 22B GPT: TP 8 on one DGX A100 node, global batch 4 = one micro-batch of 4.
gpt22b="gpt:layers=48,width=6144,heads=64,sequence=2048,vocab=51200"
k22=(--option tp=8 --option pp=1 --option microbatch=4)
plan k22_full 1 "$gpt22b" 4 "${k22[@]}" --option recompute=full
replay k22_full 1
# Without recomputation the model does not fit (as K22 says): planned for its activation figure only.
plan k22_none 1 "$gpt22b" 4 "${k22[@]}" --option recompute=none --allow-over-memory
echo "planned only (over memory)" > "$work/k22_none.status"
plan k22_sel_sp 1 "$gpt22b" 4 "${k22[@]}" --option recompute=selective --option sequence_parallel=true
replay k22_sel_sp 1

# 2. Narayanan 2021 Table 1 (rows and their sources in scripts/megatron_sources.py).
fold=no
strategies=$(nice "$simplan" --list-strategies)  # whole, then searched: grep -q on a pipe could SIGPIPE it
if grep -q -- "--option fold_replicas=" <<< "$strategies"; then fold=yes; fi
echo "$fold" > "$work/fold.option"
echo "$replay_max_gpus" > "$work/replay.max"
if [ "$fold" = yes ]; then
  echo "every row is replayed with \`--option fold_replicas=true\` (identical data-parallel replicas folded), each limited to ${replay_timeout} s (marked timed out beyond)." \
    > "$work/replay.policy"
else
  echo "rows with up to ${replay_max_gpus} GPUs are replayed unfolded (each within ${replay_timeout} s); larger ones are not replayed (too large: this simrun has no \`fold_replicas\` option, and the unfolded Program grows with GPUs x micro-batches x layers: the 1,024-GPU row takes about 80 s and 7.4 GB, so by scaling the 1,536-GPU row would need about 13 GB and the 1,920-GPU row about 28 GB)." \
    > "$work/replay.policy"
fi
while read -r name layers hidden heads tp pp gpus batch mbs v ddp; do
  run="n21_$name"
  opts=(--option "tp=$tp" --option "pp=$pp" --option "microbatch=$mbs" --option recompute=full)
  if [ "$v" -gt 1 ]; then opts+=(--option schedule=interleaved --option "virtual_stages=$v"); fi
  if [ "$ddp" = torch ]; then opts+=(--option overlap_grad_reduce=true); fi
  if [ "$fold" = yes ]; then opts+=(--option fold_replicas=true); fi
  nodes=$((gpus / 8))
  plan "$run" "$nodes" "gpt:layers=$layers,width=$hidden,heads=$heads,sequence=2048,vocab=51200" "$batch" "${opts[@]}"
  if [ "$fold" = yes ] || [ "$gpus" -le "$replay_max_gpus" ]; then
    replay "$run" "$nodes"
  else
    echo "not replayed (too large)" > "$work/$run.status"
  fi
done < <(python3 scripts/megatron_report.py rows)

elapsed "$started" > "$work/total.seconds"
write_output docs/reproductions/megatron.md \
  python3 scripts/megatron_report.py report "$work" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
