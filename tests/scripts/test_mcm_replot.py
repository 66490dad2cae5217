"""--replot of scripts/mcm_search_curves.py, mcm_test_set.py and mcm_fig7.py: the figure redrawn from
the CSV the script wrote, without running a search. The curve values are means over the seeds worked
out by hand below; the PNGs are checked to be written.

Run by ctest (tests/scripts/CMakeLists.txt):
    PARTSIM_SOURCE_DIR=. /usr/bin/python3 -m unittest tests/scripts/test_mcm_replot.py
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("PARTSIM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPTS = os.path.join(SOURCE, "scripts")
sys.path.insert(0, SCRIPTS)
import mcm_search_curves  # noqa: E402


def is_png(path):
    with open(path, "rb") as f:
        return f.read(8) == b"\x89PNG\r\n\x1a\n"


class McmReplot(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="mcm_replot_")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return os.path.join(self.dir, name.rsplit(".", 1)[0])

    def test_search_curves_are_the_mean_over_the_seeds(self):
        # Two seeds, three samples: Random (1, 2, 2) and (3, 3, 4) -> (2, 2.5, 3); SA one seed (1, 1, 1.5).
        out = self.write("curves.csv", "strategy,seed,sample,improvement_over_greedy\n"
                         "mcm_random,1,1,1\nmcm_random,1,2,2\nmcm_random,1,3,2\n"
                         "mcm_random,2,1,3\nmcm_random,2,2,3\nmcm_random,2,3,4\n"
                         "mcm_sa,1,1,1\nmcm_sa,1,2,1\nmcm_sa,1,3,1.5\n")
        drawn = {}
        real = mcm_search_curves.plot_curves
        mcm_search_curves.plot_curves = lambda o, curves, ylabel: drawn.update(out=o, curves=curves, ylabel=ylabel)
        try:
            mcm_search_curves.replot_curves(out, "y")
        finally:
            mcm_search_curves.plot_curves = real
        self.assertEqual(drawn["out"], out)
        self.assertEqual(drawn["curves"], {"mcm_random": [2.0, 2.5, 3.0], "mcm_sa": [1.0, 1.0, 1.5]})
        subprocess.run([sys.executable, os.path.join(SCRIPTS, "mcm_search_curves.py"), "--replot", "--out", out],
                       check=True)
        self.assertTrue(is_png(out + ".png"))

    def test_test_set_curves(self):
        out = self.write("testset.csv", "strategy,sample,geomean_improvement_over_greedy\n"
                         "mcm_random,1,2.0\nmcm_random,2,2.5\nmcm_rl,1,0\nmcm_rl,2,3.0\n")
        subprocess.run([sys.executable, os.path.join(SCRIPTS, "mcm_test_set.py"), "--replot", "--out", out], check=True)
        self.assertTrue(is_png(out + ".png"))

    def test_fig7_scatter(self):
        # Three placements. Normalised analytical 1, 1.5, 2 and simulated 1, 2.1, 2: Pearson R = 0.5 /
        # sqrt(0.5 * 0.74) = 0.822; ranks (0, 1, 2) and (0, 2, 1): Spearman 0.5. Receive shares of the
        # bottleneck 0, 1/3, 0.5/3.5 against simulated / analytical 1, 1.4, 1: r = 0.0698 / (0.2365 *
        # 0.3266) = 0.904. Seeds 2 and 5 swap ranks 1 and 2, a gap of (2 - 1.5) / 1.5 = 33.33 % in the
        # analytical runtime. Replays took 10, 20, 30 ms: median 20, max 30.
        out = self.write("fig7.csv", "seed,chips_used,analytical_latency_s,simulated_period_s,analytical_norm,"
                         "simulated_norm,bottleneck_chip,bottleneck_compute_s,bottleneck_receive_s,replay_wall_s\n"
                         "1,3,2e-3,2e-3,1.0,1.0,0,1e-3,0,0.01\n2,4,3e-3,4.2e-3,1.5,2.1,1,2e-3,1e-3,0.02\n"
                         "5,2,4e-3,4e-3,2.0,2.0,0,3e-3,0.5e-3,0.03\n")
        self.write("fig7.md", "- the draws' counts\nan older analysis\n")
        subprocess.run([sys.executable, os.path.join(SCRIPTS, "mcm_fig7.py"), "--replot", "--out", out], check=True,
                       capture_output=True)
        self.assertTrue(is_png(out + ".png"))
        with open(out + ".md") as f:
            md = f.read()
        self.assertTrue(md.startswith("- the draws' counts\n- Pearson R of the normalised runtimes: **0.822**"), md)
        self.assertIn("Spearman rank correlation 0.500", md)
        self.assertIn("spans 1.000-1.400", md)
        self.assertIn("(mean 15.9 %, at most 33.3 %; Pearson r 0.904)", md)
        self.assertIn("| 2 | 4 | 1 | 2 | 33.33 % | 33.3 % |", md)
        self.assertIn("| 5 | 2 | 2 | 1 | 33.33 % | 14.3 % |", md)
        self.assertIn("median 20.0 ms, max 30.0 ms wall", md)
        self.assertNotIn("an older analysis", md)
        # Fewer than 3 placements: refused, no figure.
        few = self.write("few.csv", "seed,chips_used,analytical_latency_s,simulated_period_s,analytical_norm,"
                         "simulated_norm,bottleneck_chip,bottleneck_compute_s,bottleneck_receive_s,replay_wall_s\n"
                         "1,3,2e-3,2e-3,1.0,1.0,0,1e-3,0,0.01\n")
        self.write("few.md", "- counts\n")
        run = subprocess.run([sys.executable, os.path.join(SCRIPTS, "mcm_fig7.py"), "--replot", "--out", few],
                             capture_output=True, text=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("fewer than 3", run.stderr)
        self.assertFalse(os.path.exists(few + ".png"))


if __name__ == "__main__":
    unittest.main()
