#!/usr/bin/python3
"""Plot one or more simsweep CSVs: predicted, closed-form and simulated iteration time against a
varied axis (as seed 003 Fig. 14 and 15 do). Every CSV and every combination of the other varied
columns (e.g. strategy x workload; --group-by to choose) is its own series with its own colour:
simulated solid, predicted dashed, closed form dotted, in that colour.

Usage: scripts/plot_sweep.py CSV[:LABEL] [CSV[:LABEL] ...] -o fig.png|fig.svg|fig.pdf
           [--title T] [--x AXIS] [--group-by COL[,COL...]] [--metrics predicted,closed_form,simulated]
           [--utilization] [--log-x] [--log-y] [--y-zoom] [--dump-data]
e.g.   scripts/plot_sweep.py replanned.csv:re-planned fixed.csv:"fixed plan" -o bw.svg
       scripts/plot_sweep.py sweep.csv --x batch --group-by strategy,workload --log-y -o batch.png

- x: the `<axis>_si` column (SI units) when the CSV has it, else the written value read with its
  unit (old CSVs; 512KiB, 1MiB, 2MiB become one unit), shown in a readable unit and labelled with
  what the key means (a table in plot_common.py), e.g. "Y-link bandwidth per direction [GB/s]".
- Points whose status is `failed` or `over_memory` (the plan does not fit a device's memory: it could
  not run, even where it was replayed anyway) are left out, with a note on stderr and in the title;
  `warning` points are plotted.
- Series: one per CSV and combination of the --group-by columns (default: every varied column
  but x whose values differ between the rows; --group-by none for one series per CSV). A --group-by
  column may be any column of the CSV before `status`, e.g. strategy and workload.
- Lines: one colour per series; line style and marker per metric (prediction dashed, closed form
  dotted, simulated solid and drawn on top; utilization dash-dot on a right axis). The legend lists
  the series by colour and the metrics by line style. y from zero (--y-zoom to fit the data,
  --log-y for a logarithmic y axis).
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


def default_group_by(axes, x, rows):
    """Every varied column but x whose value differs between the rows, in the CSV's order."""
    return [a for a in axes if a != x and len({row[a] for row in rows}) > 1]


def load(path, label, x_axis, group_by=None):
    """One CSV as {label, axis, series: {group: [(x_si, row)]}, skipped: [text], dimension}.
    `group_by`: the columns whose combination makes a series (None: default_group_by)."""
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
    if group_by is None:
        group_axes = default_group_by(axes, x, rows)
    else:
        columns = header[:header.index("status")]
        for column in group_by:
            if column not in columns:
                plot_common.fail(PROGRAM, f"{path}: --group-by {column}: no such column before 'status' "
                                          f"(columns: {', '.join(columns)})")
            if column == x:
                plot_common.fail(PROGRAM, f"{path}: --group-by {column}: that is the axis on x")
        group_axes = list(group_by)
    series, skipped, dimension, categorical = {}, [], None, False
    for n, row in enumerate(rows, start=2):  # line numbers: the header is line 1
        point = ", ".join(f"{a}={row[a]}" for a in axes)
        if row["status"] in ("failed", "over_memory"):
            skipped.append(f"line {n} ({point}{', over memory' if row['status'] == 'over_memory' else ''})")
            continue
        value, dim = x_value(row, x)
        categorical = categorical or value is None  # names (workload, strategy): one tick each
        dimension = dimension or dim
        group = ", ".join(f"{plot_common.axis_meaning(a)} = {row[a]}" for a in group_axes)
        series.setdefault(group, []).append((value, row))
    if categorical:
        series = {g: [(row[x], row) for _, row in points] for g, points in series.items()}  # in file order
    else:
        for points in series.values():
            points.sort(key=lambda p: p[0])  # the curve never runs backwards
    return {"label": label, "path": path, "x": x, "group_axes": group_axes, "series": series, "skipped": skipped,
            "dimension": None if categorical else dimension, "categorical": categorical}


def extract(sources, x_axis, metrics, utilization, group_by=None):
    """Everything the figure shows, in display units: the data --dump-data prints. Each line has its
    series' name and `colour`, the series' index (the same for every metric of a series)."""
    loaded = [load(path, label, x_axis, group_by) for path, label in sources]
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
    lines, skipped, names = [], [], []
    for data in loaded:
        skipped += [f"{data['path']}: {s}" for s in data["skipped"]]
        for group, points in data["series"].items():
            # The CSV's label when there are several CSVs (its file name if none was given) or one was given.
            label = data["label"] or os.path.splitext(os.path.basename(data["path"]))[0]
            name = label if len(loaded) > 1 or data["label"] else ""
            if group:
                name = (name + ", " if name else "") + group
            if name not in names:
                names.append(name)
            colour = names.index(name)
            xs = [x / divisor for x, _ in points]
            for metric in metrics:
                column = METRICS[metric][0]
                lines.append({"series": name, "metric": metric, "colour": colour, "x": xs,
                              "y_ms": [float(r[column]) * 1e3 for _, r in points]})
            if utilization:
                lines.append({"series": name, "metric": "utilization", "colour": colour, "x": xs,
                              "y": [float(r["utilization"]) for _, r in points]})
    return {"x_key": x_key, "x_unit": unit, "x_label": plot_common.axis_label(x_key, unit), "x_ticks": categories,
            "group_by": loaded[0]["group_axes"], "series": names, "lines": lines, "skipped": skipped}


def colour_of(index):
    """The colour of series `index`: tab10, then tab20's lighter shades, then around again."""
    import matplotlib.pyplot as plt
    palette = list(plt.get_cmap("tab10").colors) + list(plt.get_cmap("tab20").colors[1::2])
    return palette[index % len(palette)]


def plot(data, args):
    """Draws and saves the figure; returns it (tests read its lines)."""
    import matplotlib
    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    fig, ax = plt.subplots(figsize=(8, 5))
    ax2 = ax.twinx() if args.utilization else None
    for line in data["lines"]:
        prefix = f"{line['series']}: " if line["series"] else ""
        colour = colour_of(line["colour"])
        if line["metric"] == "utilization":
            ax2.plot(line["x"], line["y"], linestyle="-.", marker="d", markersize=4,
                     color=colour, alpha=0.8, label=f"{prefix}utilization (right axis)")
            continue
        _, text, style, marker, face, z = METRICS[line["metric"]]
        ax.plot(line["x"], line["y_ms"], linestyle=style, marker=marker,
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
    if args.log_y:
        ax.set_yscale("log")
    elif not args.y_zoom:  # from zero, with room above the highest point
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
    series = data["series"]
    metrics = list(dict.fromkeys(line["metric"] for line in data["lines"]))
    if len(series) > 1:
        # One entry per series (its colour) and one per metric (its line style, in grey): a legend
        # that stays short however many series there are.
        handles = [Line2D([], [], color=colour_of(i), linewidth=6) for i in range(len(series))]
        labels = list(series)
        for metric in metrics:
            if metric == "utilization":
                handles.append(Line2D([], [], color="0.35", linestyle="-.", marker="d", markersize=4))
                labels.append("utilization (right axis)")
            else:
                _, text, style, marker, face, _ = METRICS[metric]
                handles.append(Line2D([], [], color="0.35", linestyle=style, marker=marker,
                                      markerfacecolor=face or "0.35", markersize=7 if face == "none" else 6))
                labels.append(text)
    else:
        handles, labels = ax.get_legend_handles_labels()
        if ax2 is not None:
            more = ax2.get_legend_handles_labels()
            handles, labels = handles + more[0], labels + more[1]
    # Below the axes, so no line hides under it; save() keeps it inside the image.
    ax.legend(handles, labels, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16),
              ncol=2 if len(labels) > 3 else 1, frameon=False)
    plot_common.save(fig, args.output, PROGRAM)
    return fig


def main():
    ap = argparse.ArgumentParser(prog=PROGRAM, description=plot_common.summary(__doc__),
                                 epilog="Details: the module docstring (python3 -c 'import plot_sweep; help(plot_sweep)')")
    ap.add_argument("csv", nargs="+", metavar="CSV[:LABEL]", help="simsweep CSV, optionally with a legend label")
    ap.add_argument("--x", default=None, metavar="AXIS", help="the varied axis on x (default: the first one)")
    ap.add_argument("--metrics", default="predicted,closed_form,simulated",
                    help="comma-separated, of predicted, closed_form, simulated (default: all three)")
    ap.add_argument("--utilization", action="store_true", help="also plot utilization on a right axis")
    ap.add_argument("--group-by", default=None, metavar="COL[,COL...]",
                    help="columns whose combination makes a series, e.g. strategy,workload (default: every "
                         "varied column but x whose values differ; 'none': one series per CSV)")
    ap.add_argument("--log-x", action="store_true", help="logarithmic x axis (geometric sweeps)")
    ap.add_argument("--log-y", action="store_true", help="logarithmic y axis (times that span decades)")
    ap.add_argument("--y-zoom", action="store_true", help="fit the y axis to the data (default: from zero, so "
                                                          "a 1 %% difference looks like 1 %%)")
    plot_common.add_output_options(ap, "the plotted data")
    args = ap.parse_args()
    metrics = [m for m in args.metrics.split(",") if m]
    for m in metrics:
        if m not in METRICS:
            plot_common.fail(PROGRAM, f"--metrics: unknown '{m}' (allowed: {', '.join(METRICS)})")
    group_by = None
    if args.group_by is not None:
        group_by = [] if args.group_by == "none" else [c for c in args.group_by.split(",") if c]

    def extract_and_note():
        data = extract([split_source(a) for a in args.csv], args.x, metrics, args.utilization, group_by)
        for note in data["skipped"]:
            print(f"{PROGRAM}: note: failed or over-memory point left out: {note}", file=sys.stderr)
        return data

    plot_common.run(args, PROGRAM, extract_and_note, plot)


if __name__ == "__main__":
    main()
