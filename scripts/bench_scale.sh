#!/usr/bin/env bash
# Issue 13's scale benchmark: one data-parallel bert_large training iteration lowered and replayed at
# chip granularity on the TPU-v3 tori (128 chips, the 1,024-chip pod, and a 64 x 64 pod of 4,096),
# with the gradient all-reduces all in flight together (the default) and on one stream per device in
# 25 MB buckets (simplan --gradient-sync-order in_order --gradient-bucket 25MB, as NCCL/DDP and XLA).
# Prints one plan_replay_bench row per case: tasks, activities, transfers SimGrid's network model ran
# (sg_comms: the others shared no link and were timed alone; the last case runs every transfer in
# SimGrid, --lone-transfers simgrid), predicted / closed-form / simulated seconds, lowering and
# replay wall time, activities/s, peak memory. Figures, not a test (the machines are noisy);
# docs/model.md "Speed and memory" records a run.
# Usage: scripts/bench_scale.sh [BUILD_DIR]
#   PARTSIM_BENCH_TIMEOUT: seconds allowed per case (default 600); a case over it prints "timeout".
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
bench="$build/bin/plan_replay_bench"
[ -x "$bench" ] || { echo "bench_scale.sh: $bench not found (build first: cmake --build $build)" >&2; exit 2; }
limit="${PARTSIM_BENCH_TIMEOUT:-600}"
pod="$root/configs/tpu_v3_1024_torus_ici.yaml"
pod4096=(--set 'system.devices[0].count=4096' --set 'system.torus.dims[0]=64' --set 'system.torus.dims[1]=64')
streams=(--gradient-sync-order in_order --gradient-bucket 25MB)

run() {  # label, then plan_replay_bench arguments
  local label="$1"; shift
  local row
  if row="$(timeout "$limit" "$bench" --workload bert_large --strategy dp --only chip "$@" | grep '^chip')"; then
    printf '%-34s %s\n' "$label" "${row#chip }"
  else
    printf '%-34s %s\n' "$label" "timeout or failure (limit ${limit} s)"
  fi
}

printf '%-34s %9s %10s %10s %12s %12s %12s %8s %8s %8s %10s %12s %8s\n' case tasks activities sg_comms predicted_s \
  closed_s simulated_s lower_s setup_s replay_s total_s activities/s peak_MB
run "128 chips b512 concurrent" --config "$root/configs/tpu_v3_128_torus_ici.yaml" --batch 512
run "128 chips b512 stream+25MB" --config "$root/configs/tpu_v3_128_torus_ici.yaml" --batch 512 "${streams[@]}"
run "1024 chips b512 concurrent" --config "$pod" --batch 512
run "1024 chips b512 stream+25MB" --config "$pod" --batch 512 "${streams[@]}"
run "1024 chips b1024 stream" --config "$pod" --batch 1024 --gradient-sync-order in_order
run "1024 chips b1024 stream+25MB" --config "$pod" --batch 1024 "${streams[@]}"
run "4096 chips b4096 stream+25MB" --config "$pod" "${pod4096[@]}" --batch 4096 "${streams[@]}"
run "4096 chips, every transfer SimGrid" --config "$pod" "${pod4096[@]}" --batch 4096 "${streams[@]}" --lone-transfers simgrid
echo "total_s = lowering + closed form + SimGrid set-up + replay (planning excluded); issue 13 aims: 4096 chips < 5 s and 500 MB"
