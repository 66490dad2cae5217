#!/usr/bin/env bash
# Lower bounds on the replays the cross-check could not make (docs/model.md "The replay lower bound";
# sim/program/replay_lower_bound.hpp): plans each run as scripts/crosscheck.sh does (simplan, batch
# PARTSIM_CROSSCHECK_BATCH (512), in-order 25 MB gradient buckets), lowers it at chip granularity and
# bounds its SimGrid replay from below without simulating it (flow_evaluator_bench --bound-only);
# writes one JSON line per run to docs/data/replay_bounds.jsonl, which scripts/crosscheck_report.py
# sets against the search's simulated time. A run takes seconds to a few minutes and, for the
# largest (owt bert_large on the 1,024-chip pod, 76 M tasks), about 20 GB of memory.
# A run CONFIG:STRATEGY:WORKLOAD:S1,S2,... first replays the plan's first S simulated seconds
# (SimGrid, `--simgrid-cfg network/optim:Full`) and bounds the rest from where that replay is, at
# each S (flow_evaluator_bench --replay-until S1 S2 ...; docs/model.md "After a replayed prefix"):
# where the bound alone falls short, at the cost of that much replay. The record's bound is the
# last S's; each S's is in its `prefixes`.
# Usage: scripts/replay_bounds.sh [BUILD_DIR] [CONFIG:STRATEGY:WORKLOAD[:S1,S2,...] ...]
#   default runs (about 9 min on one core, and about 65 min more for owt vgg16's prefix): owt's alexnet,
#   vgg16 (after its replay's first 30 ms), gnmt and bert_large on tpu_v3_1024_torus_boardbw, the
#   cross-check's runs whose replays take more than this machine has (docs/crosscheck.md), and, as a
#   check of the bound, every replayed planned run of accpar, hypar,
#   owt and dp on torus_8pf, p100_4node, dgx_a100, tpu_v3_128_torus_ici, tpu_v3_128_torus_boardbw
#   and tpu_v2_256_torus_boardbw in docs/data/crosscheck_runs.jsonl (the report sets those bounds
#   against their replays)
# Environment: PARTSIM_REPLAY_BOUNDS_OUT  output file (default docs/data/replay_bounds.jsonl)
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
set -euo pipefail
source "$(dirname "$0")/reproduce_common.sh"
build=build
if [ $# -gt 0 ] && [[ "$1" != *:* ]]; then
  build=$1
  shift
fi
runs=("$@")
if [ ${#runs[@]} = 0 ]; then
  runs=(tpu_v3_1024_torus_boardbw:owt:alexnet tpu_v3_1024_torus_boardbw:owt:vgg16:0.025,0.03
    tpu_v3_1024_torus_boardbw:owt:gnmt tpu_v3_1024_torus_boardbw:owt:bert_large)
  mapfile -t -O ${#runs[@]} runs < <(python3 - <<'EOF'
import json
configs = {"torus_8pf", "p100_4node", "dgx_a100", "tpu_v3_128_torus_ici", "tpu_v3_128_torus_boardbw",
           "tpu_v2_256_torus_boardbw"}
for line in open("docs/data/crosscheck_runs.jsonl"):
    r = json.loads(line)
    if (r["status"] == "replayed" and r["variant"] == "planned" and r["config"] in configs
            and r["strategy"] in ("accpar", "hypar", "owt", "dp")):
        print(f"{r['config']}:{r['strategy']}:{r['model']}")
EOF
  )
fi
seconds_pattern='^[0-9]*[.]?[0-9]+([eE][-+]?[0-9]+)?(,[0-9]*[.]?[0-9]+([eE][-+]?[0-9]+)?)*$'
for run in "${runs[@]}"; do
  IFS=: read -r config strategy model prefix <<<"$run"
  if [ -z "$model" ] || [ ! -f "configs/$config.yaml" ] ||
     { [ -n "$prefix" ] && ! [[ "$prefix" =~ $seconds_pattern ]]; }; then
    echo "replay_bounds.sh: '$run': expected CONFIG:STRATEGY:WORKLOAD[:S1,S2,...] with configs/CONFIG.yaml and each S in seconds" >&2
    exit 2
  fi
done
batch=${PARTSIM_CROSSCHECK_BATCH:-512}
out=${PARTSIM_REPLAY_BOUNDS_OUT:-docs/data/replay_bounds.jsonl}
build_targets "$build" simplan flow_evaluator_bench
work=$(mktemp -d)
remove_on_exit "$work"

bound_lines() {
  local run config strategy model prefix started how
  for run in "${runs[@]}"; do
    IFS=: read -r config strategy model prefix <<<"$run"
    echo "bounding $config $strategy $model${prefix:+ after replaying its first $prefix s}" >&2
    "$build/bin/simplan" --config "configs/$config.yaml" --workload "$model" --batch "$batch" --strategy "$strategy" \
      --gradient-sync-order in_order --gradient-bucket 25MB -o "$work/plan.json" >"$work/simplan.log" 2>&1 ||
      { cat "$work/simplan.log" >&2; exit 2; }
    started=$(date +%s.%N)
    how=(--bound-only)
    [ -n "$prefix" ] && how=(--replay-until ${prefix//,/ } --simgrid-cfg network/optim:Full)
    "$build/bin/flow_evaluator_bench" --config "configs/$config.yaml" --plan "$work/plan.json" "${how[@]}" \
      >"$work/bound.log"
    python3 - "$config" "$strategy" "$model" "$batch" "$work/bound.log" "$started" \
      "$("$build/bin/simplan" --version)" "$("$build/bin/flow_evaluator_bench" --version)" "$prefix" <<'EOF'
import json, re, sys, time
config, strategy, model, batch, log, started, simplan, bench, prefix = sys.argv[1:]
text = open(log).read()
number = r"([0-9.e+-]+)"
m = re.search(rf"replay lower bound: {number} s in {number} s wall \(closed form {number} s; with gathers and "
              rf"scatters {number} s; best link window {number} s on (\S+); busiest link {number} s on (\S+); "
              rf"(\d+) flows\)", text)
if not m:
    sys.exit(f"replay_bounds.sh: no bound in flow_evaluator_bench's output:\n{text}")
record = {"name": f"{config}__{strategy}__{model}__planned", "config": config, "strategy": strategy,
          "model": model, "batch": int(batch), "gradient_sync": "in_order, 25 MB buckets",
          "bound_s": float(m[1]), "closed_form_s": float(m[3]), "path_s": float(m[4]),
          "link_window_s": float(m[5]), "link": m[6], "busiest_link_s": float(m[7]),
          "busiest_link": m[8], "flows": int(m[9])}
if prefix:
    # The bound after the replay's first S seconds, at the last S, replaces the bound alone (kept as
    # bound_alone_s); every S's bound is in `prefixes` ([S, bound s, replay wall s]).
    stops = list(re.finditer(rf"replay prefix: {number} s simulated in {number} s wall\n"
                  rf"replay lower bound after the replay's first {number} s \((\d+) tasks started, (\d+) finished\): "
                  rf"{number} s in {number} s wall \(critical path {number} s; with gathers and scatters {number} s; "
                  rf"best link window {number} s on (\S+)\)", text))
    if len(stops) != len(prefix.split(",")):
        sys.exit(f"replay_bounds.sh: not every bound after a replayed prefix in flow_evaluator_bench's output:\n{text}")
    p = stops[-1]
    record.update({"prefixes": [[float(q[1]), float(q[6]), round(float(q[2]), 1)] for q in stops],
                   "bound_alone_s": record["bound_s"], "replayed_prefix_s": float(p[1]),
                   "prefix_replay_wall_s": round(float(p[2]), 1), "prefix_tasks_started": int(p[4]),
                   "prefix_tasks_finished": int(p[5]), "bound_s": float(p[6]), "prefix_critical_path_s": float(p[8]),
                   "prefix_path_s": float(p[9]), "prefix_link_window_s": float(p[10]), "prefix_link": p[11],
                   "simgrid_cfg": "network/optim:Full"})
record.update({"took_s": round(time.time() - float(started), 1), "build": f"{simplan} / {bench}"})
print(json.dumps(record))
EOF
  done
}
write_output "$out" bound_lines
