#!/usr/bin/python3
"""Plot one or more simsweep CSVs: predicted, closed-form and simulated iteration time against a
varied axis (as seed 003 Fig. 14 and 15 do), every CSV and every value of a second varied axis its
own series, every line in the legend.

Usage: scripts/plot_sweep.py CSV[:LABEL] [CSV[:LABEL] ...] -o fig.png|fig.svg|fig.pdf
           [--title T] [--x AXIS] [--metrics predicted,closed_form,simulated] [--utilization]
           [--log-x] [--y-zoom] [--dump-data]
e.g.   scripts/plot_sweep.py replanned.csv:re-planned fixed.csv:"fixed plan" -o bw.svg

- x: the `<axis>_si` column (SI units) when the CSV has it, else the written value read with its
  unit (old CSVs; 512KiB, 1MiB, 2MiB become one unit), shown in a readable unit and labelled with
  what the key means (a table in plot_common.py), e.g. "Y-link bandwidth per direction [GB/s]".
- Points whose status is `failed` or `over_memory` (the plan does not fit a device's memory: it could
  not run, even where it was replayed anyway) are left out, with a note on stderr and in the title;
  `warning` points are plotted.
- Lines: colour and marker per series and metric, line style per metric (prediction dashed,
  closed form dotted, simulated solid and drawn on top), y from zero (--y-zoom to fit the data).
- --dump-data prints what would be plotted as JSON on stdout (tests and other tools use it).
"""
import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common  # noqa: E402

PROGRAM = "plot_sweep.py"
# column, legend text, line style, marker, marker face ("none" = hollow), z-order
METRICS = {"predicted": ("predicted_s", "planner prediction", "--", "o", "none", 2),
           "closed_form": ("closed_form_s", "closed form", ":", "s", "none", 2),
           "simulated": ("simulated_s", "simulated (SimGrid)", "-", "x", None, 3)}
RESULT_COLUMNS = {"status", "predicted_s", "closed_form_s", "simulated_s", "utilization", "error", "warnings"}


def split_source(arg):
    """'a.csv:fixed plan' -> ('a.csv', 'fixed plan'); 'a.csv' -> ('a.csv', None). The label follows
    the last ':' that ends an existing file name (so a path may itself contain ':')."""
    if os.path.isfile(arg):
        return arg, None
    for i in range(len(arg) - 1, 0, -1):
        if arg[i] == ":" and os.path.isfile(arg[:i]):
            return arg[:i], arg[i + 1:]
    plot_common.fail(PROGRAM, f"{arg.split(':')[0]}: no such file")


def axes_of(header):
    """The varied axes of a simsweep header: every column before `status` that is not an `_si` twin."""
    if "status" not in header:
        return None
    before = header[:header.index("status")]
    return [c for c in before if not (c.endswith("_si") and c[:-3] in before)]


def x_value(row, axis):
    """(SI value, dimension) of a row's axis: the `_si` column when present and filled, else the
    written value read with its unit; (None, None) for a name (a workload, a strategy)."""
    si = row.get(axis + "_si", "")
    _, dimension = plot_common.parse_quantity(row[axis])
    if si not in ("", None):
        return float(si), dimension or "count"
    return plot_common.parse_quantity(row[axis])


def load(path, label, x_axis):
    """One CSV as {label, axis, series: {group: [(x_si, row)]}, skipped: [text], dimension}."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            header = reader.fieldnames or []
            rows = list(reader)
    except OSError as e:
        plot_common.fail(PROGRAM, f"{path}: {e.strerror}")
    axes = axes_of(header)
    if not axes:
        plot_common.fail(PROGRAM, f"{path}: no varied column before 'status' (is this a simsweep CSV?)")
    if x_axis is not None and x_axis not in axes:
        plot_common.fail(PROGRAM, f"{path}: --x {x_axis}: not a varied axis (axes: {', '.join(axes)})")
    x = x_axis or axes[0]
    group_axis = next((a for a in axes if a != x), None)
    series, skipped, dimension, categorical = {}, [], None, False
    for n, row in enumerate(rows, start=2):  # line numbers: the header is line 1
        point = ", ".join(f"{a}={row[a]}" for a in axes)
        if row["status"] in ("failed", "over_memory"):
            skipped.append(f"line {n} ({point}{', over memory' if row['status'] == 'over_memory' else ''})")
            continue
        value, dim = x_value(row, x)
        categorical = categorical or value is None  # names (workload, strategy): one tick each
        dimension = dimension or dim
        group = row[group_axis] if group_axis else ""
        series.setdefault(group, []).append((value, row))
    if categorical:
        series = {g: [(row[x], row) for _, row in points] for g, points in series.items()}  # in file order
    else:
        for points in series.values():
            points.sort(key=lambda p: p[0])  # the curve never runs backwards
    return {"label": label, "path": path, "x": x, "group_axis": group_axis, "series": series, "skipped": skipped,
            "dimension": None if categorical else dimension, "categorical": categorical}


def extract(sources, x_axis, metrics, utilization):
    """Everything the figure shows, in display units: the data --dump-data prints."""
    loaded = [load(path, label, x_axis) for path, label in sources]
    x_key = loaded[0]["x"]
    for data in loaded[1:]:
        if data["x"] != x_key:
            plot_common.fail(PROGRAM, f"{data['path']}: varies {data['x']} first, {loaded[0]['path']} {x_key} "
                                      f"(give --x)")
    all_x = [x for data in loaded for points in data["series"].values() for x, _ in points]
    if not all_x:
        plot_common.fail(PROGRAM, "every point failed: nothing to plot")
    categories = None
    if any(data["categorical"] for data in loaded):
        # Names on x: one tick per name in the order they first appear; x is the tick's index.
        categories = list(dict.fromkeys(str(x) for x in all_x))
        for data in loaded:
            data["series"] = {g: [(categories.index(str(x)), r) for x, r in points] for g, points in data["series"].items()}
        divisor, unit = 1.0, ""
    else:
        divisor, unit = plot_common.display_unit(all_x, loaded[0]["dimension"])
    lines, skipped = [], []
    for data in loaded:
        skipped += [f"{data['path']}: {s}" for s in data["skipped"]]
        for group, points in data["series"].items():
            # The CSV's label when there are several CSVs (its file name if none was given) or one was given.
            label = data["label"] or os.path.splitext(os.path.basename(data["path"]))[0]
            name = label if len(loaded) > 1 or data["label"] else ""
            if group:
                name = (name + ", " if name else "") + f"{plot_common.axis_meaning(data['group_axis'])} = {group}"
            xs = [x / divisor for x, _ in points]
            for metric in metrics:
                column = METRICS[metric][0]
                lines.append({"series": name, "metric": metric, "x": xs,
                              "y_ms": [float(r[column]) * 1e3 for _, r in points]})
            if utilization:
                lines.append({"series": name, "metric": "utilization", "x": xs,
                              "y": [float(r["utilization"]) for _, r in points]})
    return {"x_key": x_key, "x_unit": unit, "x_label": plot_common.axis_label(x_key, unit), "x_ticks": categories,
            "lines": lines, "skipped": skipped}


def plot(data, args):
    import matplotlib
    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    ax2 = ax.twinx() if args.utilization else None
    colours = plt.get_cmap("tab10").colors
    markers = "ovs^D<>pPX*h"
    names = list(dict.fromkeys(line["series"] for line in data["lines"]))
    for k, line in enumerate(data["lines"]):
        series_index = names.index(line["series"])
        prefix = f"{line['series']}: " if line["series"] else ""
        if line["metric"] == "utilization":
            ax2.plot(line["x"], line["y"], linestyle="-.", marker=markers[(k + 3) % len(markers)], markersize=4,
                     color=colours[k % len(colours)], alpha=0.8, label=f"{prefix}utilization (right axis)")
            continue
        _, text, style, _, face, z = METRICS[line["metric"]]
        colour = colours[k % len(colours)]
        ax.plot(line["x"], line["y_ms"], linestyle=style, marker=markers[(series_index * 3 + k) % len(markers)],
                markersize=8 if face == "none" else 6, markerfacecolor=face or colour, color=colour, zorder=z,
                linewidth=1.8 if line["metric"] == "simulated" else 1.4, label=f"{prefix}{text}")
    ax.set_xlabel(data["x_label"])
    ax.set_ylabel("iteration time [ms]")
    if data["x_ticks"] is not None:  # names: one tick each
        ax.set_xticks(range(len(data["x_ticks"])))
        ax.set_xticklabels(data["x_ticks"], rotation=30 if len(data["x_ticks"]) > 4 else 0)
    elif args.log_x:
        ax.set_xscale("log", base=2)
    xs = sorted({x for line in data["lines"] for x in line["x"]})
    if data["x_ticks"] is None and len(xs) <= 12:  # ticks at the swept values, as numbers (not 2^k)
        ax.set_xticks(xs)
        ax.set_xticklabels([f"{x:g}" for x in xs])
        ax.minorticks_off()
    if not args.y_zoom:  # from zero, with room above the highest point
        highest = max((y for line in data["lines"] for y in line.get("y_ms", [])), default=0)
        ax.set_ylim(0, highest * 1.08 if highest > 0 else 1)
    if ax2 is not None:
        ax2.set_ylabel("utilization (useful FLOP / peak)")
        ax2.set_ylim(0, 1)
    title = args.title or f"sweep of {plot_common.axis_meaning(data['x_key'])}"
    if data["skipped"]:
        title += f" ({len(data['skipped'])} failed or over-memory point{'s' if len(data['skipped']) > 1 else ''} left out)"
    ax.set_title(plot_common.wrapped(title, 70))
    ax.grid(True, alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if ax2 is not None:
        more = ax2.get_legend_handles_labels()
        handles, labels = handles + more[0], labels + more[1]
    # Below the axes, so no line hides under it; save() keeps it inside the image.
    ax.legend(handles, labels, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16),
              ncol=2 if len(labels) > 3 else 1, frameon=False)
    plot_common.save(fig, args.output, PROGRAM)


def main():
    ap = argparse.ArgumentParser(prog=PROGRAM, description=plot_common.summary(__doc__),
                                 epilog="Details: the module docstring (python3 -c 'import plot_sweep; help(plot_sweep)')")
    ap.add_argument("csv", nargs="+", metavar="CSV[:LABEL]", help="simsweep CSV, optionally with a legend label")
    ap.add_argument("--x", default=None, metavar="AXIS", help="the varied axis on x (default: the first one)")
    ap.add_argument("--metrics", default="predicted,closed_form,simulated",
                    help="comma-separated, of predicted, closed_form, simulated (default: all three)")
    ap.add_argument("--utilization", action="store_true", help="also plot utilization on a right axis")
    ap.add_argument("--log-x", action="store_true", help="logarithmic x axis (geometric sweeps)")
    ap.add_argument("--y-zoom", action="store_true", help="fit the y axis to the data (default: from zero, so "
                                                          "a 1 %% difference looks like 1 %%)")
    plot_common.add_output_options(ap, "the plotted data")
    args = ap.parse_args()
    metrics = [m for m in args.metrics.split(",") if m]
    for m in metrics:
        if m not in METRICS:
            plot_common.fail(PROGRAM, f"--metrics: unknown '{m}' (allowed: {', '.join(METRICS)})")

    def extract_and_note():
        data = extract([split_source(a) for a in args.csv], args.x, metrics, args.utilization)
        for note in data["skipped"]:
            print(f"{PROGRAM}: note: failed or over-memory point left out: {note}", file=sys.stderr)
        return data

    plot_common.run(args, PROGRAM, extract_and_note, plot)


if __name__ == "__main__":
    main()
