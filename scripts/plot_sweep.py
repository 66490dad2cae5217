#!/usr/bin/python3
"""Plot a simsweep CSV: predicted, closed-form and simulated iteration time against the first
varied key (as seed 003 Fig. 14 and 15 do), one line style per metric; a second varied key, if
any, gives one colour per value. Utilization goes on a second axis with --utilization.

Usage: scripts/plot_sweep.py sweep.csv -o fig.png [--title T] [--utilization] [--log-x]
"""
import argparse
import csv
import re
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402

METRICS = [("predicted_s", "planner prediction", "--", "o"),
           ("closed_form_s", "closed form", ":", "s"),
           ("simulated_s", "simulated (SimGrid)", "-", "x")]
FIXED_COLUMNS = {"status", "predicted_s", "closed_form_s", "simulated_s", "utilization", "error", "warnings"}
NUMBER = re.compile(r"^\s*([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(.*)$")


def split_value(text):
    """'30GB/s' -> (30.0, 'GB/s'); a value without a leading number -> (None, text)."""
    m = NUMBER.match(text)
    return (float(m.group(1)), m.group(2)) if m else (None, text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("-o", "--output", required=True, help="image file (.png, .pdf, .svg)")
    ap.add_argument("--title", default=None)
    ap.add_argument("--utilization", action="store_true", help="also plot utilization on a right axis")
    ap.add_argument("--log-x", action="store_true", help="logarithmic x axis (geometric sweeps)")
    args = ap.parse_args()

    try:
        with open(args.csv, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"plot_sweep.py: {args.csv}: {e.strerror}")
    if not rows:
        sys.exit(f"plot_sweep.py: {args.csv}: no rows")
    # <axis>_si beside <axis> (docs/sweeps.md) is the same axis in SI units, not another axis.
    keys = [k for k in rows[0].keys() if k not in FIXED_COLUMNS and not (k.endswith("_si") and k[:-3] in rows[0])]
    if not keys:
        sys.exit(f"plot_sweep.py: {args.csv}: no varied column (is this a simsweep CSV?)")
    x_key, series_key = keys[0], (keys[1] if len(keys) > 1 else None)
    ok = [r for r in rows if r["status"] in ("ok", "warning")]  # warning: it ran, with warnings
    failed = len(rows) - len(ok)
    if not ok:
        sys.exit(f"plot_sweep.py: {args.csv}: every point failed")

    si = f"{x_key}_si" if f"{x_key}_si" in rows[0] else None  # values in mixed units on one scale
    unit = "SI base unit" if si else split_value(ok[0][x_key])[1]
    groups = {}
    for r in ok:
        x, _ = split_value(r[si] if si else r[x_key])
        if x is None:
            sys.exit(f"plot_sweep.py: {args.csv}: value '{r[x_key]}' of {x_key} is not a number")
        groups.setdefault(r[series_key] if series_key else "", []).append((x, r))

    fig, ax = plt.subplots(figsize=(7, 4.5))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    ax2 = ax.twinx() if args.utilization else None
    for i, (series, points) in enumerate(groups.items()):
        points.sort(key=lambda p: p[0])
        xs = [p[0] for p in points]
        colour = colours[i % len(colours)]
        for column, label, style, marker in METRICS:
            name = f"{label}" + (f" ({series_key}={series})" if series_key else "")
            ax.plot(xs, [float(p[1][column]) * 1e3 for p in points], linestyle=style, marker=marker,
                    color=colour, label=name)
        if ax2 is not None:
            ax2.plot(xs, [float(p[1]["utilization"]) for p in points], linestyle="-.", color=colour, alpha=0.5,
                     label="utilization" + (f" ({series})" if series_key else ""))
    ax.set_xlabel(f"{x_key} [{unit}]" if unit else x_key)
    ax.set_ylabel("iteration time [ms]")
    if args.log_x:
        ax.set_xscale("log", base=2)
    # Ticks at the swept values, written as numbers (not 2^k).
    all_x = sorted({p[0] for points in groups.values() for p in points})
    if len(all_x) <= 12:
        ax.set_xticks(all_x)
        ax.set_xticklabels([f"{x:g}" for x in all_x])
    if ax2 is not None:
        ax2.set_ylabel("utilization")
        ax2.set_ylim(0, 1)
    title = args.title or f"sweep of {x_key}"
    if failed:
        title += f" ({failed} failed point{'s' if failed > 1 else ''} left out)"
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"plot_sweep.py: wrote {args.output}")


if __name__ == "__main__":
    main()
