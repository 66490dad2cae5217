"""scripts/plot_search.py and scripts/search_report.py (issue 44) on files made here, numbers by hand.

Run by ctest (tests/scripts/CMakeLists.txt):
    PARTSIM_SOURCE_DIR=. /usr/bin/python3 -m unittest tests/scripts/test_search_scripts.py
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("PARTSIM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
PLOT = os.path.join(SOURCE, "scripts", "plot_search.py")
REPORT = os.path.join(SOURCE, "scripts", "search_report.py")
HEADER = "index,elapsed_s,move,origin,schedule,predicted_s,closed_form_s,usable,accepted,best_s,note\n"
# Two seeds (dp with two schedules), then the walk: one better plan, one over memory, one worse.
LOG = HEADER + "".join([
    '0,0.1,seed,dp,concurrent,0.020,0.020,1,1,0.020,""\n',
    '1,0.2,seed,dp,in_order/25MB,0.024,0.022,1,0,0.020,""\n',
    '2,0.3,layer,dp,concurrent,0.016,0.015,1,1,0.016,""\n',
    '3,0.4,run,dp,concurrent,0,0,0,0,0.016,"over memory"\n',
    '4,0.5,boundary,dp,concurrent,0.018,0.017,1,0,0.016,""\n',
])


class Scripts(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.work)

    def write(self, name, text):
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_plot_reads_the_log_and_draws_it(self):
        log = self.write("p.search.csv", LOG)
        r = subprocess.run([sys.executable, PLOT, log, "--dump-data"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = json.loads(r.stdout)[0]["rows"]
        self.assertEqual([row["move"] for row in rows], ["seed", "seed", "layer", "run", "boundary"])
        self.assertEqual([row["usable"] for row in rows], [True, True, True, False, True])
        self.assertEqual(rows[4]["best_s"], 0.016)
        image = os.path.join(self.work, "s.png")
        r = subprocess.run([sys.executable, PLOT, log, "-o", image, "--x", "time"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreater(os.path.getsize(image), 1000)

    def test_plot_refuses_a_file_that_is_not_a_log(self):
        bad = self.write("bad.csv", "a,b\n1,2\n")
        r = subprocess.run([sys.executable, PLOT, bad, "-o", os.path.join(self.work, "x.png")], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("not a search log (missing columns: index, elapsed_s", r.stderr)

    def test_report_compares_the_search_with_its_seeds(self):
        # One pair: the search predicted 16 ms and SimGrid agreed; the seeds: dp 20 ms (concurrent) and
        # 24 ms (the cross-check's in_order/25MB): best strategy 24 ms, gain 24 / 16 = 1.500x.
        self.write("torus__vgg16.plan.json", json.dumps({
            "predicted": {"iteration_s": 0.016}, "family": {"origin": "dp", "candidates": 3, "stopped_by": "candidates"},
            "schedule": {}}))
        self.write("torus__vgg16.results.json", json.dumps({"simulated_iteration_s": 0.016, "closed_form_iteration_s": 0.015}))
        self.write("torus__vgg16.plan.search.csv", LOG)
        self.write("torus__vgg16.wall", "12.5\n")
        self.write("torus__gnmt.skipped", "simplan: error: strategy search: nothing fits\n")
        r = subprocess.run([sys.executable, REPORT, self.work, "v1", "512", ""], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout
        self.assertIn("**1 pairs planned and replayed, 1 refused, 0 failed.**", out)
        self.assertIn("| search simulated <= best strategy (pairs where a strategy plans) | 1 of 1 "
                      "(0 of them the best strategy's own plan) |", out)
        self.assertIn("| simulation within the resampled range (pairs resampled) | 0 of 0 |", out)
        self.assertIn("| search wall time, pairs per bin | 0-10 s: 0, 10-20 s: 1,", out)
        self.assertIn("| torus | vgg16 | 16.000 |  | 16.000 | +0.00 % | 12.5 | 3 | candidates | dp, concurrent | 24.000 (dp) | "
                      "24.000 | 1.500x | 1.500x |", out)
        self.assertIn("- torus, gnmt: simplan: error: strategy search: nothing fits", out)

    def test_a_resampled_choice_of_the_best_strategys_own_plan(self):
        # The search chose the cross-check's dp seed itself (exact 24 ms, as the seed's row), resampled:
        # mean 25 ms, range 23-27 ms; SimGrid 26 ms: later than the seed's single evaluation, but the
        # same plan, so not worse; within the range; error 26 / 25 - 1 = +4.00 %.
        self.write("torus__vgg16.plan.json", json.dumps({
            "predicted": {"iteration_s": 0.025},
            "family": {"origin": "dp", "resampled": {"finalists": 4, "samples": 8, "jitter": 1e-6,
                                                     "exact_s": 0.024, "min_s": 0.023, "max_s": 0.027}},
            "schedule": {"gradient_sync_order": "in_order", "gradient_bucket_bytes": 25e6}}))
        self.write("torus__vgg16.results.json", json.dumps({"simulated_iteration_s": 0.026, "closed_form_iteration_s": 0.015}))
        self.write("torus__vgg16.plan.search.csv", LOG)
        self.write("torus__vgg16.wall", "1\n")
        out = subprocess.run([sys.executable, REPORT, self.work, "v1", "512", ""], capture_output=True, text=True).stdout
        self.assertIn("| search simulated <= best strategy (pairs where a strategy plans) | 1 of 1 "
                      "(1 of them the best strategy's own plan) |", out)
        self.assertIn("| simulation within the resampled range (pairs resampled) | 1 of 1 |", out)
        self.assertIn("| torus | vgg16 | 25.000 | 23.000-27.000 | 26.000 | +4.00 % |", out)
        self.assertIn("| dp, in_order/25MB | 24.000 (dp) | 24.000 | 0.923x | same plan |", out)

    def test_a_pruned_seed_is_shown_as_a_lower_bound(self):
        # The cross-check's dp seed was pruned: its closed form 30 ms is a lower bound of its time.
        log = LOG.replace('1,0.2,seed,dp,in_order/25MB,0.024,0.022,1,0,0.020,""',
                          '1,0.2,seed,dp,in_order/25MB,0.030,0.030,0,0,0.020,"pruned: its closed form (predicted_s) cannot win"')
        self.write("torus__vgg16.plan.json", json.dumps({"predicted": {"iteration_s": 0.016}, "family": {"origin": "dp"}}))
        self.write("torus__vgg16.results.json", json.dumps({"simulated_iteration_s": 0.016, "closed_form_iteration_s": 0.015}))
        self.write("torus__vgg16.plan.search.csv", log)
        self.write("torus__vgg16.wall", "1\n")
        out = subprocess.run([sys.executable, REPORT, self.work, "v1", "512", ""], capture_output=True, text=True).stdout
        self.assertIn("| >= 30.000 (dp) | >= 30.000 | >= 1.875x | >= 1.875x |", out)


if __name__ == "__main__":
    unittest.main()
