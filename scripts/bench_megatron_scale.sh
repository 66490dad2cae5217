#!/usr/bin/env bash
# Issue 40 item 5's scale benchmark: Megatron-LM training iterations on DGX A100 clusters
# (configs/dgx_a100.yaml, 8 GPUs per node) planned by the megatron strategy, lowered with
# fold_replicas=true (docs/model.md "Folded data-parallel replicas": data-parallel replica 0's
# compute, TP collectives and pipeline sends stand for every replica's) and replayed at chip
# granularity by the closed form and SimGrid. One plan_replay_bench row per case: tasks, activities,
# predicted / closed-form / simulated iteration seconds, lowering, SimGrid set-up and replay wall
# seconds, peak memory (the forked child's ru_maxrss: planning, lowering and both replays).
#   GPT-3 175B on 1,024 GPUs: tp 8, pp 16, dp 8, global batch 1536, micro-batch 1, interleaved with
#     2 model chunks per GPU (Narayanan et al. SC'21 Table 1's row; the paper's chunk count for it
#     is not checked here, 2 is our choice), full activation recomputation (N21 §3.5; without it
#     the plan needs 100.7 GiB per 80 GiB GPU). Aim: at most 120 s and 8 GB on 2 cores.
#   1T model on 3,072 GPUs (N21 Table 1): 128 layers, width 25600, 160 heads, tp 8, pp 64 (dp 6),
#     batch 3072, micro-batch 1, interleaved, 2 chunks (1 layer each), full recomputation.
#   GPT-3 175B on 10,752 GPUs (our choice: 1,344 nodes): tp 8, pp 16, dp 84, batch 2688 (32
#     micro-batches per replica: 1536 is not a multiple of 84, and the interleaved schedule needs m
#     to be a multiple of p = 16), micro-batch 1, interleaved, 2 chunks, full recomputation.
# Cases 64 128 256 (unfolded) and 64f 128f 256f (folded): 175B, tp 8, pp 8, 1F1B, 32 micro-batches
# per replica (dp 1, 2, 4), no recomputation (these plans exceed 80 GiB per GPU; they only show how
# the unfolded lowering grows with dp and the folded does not).
# Figures, not a test (the machines are noisy); docs/model.md "Scale: folded replicas" records a run.
# Usage: scripts/bench_megatron_scale.sh [BUILD_DIR]
#   CASES: space-separated subset of: 64 128 256 64f 128f 256f 1024 3072 10752 (default: 1024 3072 10752)
#   PARTSIM_BENCH_TIMEOUT: seconds allowed per case (default 900); a case over it prints "timeout".
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
bench="$build/bin/plan_replay_bench"
[ -x "$bench" ] || { echo "bench_megatron_scale.sh: $bench not found (build first: cmake --build $build --target plan_replay_bench)" >&2; exit 2; }
limit="${PARTSIM_BENCH_TIMEOUT:-900}"
cases="${CASES:-1024 3072 10752}"
gpt3=gpt3_175b
gpt1t="gpt:layers=128,width=25600,heads=160,sequence=2048"

run() {  # label, nodes, workload, batch, then --option values
  local label="$1" nodes="$2" workload="$3" batch="$4"; shift 4
  local args=() row
  for o in "$@"; do args+=(--option "$o"); done
  if row="$(timeout "$limit" "$bench" --config "$root/configs/dgx_a100.yaml" --set "system.cluster.nodes=$nodes" \
              --workload "$workload" --batch "$batch" --strategy megatron --only chip "${args[@]}" | grep '^chip')"; then
    printf '%-30s %s\n' "$label" "${row#chip }"
  else
    printf '%-30s %s\n' "$label" "timeout or failure (limit ${limit} s)"
  fi
}

interleaved=(microbatch=1 schedule=interleaved virtual_stages=2 recompute=full)
printf '%-30s %9s %10s %10s %12s %12s %12s %8s %8s %8s %10s %12s %8s\n' case tasks activities sg_comms predicted_s \
  closed_s simulated_s lower_s setup_s replay_s total_s activities/s peak_MB
for c in $cases; do
  case "$c" in
    # Growth of the unfolded lowering: 175B, tp 8, pp 8, 32 micro-batches per replica, dp 1, 2, 4.
    64 | 128 | 256 | 64f | 128f | 256f)
      n="${c%f}"; dp=$((n / 64)); fold=false; [ "$c" != "$n" ] && fold=true
      run "175B ${n} GPUs dp ${dp} fold ${fold}" $((n / 8)) "$gpt3" $((32 * dp)) tp=8 pp=8 microbatch=1 fold_replicas="$fold" ;;
    1024) run "175B 1024 GPUs (folded)" 128 "$gpt3" 1536 tp=8 pp=16 "${interleaved[@]}" fold_replicas=true ;;
    3072) run "1T 3072 GPUs (folded)" 384 "$gpt1t" 3072 tp=8 pp=64 "${interleaved[@]}" fold_replicas=true ;;
    10752) run "175B 10752 GPUs (folded)" 1344 "$gpt3" 2688 tp=8 pp=16 "${interleaved[@]}" fold_replicas=true ;;
    *) echo "bench_megatron_scale.sh: unknown case '$c'" >&2; exit 2 ;;
  esac
done
echo "total_s = lowering + closed form + SimGrid set-up + replay (planning excluded); peak_MB: the case's process; aim (issue 40): 1,024 GPUs in 120 s and 8 GB"
