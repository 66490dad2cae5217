#!/usr/bin/env bash
# The main job, as the README runs it: installs what is missing, builds, then on
# configs/torus_8pf.yaml (seed 003's 8-PFLOP system):
#   1. replays the 2-D all-reduce of seed 003 §II-D (100 MB per chip) on SimGrid at chip and core
#      granularity and compares it with its closed form;
#   2. plans vgg16 at batch 512 with the DeepSpatialMatrix strategy and prints the per-layer
#      prediction (plan.json in build/demo/).
# The per-layer replay of a plan against its prediction (simrun --plan) is issue 6; until it lands
# this demo shows the two halves it will join.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh release >/dev/null
bin=build/bin
out=build/demo
mkdir -p "$out"

for g in chip core; do
  echo "== 2-D all-reduce, 100 MB per chip, configs/torus_8pf.yaml, $g granularity (seed 003 §II-D) =="
  "$bin/simrun" --config configs/torus_8pf.yaml --collective all_reduce --axis all --bytes 100MB \
    --granularity "$g" --json "$out/allreduce_$g.json"
  echo
done

echo "== vgg16, batch 512, DeepSpatialMatrix plan on configs/torus_8pf.yaml (seed 003 §IV-V) =="
"$bin/simplan" --config configs/torus_8pf.yaml --workload vgg16 --batch 512 --strategy dsm -o "$out/plan.json"
/usr/bin/python3 - "$out/plan.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
print(f"{'layer':<10} {'pass':<4} {'chip split':<15} {'dysm':>4} {'reuse':>5} {'predicted [ms]':>15}")
for layer in plan["layers"]:
    for p in layer.get("passes", []):
        print(f"{layer['name']:<10} {p['pass']:<4} {p['chip_split']:<15} {p['dysm_factor']:>4} "
              f"{'yes' if p['memory_reuse'] else 'no':>5} {p['predicted']['total_s'] * 1e3:>15.4f}")
print(f"iteration: predicted {plan['predicted']['iteration_s'] * 1e3:.3f} ms (plan: {sys.argv[1]})")
PY
