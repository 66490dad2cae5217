#!/usr/bin/env python3
"""Seed 002 Fig. 6 / Table 3 on partsim: throughput improvement over the greedy baseline against the
number of samples, for Random and SA and, with --rl, the constrained RL from scratch and, with
--checkpoint (mcm_rl_train's), zero-shot (train=false) and fine-tuned; rewards from the analytical
model. Every search's final placement (and the greedy baseline) is also replayed on SimGrid
(`mcm_pipeline`, --microbatches in flight), and OUT.md says how its simulated improvement over greedy
compares with the analytical one (OUT_final.csv: one row per strategy and seed).

For each seed, `simplan --strategy mcm_random|mcm_sa --option samples=N --seed k` records the running
best throughput after every sample (plan family `best_throughput_per_sample`); mcm_greedy gives the
baseline (--split: its reading, mcm_greedy's option split; the RL curves get the same, as their reward
unit and y^(0)). Prints the mean improvement at sample counts and the samples needed to reach improvement
levels (Table 3's form), and writes OUT.csv (one row per strategy, seed, sample) and OUT.png.

Usage: scripts/mcm_search_curves.py [--workload bert_base_ops] [--samples 200] [--seeds 3]
                                    [--levels 1.0,1.1,1.2] [--build build] [--out docs/reproductions/mcm_search]
                                    [--rl] [--checkpoint policy.pt] [--rl-samples N] [--split compute|memory]
                                    [--start baseline|random] [--ratio node|joint] [--stay-bias 0]
                                    [--microbatches 8]
       scripts/mcm_search_curves.py --replot [--out docs/reproductions/mcm_search]  (OUT.png from OUT.csv)"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile


YLABEL = "throughput improvement over greedy"

# Curve label -> (strategy, extra options); {checkpoint} is filled in from --checkpoint.
RL_CURVES = {"mcm_rl": ("mcm_rl", []),
             "mcm_rl zero-shot": ("mcm_rl", ["train=false", "checkpoint={checkpoint}"]),
             "mcm_rl fine-tuned": ("mcm_rl", ["checkpoint={checkpoint}"])}


def add_rl_choice_arguments(ap, where):
    """mcm_rl's choices that pre-training, the test set and the BERT curves share (mcm_rl_train's and
    mcm_test_set's --start/--ratio/--stay-bias, simplan's --option start=/ratio=/stay_bias=). Shared
    with mcm_test_set.py; `where` says whose option each one is passed to."""
    ap.add_argument("--start", choices=("baseline", "random"), default="baseline",
                    help=f"where each RL rollout's eq. 7 iteration starts ({where})")
    ap.add_argument("--ratio", choices=("joint", "node"), default="node",
                    help=f"PPO's probability ratio, of the placement or per node ({where})")
    ap.add_argument("--stay-bias", type=float, default=0.0,
                    help=f"added to the logit of each node's previous chip, 0: none ({where})")


def rl_choice_options(a):
    """The RL choices as simplan --option key=value texts."""
    return [f"start={a.start}", f"ratio={a.ratio}", f"stay_bias={a.stay_bias:g}"]


def plan(a, strategy, seed, samples, tmp, options=(), split=None):
    out = os.path.join(tmp, f"{strategy}_{seed}_{len(options)}_{split}.json")
    cmd = [f"{a.build}/bin/simplan", "--config", a.config, "--workload", a.workload, "--batch", "1", "--mode", "inference",
           "--strategy", strategy, "-o", out]
    if strategy != "mcm_greedy":
        cmd += ["--seed", str(seed), "--option", f"samples={samples}"]
    if strategy in ("mcm_greedy", "mcm_rl"):
        cmd += ["--option", f"split={split or a.split}"]
    if strategy == "mcm_rl":
        for o in rl_choice_options(a):
            cmd += ["--option", o]
    for o in options:
        cmd += ["--option", o.format(checkpoint=a.checkpoint)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: {r.stderr.strip()}")
    with open(out) as f:
        family = json.load(f)["family"]
    family["plan_file"] = out
    return family


def replay(a, source):
    """Both evaluators of one placement (mcm_pipeline's JSON: analytical_latency_s, simulated_period_s,
    ...): SimGrid plays the hardware. `source`: ["--plan", FILE] or ["--workload", W, "--placement", LIST].
    Shared with mcm_test_set.py."""
    cmd = [f"{a.build}/bin/mcm_pipeline", "--config", a.config, *source, "--microbatches", str(a.microbatches)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def improvement_table(analytical, simulated):
    """OUT.md's table of the final placements: per search its improvement over greedy by the analytical
    model and on the SimGrid replay (already averaged by the caller), their ratio, and the rank of the
    search by each (1 + the searches strictly better: ties share a rank). Shared with mcm_test_set.py."""
    def rank(values, s):
        return 1 + sum(v > values[s] for v in values.values())
    lines = ["| strategy | analytical | simulated | simulated / analytical | rank by analytical | rank by simulated |",
             "| --- | --- | --- | --- | --- | --- |"]
    for s in analytical:
        lines.append(f"| {s} | {analytical[s]:.3f}x | {simulated[s]:.3f}x | {simulated[s] / analytical[s]:.3f} | "
                     f"{rank(analytical, s)} | {rank(simulated, s)} |")
    return lines


def samples_to_reach(curve, level):
    """The first sample count (1-based) at which `curve` reaches `level`, or None."""
    return next((n + 1 for n, v in enumerate(curve) if v >= level), None)


def plot_curves(out, curves, ylabel):
    """OUT.png with python3-matplotlib, one line per curve (label -> value per sample); a warning on
    stderr without it (scripts/install_deps.sh installs it for Debian's /usr/bin/python3)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"{sys.executable}: no matplotlib, {out}.png not written", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for label, values in curves.items():
        ax.plot(range(1, len(values) + 1), values, label=label)
    ax.set_xlabel("samples")
    ax.set_ylabel(ylabel)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out + ".png", dpi=120)


def write_curves(out, text, curves, ylabel):
    """Writes OUT.md (`text`) and OUT.png (plot_curves), and prints `text`. Shared with mcm_test_set.py."""
    with open(out + ".md", "w") as f:
        f.write(text)
    plot_curves(out, curves, ylabel)
    print(text)


def replot_curves(out, ylabel):
    """Redraws OUT.png from OUT.csv (rows: strategy, [seed,] sample, value; the mean over the seeds
    per sample, as written): a new figure without running the searches again (--replot)."""
    sums = {}
    with open(out + ".csv", newline="") as f:
        for row in csv.reader(f, strict=True):
            if row[0] == "strategy":
                continue
            strategy, sample, value = row[0], int(row[-2]), float(row[-1])
            runs = sums.setdefault(strategy, {})
            total, count = runs.get(sample, (0.0, 0))
            runs[sample] = (total + value, count + 1)
    plot_curves(out, {s: [t / c for _, (t, c) in sorted(runs.items())] for s, runs in sums.items()}, ylabel)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workload", default="bert_base_ops")
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--levels", default="1.0,1.1,1.2")
    ap.add_argument("--config", default="configs/mcm_ring36.yaml")
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="docs/reproductions/mcm_search")
    ap.add_argument("--rl", action="store_true", help="add mcm_rl from scratch")
    ap.add_argument("--checkpoint", help="add mcm_rl zero-shot and fine-tuned from this pre-trained policy")
    ap.add_argument("--rl-samples", type=int, help="samples of the RL curves (default --samples; the rest of the "
                    "curve repeats the last best)")
    ap.add_argument("--split", choices=("compute", "memory"), default="compute",
                    help="the greedy baseline's split (mcm_greedy --option split=)")
    add_rl_choice_arguments(ap, "mcm_rl's option of that name")
    ap.add_argument("--microbatches", type=int, default=8,
                    help="micro-batches in flight when the final placements are replayed (mcm_pipeline)")
    ap.add_argument("--replot", action="store_true", help="only redraw OUT.png from OUT.csv (no searches)")
    a = ap.parse_args()
    if a.replot:
        return replot_curves(a.out, YLABEL)
    levels = [float(x) for x in a.levels.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        greedy = plan(a, "mcm_greedy", 0, 1, tmp)
        base = greedy["throughput_per_s"]
        greedy_replay = replay(a, ["--plan", greedy["plan_file"]])
        other_split = "memory" if a.split == "compute" else "compute"
        other = plan(a, "mcm_greedy", 0, 1, tmp, split=other_split)["throughput_per_s"]
        curves = {}
        finals = {}  # label -> [mcm_pipeline's JSON of each seed's final placement]

        def search(label, strategy, seed, samples, options=()):
            family = plan(a, strategy, seed, samples, tmp, options)
            finals.setdefault(label, []).append(replay(a, ["--plan", family["plan_file"]]))
            return [t / base for t in family["best_throughput_per_sample"]]

        for strategy in ("mcm_random", "mcm_sa"):
            curves[strategy] = [search(strategy, strategy, k, a.samples) for k in range(1, a.seeds + 1)]
        labels = (["mcm_rl"] if a.rl else []) + (["mcm_rl zero-shot", "mcm_rl fine-tuned"] if a.checkpoint else [])
        rl_samples = min(a.rl_samples or a.samples, a.samples)
        for label in labels:
            strategy, options = RL_CURVES[label]
            runs = []
            for k in range(1, a.seeds + 1):
                run = search(label, strategy, k, rl_samples, options)
                runs.append(run + [run[-1]] * (a.samples - len(run)))
            curves[label] = runs
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out + ".csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["strategy", "seed", "sample", "improvement_over_greedy"])
        for s, runs in curves.items():
            for k, run in enumerate(runs, 1):
                for n, v in enumerate(run, 1):
                    w.writerow([s, k, n, v])
    mean = {s: [sum(r[n] for r in runs) / len(runs) for n in range(a.samples)] for s, runs in curves.items()}
    lines = [f"- {a.workload} on {os.path.basename(a.config)}, greedy baseline (split={a.split}) {base:.4g} inferences/s (analytical); "
             f"mean over {a.seeds} seeds of the running best, as improvement over greedy:\n",
             "| samples | " + " | ".join(curves) + " |", "| --- |" + " --- |" * len(curves)]
    for n in sorted({1, 10, 50, 100, a.samples} & set(range(1, a.samples + 1))):
        lines.append(f"| {n} | " + " | ".join(f"{mean[s][n - 1]:.3f}x" for s in curves) + " |")
    lines += ["", "- Samples needed to reach an improvement level (mean curve; N.A. = not within the budget):\n",
              "| strategy | " + " | ".join(f">= {l:.2f}x" for l in levels) + " |", "| --- |" + " --- |" * len(levels)]
    for s in curves:
        cells = []
        for l in levels:
            hit = samples_to_reach(mean[s], l)
            cells.append(str(hit) if hit else "N.A.")
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    lines += ["", f"- Against the other reading of the greedy baseline (split={other_split}, {other:.4g} inferences/s) "
              f"every improvement figure above is {base / other:.3g}x as large for Random and SA (the same runs); "
              + ", ".join(f"{s} {mean[s][-1] * base / other:.3f}x" for s in curves if not s.startswith("mcm_rl"))
              + f" after {a.samples} samples (mcm_rl's curves depend on the baseline: it is their y^(0))."]
    lines += final_placement_lines(a, greedy_replay, finals)
    write_curves(a.out, "\n".join(lines) + "\n", {s: mean[s] for s in curves}, YLABEL)


def final_placement_lines(a, greedy_replay, finals):
    """Writes OUT_final.csv and returns OUT.md's lines on the final placements replayed on SimGrid:
    per search, the mean over the seeds of the improvement over greedy by either evaluator (analytical:
    greedy's latency / the placement's max per-chip latency; simulated: greedy's replayed period / the
    placement's), so a reader sees whether the ranking by the reward holds on the replay."""
    g_lat, g_per = greedy_replay["analytical_latency_s"], greedy_replay["simulated_period_s"]
    with open(a.out + "_final.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["strategy", "seed", "chips_used", "analytical_latency_s", "simulated_period_s",
                    "analytical_improvement", "simulated_improvement"])
        w.writerow(["mcm_greedy", 0, greedy_replay["chips_used"], g_lat, g_per, 1.0, 1.0])
        for label, runs in finals.items():
            for k, r in enumerate(runs, 1):
                w.writerow([label, k, r["chips_used"], r["analytical_latency_s"], r["simulated_period_s"],
                            g_lat / r["analytical_latency_s"], g_per / r["simulated_period_s"]])
    ana = {s: sum(g_lat / r["analytical_latency_s"] for r in runs) / len(runs) for s, runs in finals.items()}
    sim = {s: sum(g_per / r["simulated_period_s"] for r in runs) / len(runs) for s, runs in finals.items()}
    return ["", f"- Final placements replayed on SimGrid (`mcm_pipeline`, {a.microbatches} micro-batches in flight; "
            f"greedy: analytical {1 / g_lat:.4g}, simulated {1 / g_per:.4g} inferences/s), mean over the seeds of the "
            f"improvement over greedy by each evaluator (`{os.path.basename(a.out)}_final.csv`):\n",
            *improvement_table(ana, sim)]


if __name__ == "__main__":
    main()
