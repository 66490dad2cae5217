#!/usr/bin/env python3
"""Seed 002 Fig. 5 / Table 2 on partsim: geomean throughput improvement over the greedy baseline on an
unseen test set of random DAGs, against the number of samples, for Random, SA, RL from scratch and,
with --checkpoint (mcm_rl_train's), RL zero-shot and fine-tuned; rewards from the analytical model.

Runs `mcm_test_set` (sim/planners/mcm/rl/test_set_main.cpp) once and writes OUT.md (mean curve at sample counts,
and Table 2's form: the samples each search needs to reach an improvement level, with the reduction
against RL from scratch), OUT.csv (strategy, sample, geomean) and OUT.png (with matplotlib). Every
graph's greedy placement and every search's final one are then replayed on SimGrid (`mcm_pipeline
--workload random_dag:... --placement ...`, --microbatches in flight): OUT.md tables the geomean
improvement over greedy by each evaluator, OUT_final.csv has one row per graph and placement.

Usage: scripts/mcm_test_set.py [--build build] [--config configs/mcm_ring36.yaml] [--checkpoint policy.pt]
                               [--graphs 16] [--samples 100] [--split compute|memory] [--start baseline|random]
                               [--ratio node|joint] [--stay-bias 0]
                               [--levels 1.6,1.7,1.8] [--microbatches 8]
                               [--out docs/reproductions/mcm_testset]
       scripts/mcm_test_set.py --replot [--out docs/reproductions/mcm_testset]  (OUT.png from OUT.csv)"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys

from mcm_search_curves import (add_rl_choice_arguments, improvement_table, replay, replot_curves,  # scripts/ is on sys.path
                               samples_to_reach, write_curves)

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
    ap.add_argument("--microbatches", type=int, default=8,
                    help="micro-batches in flight when the final placements are replayed (mcm_pipeline)")
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
    lines += final_placement_lines(a, report["graphs"], order)
    write_curves(a.out, "\n".join(lines) + "\n", {s: curves[s] for s in order}, YLABEL)


def final_placement_lines(a, graphs, order):
    """Replays each graph's greedy placement and every search's final one (mcm_pipeline), writes
    OUT_final.csv and returns OUT.md's lines: per search, the geometric mean over the graphs of its
    improvement over greedy by the analytical model and on the replay. Graphs without a greedy
    placement (its repair gave up) or with a search that found none are left out, and counted."""
    rows, kept = [], []
    for g in graphs:
        placements = g["placements"]
        if placements["mcm_greedy"] is None or any(placements[s] is None for s in order):
            continue
        kept.append(g)
        replayed = {s: replay(a, ["--workload", g["workload"], "--placement", ",".join(map(str, placements[s]))])
                    for s in ["mcm_greedy", *order]}
        base = replayed["mcm_greedy"]
        for s, r in replayed.items():
            rows.append({"graph": g["name"], "workload": g["workload"], "strategy": s,
                         "analytical_latency_s": r["analytical_latency_s"], "simulated_period_s": r["simulated_period_s"],
                         "analytical_improvement": base["analytical_latency_s"] / r["analytical_latency_s"],
                         "simulated_improvement": base["simulated_period_s"] / r["simulated_period_s"]})
    with open(a.out + "_final.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["graph", "workload", "strategy", "analytical_latency_s", "simulated_period_s",
                                          "analytical_improvement", "simulated_improvement"])
        w.writeheader()
        w.writerows(rows)
    if not kept:
        return ["", "- Final placements replayed on SimGrid: no graph has a greedy placement and one from every search."]

    def geomean(strategy, column):
        values = [r[column] for r in rows if r["strategy"] == strategy]
        return math.exp(sum(math.log(v) for v in values) / len(values))
    left_out = len(graphs) - len(kept)
    return ["", f"- Final placements replayed on SimGrid (`mcm_pipeline --workload random_dag:... --placement ...`, "
            f"{a.microbatches} micro-batches in flight): geometric mean over {len(kept)} graphs"
            + (f" ({left_out} left out: no greedy placement, or a search found none)" if left_out else "")
            + f" of the final placement's improvement over the graph's greedy placement by each evaluator "
            f"(`{os.path.basename(a.out)}_final.csv`):\n",
            *improvement_table({s: geomean(s, "analytical_improvement") for s in order},
                               {s: geomean(s, "simulated_improvement") for s in order})]


if __name__ == "__main__":
    main()
