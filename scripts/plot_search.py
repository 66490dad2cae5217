#!/usr/bin/env python3
"""The `search` strategy's log as a figure (issue 44): every candidate it priced against the wall
time, the best so far as a line, the seeds (every registered strategy's plan) marked by strategy,
and the finalists at the end with the mean of their resampled evaluations (the best line then steps
to the chosen one's mean: docs/model.md "Chaotic plans, and the resampling").

Reads the log simplan writes beside a search plan (PLAN.search.csv for -o PLAN.json; columns in
sim/planners/search/search_log.hpp). Candidates over memory or refused by the lowering are drawn
as crosses at the bottom of the axis.

Usage: scripts/plot_search.py LOG.csv [LOG.csv ...] -o search.png [--title T] [--x index|time]
       scripts/plot_search.py LOG.csv --dump-data   (the series as JSON)
Several logs (several pairs or seeds) are drawn side by side, one panel each."""
import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common  # noqa: E402

PROGRAM = "plot_search.py"
COLUMNS = ("index", "elapsed_s", "move", "origin", "schedule", "predicted_s", "closed_form_s", "usable", "accepted", "best_s")


def read_log(path):
    """The rows of one log, numbers as floats; exits with one line (code 2) on a file that is not one."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                plot_common.fail(PROGRAM, f"{path}: not a search log (missing columns: {', '.join(missing)})")
            rows = list(reader)
    except OSError as e:
        plot_common.fail(PROGRAM, f"{path}: {e.strerror}")
    if not rows:
        plot_common.fail(PROGRAM, f"{path}: the log has no candidates")
    out = []
    for line, r in enumerate(rows, start=2):
        try:
            out.append(dict(index=int(r["index"]), elapsed_s=float(r["elapsed_s"]), move=r["move"], origin=r["origin"],
                            schedule=r["schedule"], predicted_s=float(r["predicted_s"]), usable=r["usable"] == "1",
                            accepted=r["accepted"] == "1", best_s=float(r["best_s"])))
        except ValueError as e:
            plot_common.fail(PROGRAM, f"{path}:{line}: {e}")
    return out


def extract(paths):
    return [{"log": p, "rows": read_log(p)} for p in paths]


def plot(data, args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(data), figsize=(6.4 * len(data), 4.2), squeeze=False)
    key = "index" if args.x == "index" else "elapsed_s"
    for ax, log in zip(axes[0], data):
        rows = log["rows"]
        usable = [r for r in rows if r["usable"]]
        walk = [r for r in usable if r["move"] not in ("seed", "resample")]
        ax.scatter([r[key] for r in walk], [r["predicted_s"] * 1e3 for r in walk], s=6, color="0.65",
                   label="candidates of the walk")
        for origin in sorted({r["origin"] for r in usable if r["move"] == "seed"}):
            seeds = [r for r in usable if r["move"] == "seed" and r["origin"] == origin]
            ax.scatter([r[key] for r in seeds], [r["predicted_s"] * 1e3 for r in seeds], s=28, marker="D", label=f"seed: {origin}")
        finalists = [r for r in usable if r["move"] == "resample"]
        if finalists:
            ax.scatter([r[key] for r in finalists], [r["predicted_s"] * 1e3 for r in finalists], s=36, marker="*",
                       color="tab:purple", label="finalists: mean of their resampled evaluations")
        best = [r for r in rows if r["best_s"] > 0]
        ax.step([r[key] for r in best], [r["best_s"] * 1e3 for r in best], where="post", color="black", label="best so far")
        bad = [r for r in rows if not r["usable"]]
        if bad and usable:
            low = min(r["predicted_s"] for r in usable) * 1e3
            ax.scatter([r[key] for r in bad], [low] * len(bad), marker="x", color="tab:red", s=14,
                       label="over memory or refused")
        ax.set_xlabel("candidate" if args.x == "index" else "wall time [s]")
        ax.set_ylabel("predicted iteration [ms] (flow evaluator)")
        ax.set_yscale("log")
        ax.set_title(plot_common.wrapped(args.title or os.path.basename(log["log"]), 60), fontsize=9)
        ax.legend(fontsize=7, loc="upper right")
        ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    plot_common.save(fig, args.output, PROGRAM)


def main():
    ap = argparse.ArgumentParser(prog=PROGRAM, description=plot_common.summary(__doc__))
    ap.add_argument("logs", nargs="+", help="search logs (PLAN.search.csv)")
    ap.add_argument("--x", choices=("index", "time"), default="index", help="horizontal axis: candidate number or wall time")
    plot_common.add_output_options(ap, "the logs' rows")
    args = ap.parse_args()
    plot_common.run(args, PROGRAM, lambda: extract(args.logs), plot)


if __name__ == "__main__":
    main()
