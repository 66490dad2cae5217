#!/usr/bin/env python3
"""Seed 002 Fig. 7 on partsim: analytical vs simulated runtime of random valid placements.

For seeds 1..N: `simplan --strategy mcm_random --option samples=1 --seed k` draws one valid placement
(uniform distribution, SAMPLE-mode solver, H(G, f) checked); `mcm_pipeline` gives its analytical
latency (max per-chip latency, sim/planners/mcm/cost_model.hpp) and the SimGrid replay's period with M
micro-batches in flight (sim/planners/mcm/pipeline.hpp). Both are normalised to their minimum, as in the
paper, plotted (PNG) and correlated (Pearson R; the paper: 0.91 against hardware). Placements whose
draw failed H count as invalid (the paper: 13.5 % invalid on hardware).

Usage: scripts/mcm_fig7.py [--samples 200 | --valid 2000] [--jobs 2] [--workload bert_base_ops]
                           [--microbatches 8] [--build build] [--out docs/reproductions/mcm_fig7]
Writes OUT.csv, OUT.png and OUT.md (a summary to paste into docs/reproductions/mcm.md);
`--replot` only redraws OUT.png and rewrites OUT.md's analysis from OUT.csv.
This is a reproduction script, not a test: 2000 samples as in the paper take long on 2 cores."""
import argparse
import concurrent.futures
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crosscheck_report import pearson  # noqa: E402  (one Pearson for every script)


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0] * len(values)
    for rank, i in enumerate(order):
        r[i] = rank
    return r


def draw(a, tmp, seed):
    """One draw: the replayed placement's row, or "invalid" (H(G, f) failed) or "gave_up" (solver)."""
    plan = os.path.join(tmp, f"plan_{seed}.json")
    made = subprocess.run([f"{a.build}/bin/simplan", "--config", a.config, "--workload", a.workload, "--batch", "1",
                           "--mode", "inference", "--strategy", "mcm_random", "--seed", str(seed), "--option",
                           "samples=1", "-o", plan], capture_output=True, text=True)
    if made.returncode != 0:
        if "H(G, f)" in made.stderr:
            return "invalid"
        if "backtracks" in made.stderr:
            return "gave_up"
        sys.exit(f"simplan failed for seed {seed}: {made.stderr.strip()}")
    run = subprocess.run([f"{a.build}/bin/mcm_pipeline", "--config", a.config, "--plan", plan, "--microbatches",
                          str(a.microbatches)], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"mcm_pipeline failed for seed {seed}: {run.stderr.strip()}")
    os.remove(plan)
    row = json.loads(run.stdout)
    row["seed"] = seed
    print(f"seed {seed}: analytical {row['analytical_latency_s']:.4g} s, simulated period "
          f"{row['simulated_period_s']:.4g} s, {row['chips_used']} chips, replay {row['replay_wall_s']:.2f} s",
          file=sys.stderr)
    return row


def plot(out, workload, pn, sn, r):
    """OUT.png: predicted against simulated runtime, both normalised (the paper's Fig. 7), with the
    diagonal; a warning on stderr without python3-matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"{sys.executable}: no matplotlib, {out}.png not written", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(5, 4))
    ax.scatter(sn, pn, s=8)
    lim = max(max(pn), max(sn))
    ax.plot([1, lim], [1, lim], color="grey", linewidth=0.8)
    ax.set_xlabel("simulated runtime (SimGrid, pipelined), normalised")
    ax.set_ylabel("predicted runtime (analytical), normalised")
    ax.set_title(f"{workload} on mcm_ring36\n{len(pn)} valid placements, Pearson R = {r:.3f}", fontsize=10)
    fig.tight_layout()
    fig.savefig(out + ".png", dpi=120)


CSV_COLUMNS = ["seed", "chips_used", "analytical_latency_s", "simulated_period_s", "analytical_norm", "simulated_norm",
               "bottleneck_chip", "bottleneck_compute_s", "bottleneck_receive_s", "replay_wall_s"]


def read_rows(out):
    """OUT.csv's rows, numbers as numbers."""
    with open(out + ".csv", newline="") as f:
        rows = [{k: (int(v) if k in ("seed", "chips_used", "bottleneck_chip") else float(v)) for k, v in row.items()}
                for row in csv.DictReader(f)]
    if len(rows) < 3:
        sys.exit(f"{out}.csv: fewer than 3 placements")
    return rows


def analysis_lines(rows, microbatches):
    """OUT.md's analysis of the placements (OUT.csv's rows): the correlation, the analytical model's five
    best with their simulated ranks, why the two evaluators part (the ratio of their normalised runtimes
    against the share of receiving in what the model charges the bottleneck chip: the model adds
    receiving to compute, the replay overlaps it with the previous micro-batch's compute), the five
    placements whose rank moves most with the analytical gap their move spans, and the replay's wall time."""
    pn = [r["analytical_norm"] for r in rows]
    sn = [r["simulated_norm"] for r in rows]
    pred_rank, sim_rank = ranks(pn), ranks(sn)
    share = [r["bottleneck_receive_s"] / (r["bottleneck_compute_s"] + r["bottleneck_receive_s"])
             if r["bottleneck_compute_s"] + r["bottleneck_receive_s"] > 0 else 0.0 for r in rows]
    ratio = [s / p for p, s in zip(pn, sn)]
    by_pred = sorted(pn)
    lines = [f"- Pearson R of the normalised runtimes: **{pearson(pn, sn):.3f}** (paper, against hardware: 0.91); "
             f"Spearman rank correlation {pearson(pred_rank, sim_rank):.3f}.",
             "- The analytical model's five best placements and their rank in the replay (0 = best):", "",
             "| seed | chips | analytical (norm) | simulated (norm) | simulated rank |", "| --- | --- | --- | --- | --- |"]
    for i in sorted(range(len(rows)), key=lambda i: pn[i])[:5]:
        lines.append(f"| {rows[i]['seed']} | {rows[i]['chips_used']} | {pn[i]:.3f} | {sn[i]:.3f} | {sim_rank[i]} |")
    lines += ["", f"- Why they part: simulated / analytical (normalised) spans {min(ratio):.3f}-{max(ratio):.3f}, and "
              f"it falls as the share of receiving in what the model charges the bottleneck chip rises (mean "
              f"{100 * sum(share) / len(share):.1f} %, at most {100 * max(share):.1f} %; Pearson r "
              f"{pearson(share, ratio):.3f}): the model adds receiving to compute, the replay overlaps it with the "
              "previous micro-batch's compute."]
    moved = [i for i in sorted(range(len(rows)), key=lambda i: (-abs(pred_rank[i] - sim_rank[i]), rows[i]["seed"]))
             if pred_rank[i] != sim_rank[i]][:5]
    if not moved:
        lines.append("- The two evaluators rank every placement alike.")
    else:
        lines += ["- The five placements whose rank moves most between the evaluators (0 = best), with the gap in "
                  "analytical runtime between the two ranks (near ties reorder on small differences):", "",
                  "| seed | chips | analytical rank | simulated rank | analytical gap | bottleneck receive share |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for i in moved:
            gap = abs(by_pred[sim_rank[i]] - by_pred[pred_rank[i]]) / by_pred[min(pred_rank[i], sim_rank[i])]
            lines.append(f"| {rows[i]['seed']} | {rows[i]['chips_used']} | {pred_rank[i]} | {sim_rank[i]} | "
                         f"{100 * gap:.2f} % | {100 * share[i]:.1f} % |")
    walls = sorted(r["replay_wall_s"] for r in rows)
    lines += ["", f"- SimGrid replay of one placement ({microbatches} micro-batches, `mcm_pipeline`'s replay_wall_s): "
              f"median {1e3 * walls[len(walls) // 2]:.1f} ms, max {1e3 * walls[-1]:.1f} ms wall."]
    return lines


def summarize(a, counts, rows):
    """Writes OUT.png and OUT.md (`counts`, the draws' line, then analysis_lines) and prints OUT.md."""
    pn = [r["analytical_norm"] for r in rows]
    sn = [r["simulated_norm"] for r in rows]
    plot(a.out, a.workload, pn, sn, pearson(pn, sn))
    text = counts + "\n" + "\n".join(analysis_lines(rows, a.microbatches)) + "\n"
    with open(a.out + ".md", "w") as f:
        f.write(text)
    print(text)


def replot(a):
    """--replot: OUT.png and OUT.md's analysis again from OUT.csv, without drawing the placements again
    (OUT.md's first line, the draws' counts, is kept)."""
    with open(a.out + ".md") as f:
        counts = f.readline().rstrip("\n")
    summarize(a, counts, read_rows(a.out))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--workload", default="bert_base_ops")
    ap.add_argument("--microbatches", type=int, default=8)
    ap.add_argument("--config", default="configs/mcm_ring36.yaml")
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="docs/reproductions/mcm_fig7")
    ap.add_argument("--valid", type=int,
                    help="draw seeds until this many placements are valid (the paper's Fig. 7: 2000); "
                         "overrides --samples")
    ap.add_argument("--jobs", type=int, default=1, help="draws run at once (default 1)")
    ap.add_argument("--replot", action="store_true",
                    help="only redraw OUT.png and rewrite OUT.md's analysis from OUT.csv (no draws)")
    a = ap.parse_args()
    if a.replot:
        return replot(a)
    if a.samples < 1 or a.jobs < 1 or (a.valid is not None and a.valid < 1):
        sys.exit("--samples, --valid and --jobs: at least 1")
    rows, invalid, gave_up, draws = [], 0, 0, 0
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        # With --valid, seeds are drawn in batches until that many placements are valid; the first
        # that many by seed are kept, so the result does not depend on --jobs.
        while (draws < a.samples) if a.valid is None else (len(rows) < a.valid):
            batch = range(draws + 1, draws + 1 + (a.samples - draws if a.valid is None else 8 * a.jobs))
            for seed, outcome in zip(batch, pool.map(lambda k: draw(a, tmp, k), batch)):
                draws = seed
                if outcome == "invalid":
                    invalid += 1
                elif outcome == "gave_up":
                    gave_up += 1
                else:
                    rows.append(outcome)
                    if a.valid is not None and len(rows) == a.valid:
                        break  # the batch's later seeds are dropped
    if len(rows) < 3:
        sys.exit("fewer than 3 valid placements")
    pred = [r["analytical_latency_s"] for r in rows]
    sim = [r["simulated_period_s"] for r in rows]
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
        w.writeheader()
        for row in rows:
            w.writerow({"seed": row["seed"], "chips_used": row["chips_used"],
                        "analytical_latency_s": row["analytical_latency_s"], "simulated_period_s": row["simulated_period_s"],
                        "analytical_norm": row["analytical_latency_s"] / min(pred),
                        "simulated_norm": row["simulated_period_s"] / min(sim),
                        "bottleneck_chip": row["analytical_bottleneck_chip"],
                        "bottleneck_compute_s": row["analytical_bottleneck_compute_s"],
                        "bottleneck_receive_s": row["analytical_bottleneck_receive_s"], "replay_wall_s": row["replay_wall_s"]})
    counts = (f"- {a.workload}, {draws} draws of mcm_random (samples=1, seeds 1..{draws}), "
              f"{a.microbatches} micro-batches in the replay: {len(rows)} valid, {invalid} failed H(G, f) "
              f"({100.0 * invalid / draws:.1f} %), {gave_up} where the solver gave up.")
    summarize(a, counts, read_rows(a.out))


if __name__ == "__main__":
    main()
