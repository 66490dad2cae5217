#!/usr/bin/env python3
"""Seed 002 Fig. 7 on partsim: analytical vs simulated runtime of random valid placements.

For seeds 1..N: `simplan --strategy mcm_random --option samples=1 --seed k` draws one valid placement
(uniform distribution, SAMPLE-mode solver, H(G, f) checked); `mcm_pipeline` gives its analytical
latency (max per-chip latency, sim/mcm/cost_model.hpp) and the SimGrid replay's period with M
micro-batches in flight (sim/mcm/pipeline.hpp). Both are normalised to their minimum, as in the
paper, plotted (PNG) and correlated (Pearson R; the paper: 0.91 against hardware). Placements whose
draw failed H count as invalid (the paper: 13.5 % invalid on hardware).

Usage: scripts/mcm_fig7.py [--samples 200 | --valid 2000] [--jobs 2] [--workload bert_base_ops]
                           [--microbatches 8] [--build build] [--out docs/reproductions/mcm_fig7]
Writes OUT.csv, OUT.png and OUT.md (a summary to paste into docs/reproductions/mcm.md);
`--replot` only redraws OUT.png from OUT.csv.
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


def replot(out, workload):
    """Redraws OUT.png from OUT.csv (--replot): a new figure without drawing the placements again."""
    with open(out + ".csv", newline="") as f:
        rows = list(csv.DictReader(f))
    if len(rows) < 3:
        sys.exit(f"{out}.csv: fewer than 3 placements")
    pn = [float(row["analytical_norm"]) for row in rows]
    sn = [float(row["simulated_norm"]) for row in rows]
    plot(out, workload, pn, sn, pearson(pn, sn))


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
    ap.add_argument("--replot", action="store_true", help="only redraw OUT.png from OUT.csv (no draws)")
    a = ap.parse_args()
    if a.replot:
        return replot(a.out, a.workload)
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
    pn = [p / min(pred) for p in pred]
    sn = [s / min(sim) for s in sim]
    r = pearson(pn, sn)
    rho = pearson(ranks(pred), ranks(sim))
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out + ".csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["seed", "chips_used", "analytical_latency_s", "simulated_period_s", "analytical_norm", "simulated_norm",
                    "bottleneck_chip", "bottleneck_compute_s", "bottleneck_receive_s", "replay_wall_s"])
        for row, p, s in zip(rows, pn, sn):
            w.writerow([row["seed"], row["chips_used"], row["analytical_latency_s"], row["simulated_period_s"], p, s,
                        row["analytical_bottleneck_chip"], row["analytical_bottleneck_compute_s"],
                        row["analytical_bottleneck_receive_s"], row["replay_wall_s"]])
    plot(a.out, a.workload, pn, sn, r)
    # Where the analytical model ranks wrongly: its best five, with their simulated ranks, and the five
    # whose rank moves most between the evaluators, with what the model charges on their bottleneck chip.
    sim_rank, pred_rank = ranks(sim), ranks(pred)
    best = sorted(range(len(rows)), key=lambda i: pred[i])[:5]
    moved = [i for i in sorted(range(len(rows)), key=lambda i: (-abs(pred_rank[i] - sim_rank[i]), rows[i]["seed"]))
             if pred_rank[i] != sim_rank[i]][:5]

    def receive_share(i):
        c, rcv = rows[i]["analytical_bottleneck_compute_s"], rows[i]["analytical_bottleneck_receive_s"]
        return rcv / (c + rcv) if c + rcv > 0 else 0.0
    share_all = sum(receive_share(i) for i in range(len(rows))) / len(rows)
    walls = sorted(row["replay_wall_s"] for row in rows)
    with open(a.out + ".md", "w") as f:
        f.write(f"- {a.workload}, {draws} draws of mcm_random (samples=1, seeds 1..{draws}), "
                f"{a.microbatches} micro-batches in the replay: {len(rows)} valid, {invalid} failed H(G, f) "
                f"({100.0 * invalid / draws:.1f} %), {gave_up} where the solver gave up.\n")
        f.write(f"- Pearson R of the normalised runtimes: **{r:.3f}** (paper, against hardware: 0.91); "
                f"Spearman rank correlation {rho:.3f}.\n")
        f.write("- The analytical model's five best placements and their rank in the replay (0 = best):\n\n")
        f.write("| seed | chips | analytical (norm) | simulated (norm) | simulated rank |\n| --- | --- | --- | --- | --- |\n")
        for i in best:
            f.write(f"| {rows[i]['seed']} | {rows[i]['chips_used']} | {pn[i]:.3f} | {sn[i]:.3f} | {sim_rank[i]} |\n")
        if not moved:
            f.write("\n- The two evaluators rank every placement alike.\n")
        else:
            f.write("\n- The five placements whose rank moves most between the evaluators (0 = best), with the share of "
                    "receiving in what the analytical model charges their bottleneck chip (compute + receive; the replay "
                    f"overlaps receiving with the previous micro-batch's compute; mean share over all placements "
                    f"{100 * share_all:.1f} %):\n\n")
            f.write("| seed | chips | analytical rank | simulated rank | simulated / analytical (norm) | bottleneck receive share |\n"
                    "| --- | --- | --- | --- | --- | --- |\n")
            for i in moved:
                f.write(f"| {rows[i]['seed']} | {rows[i]['chips_used']} | {pred_rank[i]} | {sim_rank[i]} | "
                        f"{sn[i] / pn[i]:.3f} | {100 * receive_share(i):.1f} % |\n")
        f.write(f"\n- SimGrid replay of one placement ({a.microbatches} micro-batches, `mcm_pipeline`'s replay_wall_s): "
                f"median {1e3 * walls[len(walls) // 2]:.1f} ms, max {1e3 * walls[-1]:.1f} ms wall.\n")
    print(open(a.out + ".md").read())


if __name__ == "__main__":
    main()
