"""scripts/crosscheck_report.py on a work directory made here: four strategies on one (platform,
workload) pair whose predicted, closed-form and simulated times are chosen so that every cause of a
swapped ranking occurs, counted by hand below.

Run by ctest (tests/scripts/CMakeLists.txt):
    PARTSIM_SOURCE_DIR=. /usr/bin/python3 -m unittest tests/scripts/test_crosscheck_report.py
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("PARTSIM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
REPORT = os.path.join(SOURCE, "scripts", "crosscheck_report.py")

# strategy: (predicted, closed form, simulated) in seconds, and simplan's warning line (or None).
RUNS = {
    "a": (1.00, 1.50, 1.60, "simplan: warning: a's cost model charges 1 ms of compute, the device model 1.5 ms"),
    "b": (1.20, 1.30, 1.35, None),
    "c": (1.10, 1.05, 2.00, "simplan: warning: contention: the busiest link must carry more"),
    "d": (1.30, 1.32, 1.34, None),
}
# By prediction a < c < b < d, by simulation d < b < a < c. Swapped pairs (faster by prediction first):
# (a, b): 1.60 vs 1.35 in the replay (18 % apart), closed 1.50 > 1.30: the formulas misprice; a warned.
# (a, d): 1.60 vs 1.34, closed 1.50 > 1.32: the formulas misprice; a warned.
# (c, b): 2.00 vs 1.35, closed 1.05 < 1.30: contention; c warned.
# (c, d): 2.00 vs 1.34, closed 1.05 < 1.32: contention; c warned.
# (b, d): 1.35 vs 1.34, 0.7 % apart: a near tie; b did not warn.
# (a, c) keep their order (a 1.60 < c 2.00).


class CrosscheckReport(unittest.TestCase):
    def write_run(self, name, predicted, closed, simulated, warning=None, elapsed=None):
        """NAME.plan.json, NAME.results.json and NAME.log as crosscheck.sh leaves them (the fields the report
        reads; elapsed: the search's family.elapsed_s)."""
        base = os.path.join(self.work, name)
        with open(base + ".plan.json", "w") as f:
            json.dump({"predicted": {"iteration_s": predicted}, "layers": []} |
                      ({"family": {"elapsed_s": elapsed}} if elapsed is not None else {}), f)
        with open(base + ".results.json", "w") as f:
            json.dump({"closed_form_iteration_s": closed, "simulated_iteration_s": simulated,
                       "utilization": 0.5, "links": []}, f)
        with open(base + ".log", "w") as f:
            f.write((warning + "\n") if warning else "")

    def setUp(self):
        self.work = tempfile.mkdtemp()
        for strategy, (predicted, closed, simulated, warning) in RUNS.items():
            self.write_run(f"torus__{strategy}__vgg16__planned", predicted, closed, simulated, warning)
        # A second pair, resnet50, whose only swap is a near tie: x 1.02 s and y 1.00 s in the replay (2 %).
        for strategy, predicted, simulated in (("x", 1.0, 1.02), ("y", 1.1, 1.00)):
            self.write_run(f"torus__{strategy}__resnet50__planned", predicted, simulated, simulated)
        with open(os.path.join(self.work, "torus__e__gnmt__planned.failed"), "w") as f:
            f.write("simrun exit 124: simplan: warning: contention: the last line of the log\n")

    def tearDown(self):
        shutil.rmtree(self.work)

    def report(self, bounds=None):
        """The report; `bounds`: the lower-bound records it reads (none by default, not the repository's)."""
        path = os.path.join(self.work, "bounds.jsonl")
        with open(path, "w") as f:
            f.writelines(json.dumps(b) + "\n" for b in bounds or [])
        r = subprocess.run([sys.executable, REPORT, self.work, "chip"], capture_output=True, text=True,
                           env=os.environ | {"PARTSIM_CROSSCHECK_BOUNDS": path})
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def test_every_swapped_pair_has_one_cause_counted_by_hand(self):
        out = self.report()
        rows = {line.split(" | ")[0].lstrip("| ").split(":")[0]: line for line in out.splitlines()
                if line.startswith("| near tie") or line.startswith("| the formulas") or line.startswith("| contention")}
        self.assertTrue(rows["the formulas misprice one (a term left out, or overcharged)"].endswith("| 2 | 2 |"))
        self.assertTrue(rows["contention"].endswith("| 2 | 2 |"), rows["contention"])
        self.assertIn("b before d by prediction, after it in the replay (near tie)", out)
        self.assertIn("a before b by prediction, after it in the replay (the formulas misprice)", out)
        self.assertIn("c before d by prediction, after it in the replay (contention)", out)
        self.assertNotIn("a before c by prediction", out)
        self.assertIn("| torus | vgg16 | a < c < b < d | **no** |", out)
        # Neither pair ranks the same; up to near ties resnet50 does (its only swap is 2 % apart).
        self.assertRegex(out, r"\| as planned \| 6 \| [^\n]* \| 0 of 2 \| 1 of 2 \|")
        self.assertIn("near tie: less than 5 % apart in the replay | 2 | 0 |", out)

    def test_plans_over_memory_are_listed_as_such_not_as_other_refusals(self):
        # simplan's refusal over memory (exit 2) and another refusal, as crosscheck.sh leaves them.
        with open(os.path.join(self.work, "torus__g__gnmt__planned.skipped"), "w") as f:
            f.write("simplan: error: the plan does not fit: every device (chip) has 32.00 GiB of memory but the "
                    "plan needs 130.29 GiB on it (weights 12.55 GiB); model states: adam\n")
        with open(os.path.join(self.work, "torus__h__gnmt__planned.skipped"), "w") as f:
            f.write("simplan: error: strategy h: the platform has no torus\n")
        out = self.report()
        self.assertIn("**6 runs replayed, 1 over memory (refused), 1 not accepted otherwise, 1 failed.**", out)
        self.assertIn("## Over memory (refused)", out)
        self.assertIn("| torus | g | gnmt | planned | every device (chip) has 32.00 GiB of memory but the plan needs "
                      "130.29 GiB on it (weights 12.55 GiB) |", out)
        not_accepted = out.split("## Not accepted (skipped)")[1]
        self.assertIn("**h**", not_accepted)
        self.assertNotIn("**g**", not_accepted)

    def test_search_is_kept_out_of_the_rankings_and_compared_in_its_own_column(self):
        # vgg16: search simulated 1.20 s (predicted 1.20): no dp, the best paper strategy is d at
        # 1.34 s (gain 1.34 / 1.20 = 1.117x). resnet50: dp 0.912 s in the replay (before y 1.00 and
        # x 1.02), search 0.96 s predicted 1.00 (error -4.00 %, within 5 %; gain 0.912 / 0.96 = 0.950x).
        # The searches took 35.0, 45.5 and 62.0 s by their own clock.
        self.write_run("torus__search__vgg16__planned", 1.20, 1.20, 1.20, elapsed=35.0)
        self.write_run("torus__dp__resnet50__planned", 0.912, 0.912, 0.912)
        self.write_run("torus__search__resnet50__planned", 1.00, 0.96, 0.96, elapsed=45.5)
        # alexnet: search alone (no other strategy replayed): not counted either way.
        self.write_run("torus__search__alexnet__planned", 0.50, 0.50, 0.50, elapsed=62.0)
        out = self.report()
        self.assertIn("| torus | vgg16 | 1200.000 | 1200.000 | +0.00 % | 35.0 |  |  | 1340.000 | d | 1.117x |", out)
        self.assertIn("| torus | resnet50 | 1000.000 | 960.000 | -4.00 % | 45.5 | 912.000 | 0.950x | 912.000 | dp | 0.950x |",
                      out)
        self.assertIn("The search took 35.0 / 45.5 / 62.0 s (least / median / greatest), within 60 s in 2 of 3; "
                      "per 10 s from 0 to 60 s: 0, 0, 0, 1, 1, 0, over 60 s: 1.", out)
        self.assertIn("search is at most the best paper strategy's simulated time in 1 of 2 pairs (1 where no other "
                      "strategy replayed left out), and", out)
        self.assertIn("its prediction within 5 % of its simulated time in 3 of 3 (largest -4.00 %, torus resnet50).", out)
        # Gains: over dp only resnet50's 0.950x; over the best paper strategy sqrt(1.1167 x 0.950) = 1.030x.
        self.assertIn("Gain over dp: geometric mean 0.950x over 1 pair (from 0.950x to 0.950x).", out)
        self.assertIn("Gain over the best paper strategy: geometric mean 1.030x over 2 pairs (from 0.950x to 1.117x).", out)
        # The papers' rankings do not list search.
        self.assertIn("| torus | vgg16 | a < c < b < d | **no** |", out)

    def test_a_replay_not_made_is_set_against_the_search_by_its_lower_bound(self):
        # vgg16: strategy z not replayed, bound 1.5 s above the search's 1.20 s; resnet50: w bounded at
        # 0.9 s, below the search's 0.96 s: unsettled. d was replayed on vgg16: its bound is not used.
        self.write_run("torus__search__vgg16__planned", 1.20, 1.20, 1.20, elapsed=35.0)
        self.write_run("torus__search__resnet50__planned", 1.00, 0.96, 0.96, elapsed=45.5)
        out = self.report([{"config": "torus", "strategy": "z", "model": "vgg16", "bound_s": 1.5},
                           {"config": "torus", "strategy": "w", "model": "resnet50", "bound_s": 0.9},
                           {"name": "torus__d__vgg16__planned", "config": "torus", "strategy": "d",
                            "model": "vgg16", "bound_s": 0.1}])
        self.assertIn("2 paper strategy runs on these pairs were not replayed", out)
        self.assertIn("The bound is above the search's simulated time on 1, so the search is at most the best "
                      "strategy there whatever that replay would give: torus vgg16: z at least 1500.0 ms, search "
                      "1200.0 ms.", out)
        self.assertIn("It is not on 1, which stays unsettled: torus resnet50: w at least 900.0 ms, search 960.0 ms.", out)
        self.assertNotIn("d at least", out)
        # d's bound is a check instead: 0.1 s against its replay's 1.34 s.
        self.assertIn("As a check, the same script bounds 1 replayed run: the bound is at most the replay on every "
                      "one (bound / simulated from 0.075 to 0.075, median 0.075; 0.99 or more on 0, under 0.9 on 1).", out)
        # A bound above its replay is flagged: b's replay took 1.35 s.
        out = self.report([{"name": "torus__b__vgg16__planned", "config": "torus", "strategy": "b", "model": "vgg16",
                            "bound_s": 1.36}])
        self.assertIn("the bound is **above the replay** on 1: torus__b__vgg16__planned (1.36 s against 1.35 s)", out)
        self.assertNotIn("After a replayed prefix", out)
        # A bound after a replayed prefix (replay_bounds.sh CONFIG:STRATEGY:WORKLOAD:S) names it and the
        # bound alone: w's first 30 ms replayed lift its bound from 0.9 s to 1.05 s, above the search.
        out = self.report([{"config": "torus", "strategy": "w", "model": "resnet50", "bound_s": 1.05,
                            "bound_alone_s": 0.9, "replayed_prefix_s": 0.03}])
        self.assertIn("or after replaying a first part of it, from where that replay is (\"After a replayed prefix\").",
                      out)
        self.assertIn("whatever that replay would give: torus resnet50: w at least 1050.0 ms (after replaying its first "
                      "30 ms; the bound alone 900.0 ms), search 960.0 ms.", out)
        # Without bounds, no such paragraph.
        self.assertNotIn("not replayed (more time", self.report())

    def test_the_header_names_the_build_of_each_strategy_redone(self):
        with open(os.path.join(self.work, "VERSIONS"), "w") as f:
            f.write("simplan 0.1.0 (git aaa) / simrun 0.1.0 (git aaa)\nsearch: simplan 0.1.0 (git bbb) / simrun 0.1.0 (git bbb)\n")
        out = self.report()
        self.assertIn("Built from: simplan 0.1.0 (git aaa) / simrun 0.1.0 (git aaa). search's runs redone with "
                      "simplan 0.1.0 (git bbb) / simrun 0.1.0 (git bbb).", out)
        # Resuming keeps the other strategies' runs only when it redoes search too: the hint says so.
        self.assertIn("`PARTSIM_CROSSCHECK_RESUME=1 PARTSIM_CROSSCHECK_REDO=search scripts/crosscheck.sh` adds what is "
                      "missing.", out)

    def test_a_timeout_is_said_as_one(self):
        self.assertIn("torus e gnmt (planned): `simrun did not finish within PARTSIM_CROSSCHECK_TIMEOUT (timeout, exit 124)`",
                      self.report())

    def test_a_strategy_that_failed_is_named_beside_the_ranking_it_is_missing_from(self):
        with open(os.path.join(self.work, "torus__f__vgg16__planned.failed"), "w") as f:
            f.write("simrun exit 124: did not finish within 600 s (timeout)\n")
        out = self.report()
        self.assertIn("| torus | vgg16 | a < c < b < d | **no** |", out)
        row = next(line for line in out.splitlines() if line.startswith("| torus | vgg16 |"))
        self.assertTrue(row.endswith("| f (timeout) |"), row)
        row = next(line for line in out.splitlines() if line.startswith("| torus | resnet50 |"))
        self.assertTrue(row.endswith("|  |"), row)  # nothing left out there

    def test_a_pair_with_fewer_than_two_replayed_strategies_is_named_with_what_failed(self):
        # gnmt: e failed (setUp) and z alone replayed, so the ranking table has no gnmt row.
        self.write_run("torus__z__gnmt__planned", 1.0, 1.0, 1.0)
        out = self.report()
        self.assertFalse(any(line.startswith("| torus | gnmt |") for line in out.splitlines()))
        self.assertIn("- torus, gnmt: replayed z; failed e (timeout)", out)

    def test_the_header_says_what_the_directory_holds_and_which_shipped_platforms_it_lacks(self):
        out = self.report()
        # 4 vgg16 runs, 2 resnet50 runs and the failed gnmt run, all on the made-up platform "torus".
        self.assertIn("This report holds 7 (platform, strategy, workload, view) runs: platforms torus; "
                      "workloads gnmt, resnet50, vgg16; strategies a, b, c, d, e, x, y; views planned.", out)
        # Every shipped platform is missing from it, torus_8pf (configs/torus_8pf.yaml) among them.
        missing = out.split("no run yet on ", 1)[1].split(";", 1)[0].split(", ")
        self.assertIn("torus_8pf", missing)
        self.assertIn("k80_16gpu", missing)
        # 7 strategies x 3 workloads = 21 planned runs make a finished sitting; torus has 7.
        self.assertIn("part of the planned runs on torus (7 of 21);", out)


if __name__ == "__main__":
    unittest.main()
