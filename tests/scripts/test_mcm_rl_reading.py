"""scripts/mcm_rl_reading.py on files written here, with final values chosen so that every verdict and
percentage can be worked out by hand (below).

Run by ctest (tests/scripts/CMakeLists.txt):
    PARTSIM_SOURCE_DIR=. /usr/bin/python3 -m unittest tests/scripts/test_mcm_rl_reading.py
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("PARTSIM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
READING = os.path.join(SOURCE, "scripts", "mcm_rl_reading.py")

# BERT, two seeds, value at the last sample (300); sample 1 of mcm_random seed 1 is higher (5.0) to check
# that the last sample is read, not the largest. Means: Random (2.0 + 2.2) / 2 = 2.1, SA 2.0, RL 1.9,
# zero-shot 2.31, fine-tuned 2.0. Best RL 2.31 against max(2.1, 2.0): 2.31 / 2.1 - 1 = +10.0 %: ahead.
SEARCH = {"mcm_random": (2.0, 2.2), "mcm_sa": (2.0, 2.0), "mcm_rl": (1.9, 1.9),
          "mcm_rl zero-shot": (2.31, 2.31), "mcm_rl fine-tuned": (2.0, 2.0)}
# Test set (one curve each, last sample 100): best RL 2.97 against 3.0: -1.0 %, inside +-2 %: level.
TESTSET = {"mcm_random": 3.0, "mcm_sa": 3.0, "mcm_rl": 2.97, "mcm_rl zero-shot": 2.5, "mcm_rl fine-tuned": 2.9}


class McmRlReading(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="mcm_rl_reading_")
        with open(os.path.join(self.dir, "mcm_search.csv"), "w") as f:
            f.write("strategy,seed,sample,improvement_over_greedy\n")
            f.write("mcm_random,1,1,5.0\n")
            for strategy, values in SEARCH.items():
                for seed, value in enumerate(values, 1):
                    f.write(f"{strategy},{seed},300,{value}\n")
        with open(os.path.join(self.dir, "mcm_testset.csv"), "w") as f:
            f.write("strategy,sample,geomean_improvement_over_greedy\n")
            for strategy, value in TESTSET.items():
                f.write(f"{strategy},1,1.0\n{strategy},100,{value}\n")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def reading(self, chosen, curve):
        with open(os.path.join(self.dir, "mcm_rl_pretrain.json"), "w") as f:
            json.dump({"checkpoints": [{"validation_geomean": v} for v in curve], "chosen_checkpoint": chosen,
                       "graph_visits": 24, "training_graphs": 12, "ppo_updates": 48, "seconds": 40.2}, f)
        return subprocess.run([sys.executable, READING, self.dir], check=True, capture_output=True, text=True).stdout

    def test_verdicts_and_percentages_by_hand(self):
        bert, testset, pretrain = self.reading(1, [1.0, 2.5]).splitlines()
        self.assertIn("after 300 samples: mcm_random 2.100x, mcm_sa 2.000x", bert)
        self.assertIn("The best RL (mcm_rl zero-shot) is ahead of the better of Random and SA (+10.0 %", bert)
        self.assertIn("after 100 samples", testset)
        self.assertIn("The best RL (mcm_rl) is level with the better of Random and SA (-1.0 %", testset)
        self.assertIn("1.00x -> 2.50x; checkpoint 1 chosen (2.50x the untrained policy", pretrain)

    def test_the_untrained_checkpoint_is_said_to_be_untrained(self):
        pretrain = self.reading(0, [4.71, 4.57]).splitlines()[2]
        self.assertIn("checkpoint 0 chosen (the untrained policy: pre-training did not improve on it", pretrain)


if __name__ == "__main__":
    unittest.main()
