#!/usr/bin/python3
"""Per-layer breakdown of a replay (seed 003 Fig. 13): one stacked bar per layer and pass from
simrun's results.json (docs/results-format.md): compute, exposed communication and exposed memory
time, which add up to the row's simulated time, with the planner's prediction as a tick. A long
model is paged (at most --max-rows layers per figure: fig.png, fig_2.png, ...), the figure's width
is capped and every bar and tick fits under the y limit.

Usage: scripts/plot_breakdown.py results.json -o fig.png|fig.svg|fig.pdf [--percent] [--critical-path]
           [--title T] [--layers REGEX] [--max-rows N] [--dump-data]

- One panel per pass (fwd, bwd, upd as the plan has them; `all` for per-layer plans), layers in the
  plan's order.
- --percent: each bar as shares of its row's simulated time (Fig. 13's view); default milliseconds.
- --critical-path: one bar per row, its share of the simulated critical path (`critical_path_s`,
  docs/results-format.md) instead of the breakdown of its span, with the span as a tick: spans
  overlap between layers (a pipelined layer's covers nearly the whole iteration), shares add up to
  the iteration (with `critical_path_other_s`, tasks of no row). With --percent: percent of the
  simulated iteration.
- --max-rows N (default 60): a pass with more layers is cut into pages of N consecutive rows, one
  figure each (fig.png, fig_2.png, fig_3.png, ...; page k holds rows (k-1)N+1..kN of every pass);
  every page of a pass has the same y limit, above its tallest bar or tick. 0: one page.
- --dump-data prints the extracted rows as JSON on stdout instead of drawing.
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common  # noqa: E402

PROGRAM = "plot_breakdown.py"
# results.json field, legend text, colour: compute first (the useful part), then what is exposed.
PARTS = [("compute_s", "compute", "#4c72b0"),
         ("exposed_communication_s", "exposed communication (chip-to-chip, on-chip, latency, waiting)", "#dd8452"),
         ("exposed_memory_s", "exposed external memory", "#55a868")]
PASS_ORDER = ["fwd", "bwd", "upd", "all"]


def extract(path, layer_pattern=None, percent=False, critical_path=False):
    """{title, unit, passes: {pass: [{layer, compute, exposed_communication, exposed_memory,
    predicted, simulated}]}} in ms (or % of each row's simulated time with `percent`).
    With `critical_path`: rows {layer, critical_path, predicted, simulated} in ms (or % of the
    simulated iteration), plus critical_path_other and iteration, in the same unit."""
    try:
        with open(path) as f:
            results = json.load(f)
    except OSError as e:
        plot_common.fail(PROGRAM, f"{path}: {e.strerror}")
    except json.JSONDecodeError as e:
        plot_common.fail(PROGRAM, f"{path}:{e.lineno}:{e.colno}: not JSON: {e.msg}")
    rows = results.get("layers") if isinstance(results, dict) else None
    if not isinstance(rows, list):
        plot_common.fail(PROGRAM, f"{path}: no 'layers' array (is this simrun's results.json?)")
    wanted = re.compile(layer_pattern) if layer_pattern else None
    needed = ("name", "pass", "simulated_s", "predicted_s") + (
        ("critical_path_s",) if critical_path else tuple(p[0] for p in PARTS))
    iteration = results.get("simulated_iteration_s", 0.0)
    if critical_path and "critical_path_other_s" not in results:
        plot_common.fail(PROGRAM, f"{path}: no 'critical_path_other_s' (a results.json from before the critical path)")
    passes = {}
    for i, row in enumerate(rows):
        missing = [k for k in needed if k not in row]
        if missing:
            plot_common.fail(PROGRAM, f"{path}: /layers/{i}: missing {', '.join(missing)}")
        if wanted and not wanted.search(row["name"]):
            continue
        simulated = row["simulated_s"]
        entry = {"layer": row["name"]}
        if critical_path:
            # Shares add up to the iteration, so percent is of the iteration, not of the row's span.
            scale = (100.0 / iteration if iteration > 0 else 0.0) if percent else 1e3
            entry["critical_path"] = row["critical_path_s"] * scale
        else:
            scale = (100.0 / simulated if simulated > 0 else 0.0) if percent else 1e3
            for field, _, _ in PARTS:
                entry[field[:-2]] = row[field] * scale
        entry["predicted"] = row["predicted_s"] * scale
        entry["simulated"] = simulated * scale
        passes.setdefault(row["pass"], []).append(entry)
    if not passes:
        plot_common.fail(PROGRAM, f"{path}: no layer matches --layers '{layer_pattern}'" if wanted else f"{path}: no layers")
    ordered = {p: passes[p] for p in sorted(passes, key=lambda p: PASS_ORDER.index(p) if p in PASS_ORDER else 99)}
    what = "each layer's share of the critical path" if critical_path else "where each layer's time goes"
    title = (f"{results.get('workload', '?')} batch {results.get('batch', '?')}, {results.get('strategy', '?')} on "
             f"{results.get('config', '?')} ({results.get('granularity', '?')} replay): {what}")
    data = {"title": title, "unit": "%" if percent else "ms", "critical_path": critical_path, "passes": ordered}
    if critical_path:
        scale = (100.0 / iteration if iteration > 0 else 0.0) if percent else 1e3
        data["critical_path_other"] = results["critical_path_other_s"] * scale
        data["iteration"] = iteration * scale
    return data


MAX_WIDTH_IN = 16.0  # inches: 2,400 px at 150 dpi, whatever the number of layers


def paginate(passes, max_rows):
    """[{pass: rows}] pages of at most `max_rows` consecutive rows of each pass (0 or None: one page)."""
    widest = max(len(rows) for rows in passes.values())
    if not max_rows or widest <= max_rows:
        return [passes]
    count = -(-widest // max_rows)
    pages = []
    for k in range(count):
        page = {name: rows[k * max_rows:(k + 1) * max_rows] for name, rows in passes.items()}
        pages.append({name: rows for name, rows in page.items() if rows})
    return pages


def page_path(path, k):
    """fig.png, fig_2.png, fig_3.png, ... for pages 1, 2, 3, ..."""
    if k == 1:
        return path
    stem, ext = os.path.splitext(path)
    return f"{stem}_{k}{ext}"


def row_top(row, critical_path):
    """The highest point a row draws: its bar (stacked parts or critical-path share) and its ticks."""
    if critical_path:
        return max(row["critical_path"], row["predicted"], row["simulated"])
    return max(sum(row[field[:-2]] for field, _, _ in PARTS), row["predicted"])


def plot(data, args):
    """Draws and saves one figure per page; returns the figures (tests read their bars)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    max_rows = getattr(args, "max_rows", 60)
    # The same y limit on every page of a pass, above its tallest bar or tick.
    tops = {name: max((row_top(r, data["critical_path"]) for r in rows), default=0.0)
            for name, rows in data["passes"].items()}
    pages = paginate(data["passes"], max_rows)
    figures = []
    for k, passes in enumerate(pages, start=1):
        suffix = f" (page {k} of {len(pages)})" if len(pages) > 1 else ""
        figures.append(plot_page(plt, data, passes, tops, args, suffix, page_path(args.output, k)))
    return figures


def plot_page(plt, data, passes, tops, args, suffix, path):
    widest = max(len(rows) for rows in passes.values())
    fig, axes = plt.subplots(len(passes), 1, figsize=(min(MAX_WIDTH_IN, max(7, 0.25 * widest + 2)),
                                                      2.8 * len(passes) + 1.2), squeeze=False)
    for ax, (name, rows) in zip(axes[:, 0], passes.items()):
        xs = range(len(rows))
        if data["critical_path"]:
            ax.bar(xs, [r["critical_path"] for r in rows], color=PARTS[0][2], width=0.75,
                   label="share of the simulated critical path (rows add up to the iteration)")
            if data["unit"] == "ms":  # a span in percent of the iteration would read as a share
                ax.scatter(xs, [r["simulated"] for r in rows], marker="_", s=260, linewidths=2, color="#dd8452",
                           zorder=3, label="simulated span (overlaps other rows')")
        else:
            bottom = [0.0] * len(rows)
            for field, text, colour in PARTS:
                heights = [r[field[:-2]] for r in rows]
                ax.bar(xs, heights, bottom=bottom, color=colour, label=text, width=0.75)
                bottom = [b + h for b, h in zip(bottom, heights)]
        ax.scatter(xs, [r["predicted"] for r in rows], marker="_", s=260, linewidths=2, color="black", zorder=3,
                   label="planner prediction")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([r["layer"] for r in rows], rotation=60, ha="right", fontsize=8 if widest <= 40 else 6)
        ax.set_xlim(-0.6, max(widest, 1) - 0.4)  # the same bar width on a short last page
        if data["unit"] == "ms":
            ax.set_ylabel(f"{name} [ms]")
        elif data["critical_path"]:
            ax.set_ylabel(f"{name}: share of the iteration [%]")
        else:
            ax.set_ylabel(f"{name}: share of simulated [%]")
        top = tops[name]
        ax.set_ylim(0, top * 1.08 if top > 0 else 1)  # never clipped: room above the tallest bar or tick
        ax.grid(True, axis="y", alpha=0.3)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    axes[0, 0].legend(handles, labels, fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.02), ncol=2,
                      frameon=False)
    title = args.title or data["title"]
    if data["critical_path"] and not args.title:
        shown = sum(r["critical_path"] for rows in data["passes"].values() for r in rows)
        title += (f" (rows shown {shown:.3f}, no row {data['critical_path_other']:.3f}, "
                  f"iteration {data['iteration']:.3f} {data['unit']})")
    fig.suptitle(plot_common.wrapped(title + suffix, 90), fontsize=10, y=1.0)
    fig.tight_layout()
    plot_common.save(fig, path, PROGRAM)
    return fig


def main():
    ap = argparse.ArgumentParser(prog=PROGRAM, description=plot_common.summary(__doc__))
    ap.add_argument("results", help="simrun --out results.json")
    ap.add_argument("--percent", action="store_true", help="bars as shares of each row's simulated time")
    ap.add_argument("--critical-path", action="store_true",
                    help="bars of each row's share of the simulated critical path instead of its span's breakdown")
    ap.add_argument("--layers", default=None, metavar="REGEX", help="only layers whose name matches")
    ap.add_argument("--max-rows", type=int, default=60, metavar="N",
                    help="at most N layers per figure: longer passes are paged into fig.png, fig_2.png, ... "
                         "(default 60; 0: one figure)")
    plot_common.add_output_options(ap, "the extracted rows")
    args = ap.parse_args()
    if args.max_rows < 0:
        plot_common.fail(PROGRAM, f"--max-rows {args.max_rows}: must be 0 (no paging) or more")
    plot_common.run(args, PROGRAM, lambda: extract(args.results, args.layers, args.percent, args.critical_path), plot)


if __name__ == "__main__":
    main()
