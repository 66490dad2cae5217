#!/usr/bin/env python3
"""Seed 002 Fig. 5 / Table 2 on partsim: geomean throughput improvement over the greedy baseline on an
unseen test set of random DAGs, against the number of samples, for Random, SA, RL from scratch and,
with --checkpoint (mcm_rl_train's), RL zero-shot and fine-tuned; rewards from the analytical model.

Runs `mcm_test_set` (sim/mcm/rl/test_set_main.cpp) once and writes OUT.md (mean curve at sample counts,
and Table 2's form: the samples each search needs to reach an improvement level, with the reduction
against RL from scratch), OUT.csv (strategy, sample, geomean) and OUT.png (with matplotlib).

Usage: scripts/mcm_test_set.py [--build build] [--config configs/mcm_ring36.yaml] [--checkpoint policy.pt]
                               [--graphs 16] [--samples 100] [--split compute|memory] [--start baseline|random]
                               [--ratio node|joint] [--stay-bias 0]
                               [--levels 1.6,1.7,1.8]
                               [--out docs/reproductions/mcm_testset]
       scripts/mcm_test_set.py --replot [--out docs/reproductions/mcm_testset]  (OUT.png from OUT.csv)"""
import argparse
import csv
import json
import os
import subprocess
import sys

from mcm_search_curves import add_rl_choice_arguments, replot_curves, samples_to_reach, write_curves  # scripts/ is on sys.path

YLABEL = "geomean improvement over greedy"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--config", default="configs/mcm_ring36.yaml")
    ap.add_argument("--checkpoint")
    ap.add_argument("--graphs", type=int, default=16)
    ap.add_argument("--samples", type=int, default=100)
    ap.add_argument("--split", choices=("compute", "memory"), default="compute")
    add_rl_choice_arguments(ap, "mcm_test_set's flag of that name")
    ap.add_argument("--levels", default="1.6,1.7,1.8", help="improvement levels (default: the paper's Table 2)")
    ap.add_argument("--out", default="docs/reproductions/mcm_testset")
    ap.add_argument("--replot", action="store_true", help="only redraw OUT.png from OUT.csv (no searches)")
    a = ap.parse_args()
    if a.replot:
        return replot_curves(a.out, YLABEL)
    levels = [float(x) for x in a.levels.split(",")]
    cmd = [f"{a.build}/bin/mcm_test_set", "--config", a.config, "--graphs", str(a.graphs), "--samples", str(a.samples),
           "--split", a.split, "--start", a.start, "--ratio", a.ratio, "--stay-bias", f"{a.stay_bias:g}"]
    if a.checkpoint:
        cmd += ["--checkpoint", a.checkpoint]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: {r.stderr.strip()}")
    report = json.loads(r.stdout)
    curves = report["geomean_improvement_per_sample"]
    order = [s for s in ("mcm_random", "mcm_sa", "mcm_rl", "mcm_rl zero-shot", "mcm_rl fine-tuned") if s in curves]
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out + ".csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["strategy", "sample", "geomean_improvement_over_greedy"])
        for s in order:
            for n, v in enumerate(curves[s], 1):
                w.writerow([s, n, v])
    nodes = [g["nodes"] for g in report["graphs"]]
    lines = [f"- {len(nodes)} test graphs (random DAGs of {min(nodes)}-{max(nodes)} nodes, seeds unseen by pre-training), "
             f"greedy baseline split={a.split}, {a.samples} samples per search and graph, {report['seconds']:.0f} s; "
             "geometric mean over the graphs of the running best / greedy (0 until every graph has a valid placement):\n",
             "| samples | " + " | ".join(order) + " |", "| --- |" + " --- |" * len(order)]
    for n in sorted({1, 10, 20, 50, 100, a.samples} & set(range(1, a.samples + 1))):
        lines.append(f"| {n} | " + " | ".join(f"{curves[s][n - 1]:.3f}x" for s in order) + " |")

    def reach(s, level):
        return samples_to_reach(curves[s], level)

    lines += ["", "- Samples needed to reach a geomean improvement level, and the reduction against RL from scratch "
              "(Table 2's form; N.A. = not within the budget):\n",
              "| strategy | " + " | ".join(f">= {l:.2f}x" for l in levels) + " |", "| --- |" + " --- |" * len(levels)]
    for s in order:
        cells = []
        for l in levels:
            hit, scratch = reach(s, l), reach("mcm_rl", l)
            if hit is None:
                cells.append("N.A.")
            elif s.startswith("mcm_rl ") and scratch is not None:
                cells.append(f"{hit} ({scratch / hit:.2f}x)")
            else:
                cells.append(str(hit))
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    write_curves(a.out, "\n".join(lines) + "\n", {s: curves[s] for s in order}, YLABEL)

if __name__ == "__main__":
    main()
