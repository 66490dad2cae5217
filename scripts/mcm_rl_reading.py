#!/usr/bin/env python3
"""Says, from the files a reproduce_mcm.sh run wrote, where the constrained RL ends against Random and SA
and whether pre-training helped: the "RL ahead of Random and SA" item of docs/reproductions/mcm.md.

Usage: scripts/mcm_rl_reading.py DIR   (DIR holds mcm_search.csv, mcm_testset.csv, mcm_rl_pretrain.json)
Prints Markdown list lines. Every number is read from those files; the paper's (seed 002) are labelled.
"""
import csv
import json
import os
import sys
from collections import defaultdict

import script_help  # scripts/ is on sys.path: the script's own folder

script_help.answer_help(__doc__)

RL = ["mcm_rl", "mcm_rl zero-shot", "mcm_rl fine-tuned"]


def final_values(path, value_column, seed_column=None):
    """Per strategy, the value at its last sample (the mean over seeds where there are several)."""
    last = defaultdict(dict)  # strategy -> seed -> (sample, value)
    with open(path) as f:
        for row in csv.DictReader(f):
            seed = row[seed_column] if seed_column else "0"
            sample = int(row["sample"])
            if sample >= last[row["strategy"]].get(seed, (0, 0))[0]:
                last[row["strategy"]][seed] = (sample, float(row[value_column]))
    return {s: (max(v[0] for v in seeds.values()), sum(v[1] for v in seeds.values()) / len(seeds))
            for s, seeds in last.items()}


def compare(label, finals):
    baseline = max(finals["mcm_random"][1], finals["mcm_sa"][1])
    best_rl = max(RL, key=lambda s: finals[s][1])
    gain = finals[best_rl][1] / baseline - 1
    rl_text = ", ".join(f"{s} {finals[s][1]:.3f}x" for s in RL)
    verdict = "ahead of" if gain >= 0.02 else "level with" if gain > -0.02 else "behind"
    return (f"- {label} after {finals[best_rl][0]} samples: mcm_random {finals['mcm_random'][1]:.3f}x, mcm_sa "
            f"{finals['mcm_sa'][1]:.3f}x; {rl_text}. The best RL ({best_rl}) is {verdict} the better of Random and SA "
            f"({gain * 100:+.1f} %; paper: RL 4.4-6.5 % above them).")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: mcm_rl_reading.py DIR")
    d = sys.argv[1]
    print(compare("bert_base_ops (Fig. 6 / Table 3, mean over the seeds)",
                  final_values(os.path.join(d, "mcm_search.csv"), "improvement_over_greedy", "seed")))
    print(compare("The test set (Fig. 5 / Table 2, geomean over the graphs)",
                  final_values(os.path.join(d, "mcm_testset.csv"), "geomean_improvement_over_greedy")))
    pretrain = json.load(open(os.path.join(d, "mcm_rl_pretrain.json")))
    curve = [c["validation_geomean"] for c in pretrain["checkpoints"]]
    chosen = pretrain["chosen_checkpoint"]
    text = (f"- Pre-training ({pretrain['graph_visits']} visits of {pretrain['training_graphs']} random graphs, "
            f"{pretrain['ppo_updates']} PPO updates, {pretrain['seconds']:.0f} s): validation geomean "
            f"{' -> '.join(f'{v:.2f}x' for v in curve)}; checkpoint {chosen} chosen")
    if chosen == 0:
        text += (" (the untrained policy: pre-training did not improve on it, so zero-shot and fine-tuned start from "
                 "mcm_rl_train's untrained network, another random initialisation than RL from scratch's, and "
                 "zero-shot makes no PPO updates).")
    else:
        text += f" ({curve[chosen] / curve[0]:.2f}x the untrained policy's validation geomean)."
    print(text)


if __name__ == "__main__":
    main()
