#!/usr/bin/python3
"""A timeline figure of a replayed plan for a paper: simrun's --timeline trace (Chrome-trace JSON,
or .json.gz) drawn as one row per track (device compute, send, memory, delays; one row per link)
and one colour per layer.

Usage: scripts/plot_timeline.py trace.json[.gz] -o fig.png|fig.svg|fig.pdf [--rows REGEX]
           [--max-rows N] [--from-us T] [--to-us T] [--title T] [--dump-data]

- Rows in the trace's order (devices, then "program", then links), named "<process>/<thread>",
  e.g. "d3/compute", "links/d0->d1 (+x)". --rows keeps the rows whose name matches; --max-rows
  (default 40) keeps the first N and says how many were left out.
- --from-us/--to-us: a time window (microseconds from the start of the iteration).
- Colour: the layer, the part of the event name before '/', in the order layers first appear.
- --dump-data prints rows, layers and spans as JSON on stdout instead of drawing.
"""
import argparse
import gzip
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common  # noqa: E402

PROGRAM = "plot_timeline.py"


def read_trace(path):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt") as f:
            return json.load(f)
    except OSError as e:
        plot_common.fail(PROGRAM, f"{path}: {e.strerror or e}")
    except json.JSONDecodeError as e:
        plot_common.fail(PROGRAM, f"{path}:{e.lineno}:{e.colno}: not JSON: {e.msg}")


def extract(path, rows_pattern=None, max_rows=40, from_us=None, to_us=None):
    """{rows: [name], rows_left_out: n, layers: [name], spans: [[row, layer, start_us, dur_us]],
    window_us: [from, to]} for the complete ("X") events of the trace."""
    trace = read_trace(path)
    events = trace.get("traceEvents") if isinstance(trace, dict) else None
    if not isinstance(events, list):
        plot_common.fail(PROGRAM, f"{path}: no 'traceEvents' array (is this simrun --timeline output?)")
    processes, threads = {}, {}
    for ev in events:
        if ev.get("ph") != "M":
            continue
        if ev.get("name") == "process_name":
            processes[ev["pid"]] = ev["args"]["name"]
        elif ev.get("name") == "thread_name":
            threads[(ev["pid"], ev["tid"])] = ev["args"]["name"]
    wanted = re.compile(rows_pattern) if rows_pattern else None
    order, spans, layers = [], [], []
    for ev in events:
        if ev.get("ph") != "X":
            continue
        start, duration = float(ev["ts"]), float(ev["dur"])
        if (from_us is not None and start + duration < from_us) or (to_us is not None and start > to_us):
            continue
        key = (ev["pid"], ev["tid"])
        name = f"{processes.get(ev['pid'], ev['pid'])}/{threads.get(key, ev['tid'])}"
        if wanted and not wanted.search(name):
            continue
        layer = ev["name"].split("/")[0]
        if layer not in layers:
            layers.append(layer)
        order.append(key)
        spans.append([key, layer, start, duration])
    keys = sorted(set(order))  # pid then tid: the trace's own sort indexes
    kept = keys[:max_rows]
    index = {k: i for i, k in enumerate(kept)}
    names = [f"{processes.get(p, p)}/{threads.get((p, t), t)}" for p, t in kept]
    out_spans = [[index[k], layer, s, d] for k, layer, s, d in spans if k in index]
    used_layers = [layer for layer in layers if any(s[1] == layer for s in out_spans)]
    window = [from_us if from_us is not None else min((s[2] for s in out_spans), default=0.0),
              to_us if to_us is not None else max((s[2] + s[3] for s in out_spans), default=0.0)]
    return {"rows": names, "rows_left_out": len(keys) - len(kept), "layers": used_layers, "spans": out_spans,
            "window_us": window}


def plot(data, args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    rows, layers = data["rows"], data["layers"]
    if not rows:
        plot_common.fail(PROGRAM, f"{args.trace}: no events to draw (check --rows and the time window)")
    palette = plt.get_cmap("tab20").colors
    colour = {layer: palette[i % len(palette)] for i, layer in enumerate(layers)}
    fig, ax = plt.subplots(figsize=(11, 0.28 * len(rows) + 1.8))
    by_row_layer = {}
    for row, layer, start, duration in data["spans"]:
        by_row_layer.setdefault((row, layer), []).append((start, max(duration, 0.0)))
    for (row, layer), bars in by_row_layer.items():
        ax.broken_barh(bars, (row - 0.4, 0.8), facecolors=colour[layer], linewidth=0)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows, fontsize=7)
    ax.set_ylim(len(rows) - 0.5, -0.5)  # first row on top
    ax.set_xlim(*data["window_us"])
    ax.set_xlabel("time from the start of the iteration [us]")
    ax.grid(True, axis="x", alpha=0.3)
    title = args.title or f"timeline of {os.path.basename(args.trace)}"
    if data["rows_left_out"]:
        title += f" (first {len(rows)} rows; {data['rows_left_out']} more left out: --max-rows, --rows)"
    ax.set_title(plot_common.wrapped(title, 100), fontsize=10)
    handles = [Patch(color=colour[layer], label=layer) for layer in layers]
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
              ncol=1 if len(layers) <= 30 else 2, title="layer", title_fontsize=8)
    plot_common.save(fig, args.output, PROGRAM)


def main():
    ap = argparse.ArgumentParser(prog=PROGRAM, description=plot_common.summary(__doc__))
    ap.add_argument("trace", help="simrun --timeline output (.json or .json.gz)")
    ap.add_argument("--rows", default=None, metavar="REGEX", help="only rows (process/thread) whose name matches")
    ap.add_argument("--max-rows", type=int, default=40, help="at most this many rows (default 40)")
    ap.add_argument("--from-us", type=float, default=None, help="window start [us]")
    ap.add_argument("--to-us", type=float, default=None, help="window end [us]")
    plot_common.add_output_options(ap, "rows, layers and spans")
    args = ap.parse_args()
    if args.max_rows < 1:
        plot_common.fail(PROGRAM, f"--max-rows {args.max_rows}: must be at least 1")
    plot_common.run(args, PROGRAM, lambda: extract(args.trace, args.rows, args.max_rows, args.from_us, args.to_us),
                    plot)


if __name__ == "__main__":
    main()
