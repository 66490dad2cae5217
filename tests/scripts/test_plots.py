"""The figure scripts (scripts/plot_*.py) on the fixtures of tests/data/plots: each renders a valid
PNG and SVG, and the data it extracts (--dump-data) matches values worked out by hand below.

Run by ctest (tests/scripts/CMakeLists.txt) with the system python3 that has matplotlib:
    PARTSIM_SOURCE_DIR=. /usr/bin/python3 -m unittest tests/scripts/test_plots.py
"""
import contextlib
import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

SOURCE = os.environ.get("PARTSIM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPTS = os.path.join(SOURCE, "scripts")
DATA = os.path.join(SOURCE, "tests", "data", "plots")
sys.path.insert(0, SCRIPTS)
import plot_common  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run(script, *args):
    """(exit code, stdout, stderr) of a script run with this interpreter."""
    r = subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def data(name):
    return os.path.join(DATA, name)


def write_three_axis_sweep(directory):
    """A CSV varying batch, strategy and workload (2 x 2 x 2 points): simulated = predicted x 1.1,
    predicted (ms) = batch / 64 x (1 for dsm, 2 for megatron) x (1 for vgg16, 3 for resnet50)."""
    path = os.path.join(directory, "three_axes.csv")
    with open(path, "w") as f:
        f.write("batch,batch_si,strategy,strategy_si,workload,workload_si,status,predicted_s,closed_form_s,"
                "simulated_s,utilization,error,warnings\n")
        for workload, w in (("vgg16", 1), ("resnet50", 3)):
            for strategy, k in (("dsm", 1), ("megatron", 2)):
                for batch in (64, 512):
                    p = batch / 64 * k * w * 1e-3
                    f.write(f"{batch},{batch},{strategy},,{workload},,ok,{p},{p * 1.05},{p * 1.1},0.5,,\n")
    return path


def write_long_results(directory, layers=175):
    """A results.json of `layers` fwd rows; row i simulated (i + 1) ms (compute half, the rest exposed
    communication), predicted (i + 1) x 1.2 ms: the last row's tick is the highest point."""
    rows = []
    for i in range(layers):
        t = (i + 1) * 1e-3
        rows.append({"name": f"layer{i:03d}", "pass": "fwd", "predicted_s": t * 1.2, "closed_form_s": t,
                     "simulated_s": t, "critical_path_s": t / layers, "compute_s": t / 2, "exposed_s": t / 2,
                     "exposed_communication_s": t / 2, "exposed_memory_s": 0.0})
    results = {"schema": 1, "strategy": "dsm", "config": "ring4", "workload": "gpt3", "batch": 8,
               "granularity": "chip", "simulated_iteration_s": 1.0, "critical_path_other_s": 0.0, "layers": rows}
    path = os.path.join(directory, "long.json")
    with open(path, "w") as f:
        json.dump(results, f)
    return path


def png_size(path):
    """(width, height) in pixels from a PNG's IHDR chunk."""
    with open(path, "rb") as f:
        head = f.read(24)
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


class Images(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="partsim_plots_")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def render(self, script, *args):
        """Renders to PNG and SVG and checks both files are what their extension says."""
        for ext in ("png", "svg"):
            out = os.path.join(self.dir, f"figure.{ext}")
            code, stdout, stderr = run(script, *args, "-o", out)
            self.assertEqual(code, 0, stderr)
            self.assertIn(f"wrote {out}", stdout)
            with open(out, "rb") as f:
                content = f.read()
            if ext == "png":
                self.assertTrue(content.startswith(PNG_MAGIC), f"{out} is not a PNG")
                self.assertGreater(len(content), 10000)
            else:
                root = ElementTree.fromstring(content)
                self.assertTrue(root.tag.endswith("svg"), root.tag)

    def test_sweep_overlay(self):
        self.render("plot_sweep.py", data("sweep_replanned.csv") + ":re-planned", data("sweep_fixed.csv") + ":fixed plan",
                    "--utilization", "--log-x", "--title", "a long title " * 12)

    def test_sweep_old_csv(self):
        self.render("plot_sweep.py", data("sweep_old_mixed_units.csv"))

    def test_sweep_names_on_x(self):
        self.render("plot_sweep.py", data("sweep_two_axes.csv"), "--utilization")

    def test_sweep_grouped_log_y(self):
        self.render("plot_sweep.py", write_three_axis_sweep(self.dir), "--x", "batch", "--log-y", "--utilization")

    def test_breakdown_pages_of_a_long_model(self):
        # 175 layers, at most 60 a page: fig.png, fig_2.png, fig_3.png (ceil(175 / 60) = 3), each at
        # most 16 in x 150 dpi wide (plus the legend's and labels' margins), and no fourth.
        long = write_long_results(self.dir)
        for extra in ([], ["--critical-path"], ["--percent"]):
            out = os.path.join(self.dir, "layers.png")
            code, stdout, stderr = run("plot_breakdown.py", long, "-o", out, *extra)
            self.assertEqual(code, 0, stderr)
            pages = [out] + [os.path.join(self.dir, f"layers_{k}.png") for k in (2, 3)]
            for page in pages:
                self.assertIn(f"wrote {page}", stdout)
                width, _ = png_size(page)
                self.assertLessEqual(width, 16 * 150 + 300, page)
            self.assertFalse(os.path.exists(os.path.join(self.dir, "layers_4.png")))

    def test_breakdown(self):
        self.render("plot_breakdown.py", data("results.json"))
        self.render("plot_breakdown.py", data("results.json"), "--percent")
        self.render("plot_breakdown.py", data("results.json"), "--critical-path")
        self.render("plot_breakdown.py", data("results.json"), "--critical-path", "--percent")

    def test_timeline_json_and_gz(self):
        self.render("plot_timeline.py", data("trace.json"))
        packed = os.path.join(self.dir, "trace.json.gz")
        with open(data("trace.json"), "rb") as src, gzip.open(packed, "wb") as dst:
            dst.write(src.read())
        self.render("plot_timeline.py", packed)

    def test_bad_output_and_input_exit_2(self):
        code, _, stderr = run("plot_sweep.py", data("sweep_fixed.csv"), "-o", os.path.join(self.dir, "x.jpeg"))
        self.assertEqual(code, 2)
        self.assertIn("unknown image format '.jpeg' (allowed: .png, .svg, .pdf)", stderr)
        code, _, stderr = run("plot_breakdown.py", data("nope.json"), "-o", os.path.join(self.dir, "x.png"))
        self.assertEqual(code, 2)
        self.assertIn("nope.json", stderr)
        code, _, stderr = run("plot_timeline.py", data("results.json"), "-o", os.path.join(self.dir, "x.png"))
        self.assertEqual(code, 2)
        self.assertIn("no 'traceEvents' array", stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "x.png")))


def dump(script, *args):
    code, stdout, stderr = run(script, *args, "--dump-data")
    assert code == 0, stderr
    return json.loads(stdout), stderr


def line(lines, series, metric):
    found = [x for x in lines if x["series"] == series and x["metric"] == metric]
    assert len(found) == 1, (series, metric, lines)
    return found[0]


class SweepData(unittest.TestCase):
    def test_overlay_with_labels_si_column_and_failed_point(self):
        d, stderr = dump("plot_sweep.py", data("sweep_replanned.csv") + ":re-planned",
                         data("sweep_fixed.csv") + ":fixed plan", "--utilization")
        # x from the _si column: 2e10, 4e10, 8e10 B/s; their geometric middle 4e10 >= 1e9: GB/s.
        self.assertEqual(d["x_unit"], "GB/s")
        self.assertEqual(d["x_label"], "Y-link bandwidth per direction [GB/s]\nsystem.torus.bandwidth[1]")
        # 2 CSVs x (3 metrics + utilization) = 8 lines, each in the legend with its CSV's label.
        self.assertEqual(len(d["lines"]), 8)
        predicted = line(d["lines"], "re-planned", "predicted")
        self.assertEqual(predicted["x"], [20, 40, 80])  # 160 GB/s failed: left out
        self.assertEqual([round(y, 9) for y in predicted["y_ms"]], [12, 10, 8])  # s -> ms
        # The warning point (40 GB/s) is plotted: simulated 12.5, 10.1, 8.1 ms.
        self.assertEqual([round(y, 9) for y in line(d["lines"], "re-planned", "simulated")["y_ms"]], [12.5, 10.1, 8.1])
        self.assertEqual(line(d["lines"], "re-planned", "utilization")["y"], [0.4, 0.5, 0.6])
        # fixed.csv is written 80, 20, 40: sorted so the curve never runs backwards.
        fixed = line(d["lines"], "fixed plan", "simulated")
        self.assertEqual(fixed["x"], [20, 40, 80])
        self.assertEqual([round(y, 9) for y in fixed["y_ms"]], [16, 11, 8.1])
        self.assertEqual(len(d["skipped"]), 1)
        self.assertIn("line 5 (system.torus.bandwidth[1]=160GB/s)", d["skipped"][0])
        self.assertIn("failed or over-memory point left out", stderr)

    def test_points_over_memory_are_left_out(self):
        # A plan that does not fit could not run: refused (no times) or replayed anyway (times), it
        # is left out either way; only 16 GiB is plotted.
        d, stderr = dump("plot_sweep.py", data("sweep_over_memory.csv"), "--metrics", "simulated")
        self.assertEqual(line(d["lines"], "", "simulated")["y_ms"], [2.4])
        self.assertEqual(len(d["skipped"]), 2)
        self.assertIn("line 3 (system.device_types.dev.memory=4MiB, over memory)", d["skipped"][1])
        self.assertIn("over-memory point left out", stderr)

    def test_old_csv_mixed_units_become_one_unit(self):
        d, _ = dump("plot_sweep.py", data("sweep_old_mixed_units.csv"), "--metrics", "simulated")
        # 512KiB, 2MiB, 1MiB = 524288, 2097152, 1048576 B, all multiples of 1024; middle
        # sqrt(524288 x 2097152) = 1048576 = 1 MiB: shown in MiB, sorted: 0.5, 1, 2.
        self.assertEqual(d["x_unit"], "MiB")
        self.assertEqual(d["x_label"], "scratchpad per core [MiB]\nsystem.device_types.chip.core.scratchpad")
        self.assertEqual(len(d["lines"]), 1)
        self.assertEqual(d["lines"][0]["x"], [0.5, 1, 2])
        self.assertEqual([round(y, 9) for y in d["lines"][0]["y_ms"]], [12, 10, 9])

    def test_names_on_x_and_a_second_axis_as_series(self):
        d, _ = dump("plot_sweep.py", data("sweep_two_axes.csv"), "--metrics", "simulated")
        # workload has names (its _si column is empty): one tick per name in file order; batch, the
        # second axis, makes one series per value.
        self.assertEqual(d["x_ticks"], ["vgg16", "resnet50"])
        self.assertEqual(d["x_label"], "workload")
        b64 = line(d["lines"], "minibatch size = 64", "simulated")
        self.assertEqual(b64["x"], [0, 1])
        self.assertEqual([round(y, 9) for y in b64["y_ms"]], [2.2, 1.2])
        self.assertEqual([round(y, 9) for y in line(d["lines"], "minibatch size = 512", "simulated")["y_ms"]], [8.2, 5.2])
        # The batch on x instead: numbers (count), one series per workload.
        d, _ = dump("plot_sweep.py", data("sweep_two_axes.csv"), "--x", "batch", "--metrics", "predicted")
        self.assertIsNone(d["x_ticks"])
        self.assertEqual(d["x_label"], "minibatch size")
        self.assertEqual(line(d["lines"], "workload = resnet50", "predicted")["x"], [64, 512])

    def test_group_by_strategy_and_workload(self):
        with tempfile.TemporaryDirectory(prefix="partsim_plots_") as tmp:
            path = write_three_axis_sweep(tmp)
            pairs = [f"strategy = {s}, workload = {w}" for w in ("vgg16", "resnet50") for s in ("dsm", "megatron")]
            # Default: every varied column but x that differs (strategy, workload): one series per pair.
            d, _ = dump("plot_sweep.py", path, "--x", "batch")
            self.assertEqual(d["group_by"], ["strategy", "workload"])
            self.assertEqual(d["series"], pairs)
            for k, name in enumerate(pairs):
                predicted, simulated = line(d["lines"], name, "predicted"), line(d["lines"], name, "simulated")
                self.assertEqual(predicted["colour"], k)
                self.assertEqual(simulated["colour"], k)  # one colour per series, whatever the metric
                self.assertEqual(simulated["x"], [64, 512])
            # megatron on resnet50: 2 x 3 = 6 ms at 64, 8 x that at 512; simulated 1.1 x.
            self.assertEqual([round(y, 9) for y in line(d["lines"], pairs[3], "predicted")["y_ms"]], [6, 48])
            self.assertEqual([round(y, 9) for y in line(d["lines"], pairs[3], "simulated")["y_ms"]], [6.6, 52.8])
            # Explicit order, and a column that does not exist.
            d, _ = dump("plot_sweep.py", path, "--x", "batch", "--group-by", "workload,strategy")
            self.assertEqual(d["series"][0], "workload = vgg16, strategy = dsm")
            d, _ = dump("plot_sweep.py", path, "--x", "batch", "--group-by", "workload")
            self.assertEqual(len(d["series"]), 2)  # strategies share a series (as the old default did)
            d, _ = dump("plot_sweep.py", path, "--x", "batch", "--group-by", "none", "--metrics", "simulated")
            self.assertEqual(d["series"], [""])
            code, _, stderr = run("plot_sweep.py", path, "--dump-data", "--group-by", "config")
            self.assertEqual(code, 2)
            self.assertIn("--group-by config: no such column before 'status'", stderr)

    def test_figure_lines_share_a_colour_per_series_and_log_y(self):
        import argparse
        import matplotlib
        matplotlib.use("Agg")
        import plot_sweep
        with tempfile.TemporaryDirectory(prefix="partsim_plots_") as tmp:
            path = write_three_axis_sweep(tmp)
            d = plot_sweep.extract([(path, None)], "batch", ["predicted", "closed_form", "simulated"], False)
            args = argparse.Namespace(utilization=False, log_x=False, log_y=True, y_zoom=False, title=None,
                                      output=os.path.join(tmp, "fig.png"))
            with contextlib.redirect_stdout(io.StringIO()):
                fig = plot_sweep.plot(d, args)
            ax = fig.axes[0]
            self.assertEqual(ax.get_yscale(), "log")
            by_label = {l.get_label(): l for l in ax.get_lines()}
            self.assertEqual(len(by_label), 4 * 3)
            colours = set()
            for name in d["series"]:
                simulated = by_label[f"{name}: simulated (SimGrid)"]
                predicted = by_label[f"{name}: planner prediction"]
                closed = by_label[f"{name}: closed form"]
                self.assertEqual(simulated.get_color(), predicted.get_color())
                self.assertEqual(simulated.get_color(), closed.get_color())
                self.assertEqual(simulated.get_linestyle(), "-")
                self.assertEqual(predicted.get_linestyle(), "--")
                self.assertEqual(closed.get_linestyle(), ":")
                colours.add(matplotlib.colors.to_hex(simulated.get_color()))
            self.assertEqual(len(colours), 4)  # four series, four colours
            legend = [t.get_text() for t in ax.get_legend().get_texts()]
            self.assertEqual(legend, d["series"] + ["planner prediction", "closed form", "simulated (SimGrid)"])
            args.log_y = False
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(plot_sweep.plot(d, args).axes[0].get_yscale(), "linear")
            matplotlib.pyplot.close("all")

    def test_unknown_metric_and_axis(self):
        code, _, stderr = run("plot_sweep.py", data("sweep_fixed.csv"), "--dump-data", "--metrics", "latency")
        self.assertEqual(code, 2)
        self.assertIn("--metrics: unknown 'latency'", stderr)
        code, _, stderr = run("plot_sweep.py", data("sweep_fixed.csv"), "--dump-data", "--x", "batch")
        self.assertEqual(code, 2)
        self.assertIn("--x batch: not a varied axis (axes: system.torus.bandwidth[1])", stderr)


class BreakdownData(unittest.TestCase):
    def test_milliseconds_per_pass(self):
        d, _ = dump("plot_breakdown.py", data("results.json"))
        self.assertEqual(list(d["passes"]), ["fwd", "bwd", "upd"])
        conv1 = d["passes"]["fwd"][0]
        # conv1/fwd: compute 1 ms, exposed communication 2 ms, exposed memory 1 ms (sum 4 = simulated).
        self.assertEqual(conv1["layer"], "conv1")
        self.assertAlmostEqual(conv1["compute"], 1.0)
        self.assertAlmostEqual(conv1["exposed_communication"], 2.0)
        self.assertAlmostEqual(conv1["exposed_memory"], 1.0)
        self.assertAlmostEqual(conv1["predicted"], 2.0)
        self.assertEqual([r["layer"] for r in d["passes"]["fwd"]], ["conv1", "fc"])

    def test_percent_of_each_rows_simulated_time(self):
        d, _ = dump("plot_breakdown.py", data("results.json"), "--percent", "--layers", "^conv")
        # conv1/bwd: 2, 2.5, 0.5 of 5 ms = 40, 50, 10 %; prediction 4 of 5 ms = 80 %.
        bwd = d["passes"]["bwd"][0]
        self.assertAlmostEqual(bwd["compute"], 40.0)
        self.assertAlmostEqual(bwd["exposed_communication"], 50.0)
        self.assertAlmostEqual(bwd["exposed_memory"], 10.0)
        self.assertAlmostEqual(bwd["predicted"], 80.0)
        self.assertEqual(d["unit"], "%")
        self.assertEqual(list(d["passes"]), ["fwd", "bwd"])  # fc (the only upd row) filtered out

    def test_critical_path_shares(self):
        # The fixture's shares: conv1/fwd 4, fc/fwd 1, conv1/bwd 5, fc/upd 1.5 ms (fc/upd's span is
        # 2 ms), no row 0.5 ms: 12 ms = the simulated iteration.
        d, _ = dump("plot_breakdown.py", data("results.json"), "--critical-path")
        self.assertTrue(d["critical_path"])
        self.assertEqual([(r["layer"], r["critical_path"]) for r in d["passes"]["fwd"]], [("conv1", 4.0), ("fc", 1.0)])
        fc_upd = d["passes"]["upd"][0]
        self.assertAlmostEqual(fc_upd["critical_path"], 1.5)
        self.assertAlmostEqual(fc_upd["simulated"], 2.0)
        self.assertNotIn("compute", fc_upd)
        self.assertAlmostEqual(d["critical_path_other"], 0.5)
        self.assertAlmostEqual(sum(r["critical_path"] for rows in d["passes"].values() for r in rows)
                               + d["critical_path_other"], d["iteration"])
        # Percent of the iteration (not of the row's span): conv1/bwd 5 of 12 ms, no row 0.5 of 12 ms.
        d, _ = dump("plot_breakdown.py", data("results.json"), "--critical-path", "--percent")
        self.assertAlmostEqual(d["passes"]["bwd"][0]["critical_path"], 500.0 / 12)
        self.assertAlmostEqual(d["critical_path_other"], 50.0 / 12)
        self.assertAlmostEqual(d["iteration"], 100.0)

    def test_long_model_pages_and_is_never_clipped(self):
        import argparse
        import math
        import matplotlib
        matplotlib.use("Agg")
        import plot_breakdown
        with tempfile.TemporaryDirectory(prefix="partsim_plots_") as tmp:
            long = write_long_results(tmp)
            for max_rows in (60, 50):
                for percent, critical_path in ((False, False), (True, False), (False, True)):
                    d = plot_breakdown.extract(long, None, percent, critical_path)
                    args = argparse.Namespace(title=None, max_rows=max_rows, output=os.path.join(tmp, "b.png"))
                    with contextlib.redirect_stdout(io.StringIO()):  # 'wrote ...' lines
                        figures = plot_breakdown.plot(d, args)
                    self.assertEqual(len(figures), math.ceil(175 / max_rows))
                    shown = []
                    for fig in figures:
                        self.assertLessEqual(fig.get_size_inches()[0], plot_breakdown.MAX_WIDTH_IN)
                        ax = fig.axes[0]
                        top = ax.get_ylim()[1]
                        labels = [t.get_text() for t in ax.get_xticklabels()]
                        self.assertLessEqual(len(labels), max_rows)
                        shown += labels
                        for bar in ax.patches:
                            self.assertLessEqual(bar.get_y() + bar.get_height(), top)
                        for ticks in ax.collections:  # the prediction (and span) ticks
                            self.assertLessEqual(max(y for _, y in ticks.get_offsets()), top)
                    # Every layer once, in order, over the pages.
                    self.assertEqual(shown, [f"layer{i:03d}" for i in range(175)])
                    matplotlib.pyplot.close("all")
            d = plot_breakdown.extract(long)
            with contextlib.redirect_stdout(io.StringIO()):
                one = plot_breakdown.plot(d, argparse.Namespace(title=None, max_rows=0,
                                                                output=os.path.join(tmp, "c.png")))
            self.assertEqual(len(one), 1)
            self.assertLessEqual(one[0].get_size_inches()[0], plot_breakdown.MAX_WIDTH_IN)
        code, _, stderr = run("plot_breakdown.py", data("results.json"), "--dump-data", "--max-rows", "-1")
        self.assertEqual(code, 2)

    def test_critical_path_needs_a_results_json_that_has_it(self):
        with open(data("results.json")) as f:
            results = json.load(f)
        del results["critical_path_other_s"]
        with tempfile.TemporaryDirectory(prefix="partsim_plots_") as tmp:
            old = os.path.join(tmp, "old.json")
            with open(old, "w") as f:
                json.dump(results, f)
            code, _, stderr = run("plot_breakdown.py", old, "--critical-path", "--dump-data")
            self.assertEqual(code, 2)
            self.assertIn("no 'critical_path_other_s'", stderr)
            self.assertEqual(run("plot_breakdown.py", old, "--dump-data")[0], 0)  # the span view needs none of it


class TimelineData(unittest.TestCase):
    def test_rows_layers_spans(self):
        d, _ = dump("plot_timeline.py", data("trace.json"))
        self.assertEqual(d["rows"], ["d0/compute", "d0/send", "d1/compute", "links/d0->d1 (+x)"])
        self.assertEqual(d["layers"], ["conv1", "fc"])
        self.assertEqual(sorted(map(tuple, d["spans"])), sorted([
            (0, "conv1", 0.0, 10.0), (1, "conv1", 10.0, 5.5), (3, "conv1", 10.0, 5.5),
            (2, "fc", 15.5, 4.5), (2, "fc", 20.0, 3.0)]))
        self.assertEqual(d["window_us"], [0.0, 23.0])  # fc/bwd ends at 20 + 3 us
        self.assertEqual(d["rows_left_out"], 0)

    def test_row_filter_cap_and_window(self):
        d, _ = dump("plot_timeline.py", data("trace.json"), "--rows", "^d1/")
        self.assertEqual(d["rows"], ["d1/compute"])
        self.assertEqual(d["layers"], ["fc"])
        d, _ = dump("plot_timeline.py", data("trace.json"), "--max-rows", "2")
        self.assertEqual(d["rows"], ["d0/compute", "d0/send"])
        self.assertEqual(d["rows_left_out"], 2)
        d, _ = dump("plot_timeline.py", data("trace.json"), "--from-us", "16", "--to-us", "19")
        # Only events that reach into [16, 19] us: fc/fwd [15.5, 20).
        self.assertEqual(d["spans"], [[0, "fc", 15.5, 4.5]])
        self.assertEqual(d["window_us"], [16.0, 19.0])


class Quantities(unittest.TestCase):
    def test_parse_quantity_follows_units_hpp(self):
        self.assertEqual(plot_common.parse_quantity("8Gb/s"), (1e9, "bandwidth"))  # bits: 8 Gb/s = 1 GB/s
        self.assertEqual(plot_common.parse_quantity("80GB/s"), (8e10, "bandwidth"))
        self.assertEqual(plot_common.parse_quantity("1MiB"), (1048576.0, "bytes"))
        self.assertEqual(plot_common.parse_quantity("500ns"), (500e-9, "time"))
        self.assertEqual(plot_common.parse_quantity("2GHz"), (2e9, "frequency"))
        self.assertEqual(plot_common.parse_quantity("180TFLOP/s"), (1.8e14, "flop_rate"))
        self.assertEqual(plot_common.parse_quantity("512"), (512.0, "count"))
        self.assertEqual(plot_common.parse_quantity("vgg16"), (None, None))

    def test_display_unit(self):
        self.assertEqual(plot_common.display_unit([1e-6, 4e-6], "time"), (1e-6, "us"))
        self.assertEqual(plot_common.display_unit([2e10, 2.4e11], "bandwidth"), (1e9, "GB/s"))
        self.assertEqual(plot_common.display_unit([1e6, 3e6], "bytes"), (1e6, "MB"))  # not multiples of 1024
        self.assertEqual(plot_common.display_unit([64, 512], "count"), (1.0, ""))

    def test_axis_meaning(self):
        self.assertEqual(plot_common.axis_meaning("system.torus.bandwidth[0]"), "X-link bandwidth per direction")
        self.assertEqual(plot_common.axis_meaning("system.device_types.chip.chip.memory_bandwidth"),
                         "external memory bandwidth per chip")
        self.assertEqual(plot_common.axis_meaning("option.levels"), "strategy option levels")
        self.assertEqual(plot_common.axis_label("batch", ""), "minibatch size")
        self.assertEqual(plot_common.axis_meaning("system.something.new"), "system.something.new")


if __name__ == "__main__":
    unittest.main()
