"""The tables of the searches' final placements replayed on SimGrid: scripts/mcm_search_curves.py's
(BERT: the mean over the seeds) and scripts/mcm_test_set.py's (the geometric mean over the test
graphs), with the improvement over greedy by each evaluator and the rank by each, worked out by hand
below from made-up mcm_pipeline results (no search and no replay is run).

Run by ctest (tests/scripts/CMakeLists.txt):
    PARTSIM_SOURCE_DIR=. /usr/bin/python3 -m unittest tests/scripts/test_mcm_final_placements.py
"""
import argparse
import csv
import os
import shutil
import sys
import tempfile
import unittest

SOURCE = os.environ.get("PARTSIM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "scripts"))
import mcm_search_curves  # noqa: E402
import mcm_test_set  # noqa: E402


def replayed(latency_s, period_s, chips=4):
    return {"analytical_latency_s": latency_s, "simulated_period_s": period_s, "chips_used": chips}


class FinalPlacements(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="mcm_final_")
        self.args = argparse.Namespace(out=os.path.join(self.dir, "search"), microbatches=8)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_improvements_by_each_evaluator_and_their_ranks(self):
        # Greedy: latency 4 ms, replayed period 5 ms (250 and 200 inferences/s).
        # Random, two seeds: latencies 2 and 1 ms -> 2x and 4x, mean 3x; periods 2.5 and 2 ms -> 2x and
        # 2.5x, mean 2.25x; simulated / analytical 0.75.
        # RL, one seed: latency 1.6 ms -> 2.5x; period 1.25 ms -> 4x; ratio 1.6.
        # So Random ranks first by the analytical model and second on the replay, RL the other way round.
        finals = {"mcm_random": [replayed(2e-3, 2.5e-3), replayed(1e-3, 2e-3)], "mcm_rl": [replayed(1.6e-3, 1.25e-3)]}
        lines = mcm_search_curves.final_placement_lines(self.args, replayed(4e-3, 5e-3), finals)
        text = "\n".join(lines)
        self.assertIn("greedy: analytical 250, simulated 200 inferences/s", text)
        self.assertIn("| mcm_random | 3.000x | 2.250x | 0.750 | 1 | 2 |", lines)
        self.assertIn("| mcm_rl | 2.500x | 4.000x | 1.600 | 2 | 1 |", lines)
        with open(self.args.out + "_final.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([r["strategy"] for r in rows], ["mcm_greedy", "mcm_random", "mcm_random", "mcm_rl"])
        self.assertAlmostEqual(float(rows[2]["analytical_improvement"]), 4.0)
        self.assertAlmostEqual(float(rows[2]["simulated_improvement"]), 2.5)

    def test_ties_share_a_rank(self):
        finals = {"mcm_random": [replayed(2e-3, 2e-3)], "mcm_sa": [replayed(2e-3, 2e-3)]}
        lines = mcm_search_curves.final_placement_lines(self.args, replayed(4e-3, 4e-3), finals)
        self.assertIn("| mcm_random | 2.000x | 2.000x | 1.000 | 1 | 1 |", lines)
        self.assertIn("| mcm_sa | 2.000x | 2.000x | 1.000 | 1 | 1 |", lines)



class TestSetFinalPlacements(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="mcm_final_")
        self.args = argparse.Namespace(out=os.path.join(self.dir, "testset"), microbatches=8)
        self.real_replay = mcm_test_set.replay

    def tearDown(self):
        mcm_test_set.replay = self.real_replay
        shutil.rmtree(self.dir)

    def test_geometric_mean_over_the_graphs(self):
        # (workload, placement) -> (latency, period). Graph a: greedy 4/4, Random 2/1 (2x, 4x), RL 1/2
        # (4x, 2x). Graph b: greedy 9/9, Random 1/9 (9x, 1x), RL 3/3 (3x, 3x). Graph c: RL found no
        # placement, so it is left out.
        # Random: analytical sqrt(2 * 9) = 4.243x, simulated sqrt(4 * 1) = 2x, ratio 0.471;
        # RL: analytical sqrt(4 * 3) = 3.464x, simulated sqrt(2 * 3) = 2.449x, ratio 0.707.
        # Random ranks first by the analytical model, RL first on the replay.
        table = {("a", "0"): (4, 4), ("a", "1"): (2, 1), ("a", "2"): (1, 2),
                 ("b", "0"): (9, 9), ("b", "1"): (1, 9), ("b", "2"): (3, 3)}
        calls = []

        def fake_replay(a, source):
            calls.append(source)
            latency, period = table[(source[1], source[3])]
            return {"analytical_latency_s": latency, "simulated_period_s": period}
        mcm_test_set.replay = fake_replay
        graphs = [{"name": n, "workload": n, "placements": {"mcm_greedy": [0], "mcm_random": [1], "mcm_rl": rl}}
                  for n, rl in (("a", [2]), ("b", [2]), ("c", None))]
        lines = mcm_test_set.final_placement_lines(self.args, graphs, ["mcm_random", "mcm_rl"])
        self.assertIn("geometric mean over 2 graphs (1 left out: no greedy placement, or a search found none)",
                      "\n".join(lines))
        self.assertIn("| mcm_random | 4.243x | 2.000x | 0.471 | 1 | 2 |", lines)
        self.assertIn("| mcm_rl | 3.464x | 2.449x | 0.707 | 2 | 1 |", lines)
        self.assertEqual(len(calls), 6)  # three placements on each of the two kept graphs
        self.assertEqual(calls[0], ["--workload", "a", "--placement", "0"])
        with open(self.args.out + "_final.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 6)
        self.assertAlmostEqual(float(rows[4]["analytical_improvement"]), 9.0)  # graph b, Random
        self.assertAlmostEqual(float(rows[4]["simulated_improvement"]), 1.0)


if __name__ == "__main__":
    unittest.main()
