#!/usr/bin/env bash
# The error of megatron's fold_replicas (docs/model.md "Folded data-parallel replicas"), measured on
# cases small enough to replay unfolded: each case planned and replayed at chip granularity twice,
# fold_replicas=false and true, on DGX A100 nodes (configs/dgx_a100.yaml, 8 GPUs per node); prints
# both closed-form and SimGrid iteration times, the folded one's relative error against the
# unfolded one, and both task counts. The closed form has no contention, so its error is rounding;
# SimGrid's is what folding neglects: the other replicas' TP collectives and pipeline sends on links
# their DP collectives (and replica 0's traffic) share.
# Model: a GPT-3-shaped 8-layer slice (width 4096, 32 heads, sequence 2048; so that the unfolded
# replays stay short), micro-batch 1, 8 micro-batches per replica, 1F1B and interleaved (2 chunks);
# tp 8 (one node per stage and replica) or tp 4 (two replicas per node), pp 2, dp 2, 4, 8; ZeRO 0
# with and without overlap_grad_reduce.
# Usage: scripts/megatron_fold_error.sh [BUILD_DIR]
#   CASES: a subset of the case labels below (default: all), e.g. CASES="tp8-dp2 tp8-dp4"
#   WORKLOAD: another workload (default the 8-layer slice above)
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
bench="$build/bin/plan_replay_bench"
[ -x "$bench" ] || { echo "megatron_fold_error.sh: $bench not found (build first: cmake --build $build --target plan_replay_bench)" >&2; exit 2; }
workload="${WORKLOAD:-gpt:layers=8,width=4096,heads=32,sequence=2048}"

row() {  # nodes batch options...: "tasks closed_s simulated_s"
  local nodes="$1" batch="$2"; shift 2
  local args=()
  for o in "$@"; do args+=(--option "$o"); done
  "$bench" --config "$root/configs/dgx_a100.yaml" --set "system.cluster.nodes=$nodes" --workload "$workload" \
    --batch "$batch" --strategy megatron --only chip "${args[@]}" | awk '$1 == "chip" { print $2, $6, $7 }'
}

printf '%-34s %9s %9s %14s %14s %10s %14s %14s %10s\n' case tasks folded_tasks closed_s closed_fold_s closed_err \
  simulated_s simulated_fold_s sim_err
for tp in 8 4; do
  for dp in 2 4 8; do
    for sched in 1f1b interleaved; do
      for overlap in false true; do
        label="tp${tp}-dp${dp}-${sched}-overlap_${overlap}"
        if [ -n "${CASES:-}" ] && ! printf ' %s ' "$CASES" | grep -q " tp${tp}-dp${dp} "; then continue; fi
        nodes=$((tp * 2 * dp / 8))
        opts=(tp="$tp" pp=2 microbatch=1 schedule="$sched" overlap_grad_reduce="$overlap")
        [ "$sched" = interleaved ] && opts+=(virtual_stages=2)
        read -r t0 c0 s0 < <(row "$nodes" $((8 * dp)) "${opts[@]}" fold_replicas=false)
        read -r t1 c1 s1 < <(row "$nodes" $((8 * dp)) "${opts[@]}" fold_replicas=true)
        awk -v l="$label" -v t0="$t0" -v t1="$t1" -v c0="$c0" -v c1="$c1" -v s0="$s0" -v s1="$s1" 'BEGIN {
          printf "%-34s %9d %9d %14.9f %14.9f %+10.2e %14.9f %14.9f %+10.2e\n", l, t0, t1, c0, c1, (c1 - c0) / c0, s0, s1, (s1 - s0) / s0 }'
      done
    done
  done
done
echo "err = (folded - unfolded) / unfolded; tasks: the Program's"
