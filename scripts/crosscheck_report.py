#!/usr/bin/python3
"""Writes docs/crosscheck.md (Markdown on stdout) from what scripts/crosscheck.sh left in WORK_DIR:
per run NAME = CONFIG__STRATEGY__MODEL__VARIANT (VARIANT planned | trusted) a NAME.plan.json and a
NAME.results.json (or NAME.same_as naming the planned run whose replay a trusted plan with the same
placement shares), NAME.log (simplan's warnings), or NAME.skipped / NAME.failed with one line why.

Two views of the matrix: "as planned" (every strategy with its defaults) and "trusted" (the
strategies with a trusted-model option, the AccPar family's compute=device, with it; the others as
planned). Predicted times come from the plans, closed form, simulated and links from the replays.

Usage: scripts/crosscheck_report.py WORK_DIR GRANULARITY
Environment: PARTSIM_CROSSCHECK_SUBSET, the subset line crosscheck.sh writes into the header;
PARTSIM_CROSSCHECK_SYNC, the gradient synchronisation the plans used (in_order or concurrent);
PARTSIM_CROSSCHECK_BOUNDS, the lower bounds on the replays not made (default
docs/data/replay_bounds.jsonl, scripts/replay_bounds.sh; a missing file: none).
"""
import re
import glob
import json
import math
import os
import statistics
import sys
from collections import defaultdict

import crosscheck_bounds
import crosscheck_records
import script_help  # scripts/ is on sys.path: the script's own folder

script_help.answer_help(__doc__)
VIEWS = ("planned", "trusted")
VIEW_TITLE = {"planned": "as planned", "trusted": "trusted option"}
FULL_COMMAND = "PARTSIM_JOBS=1 scripts/crosscheck.sh"
CONFIGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "configs")


def pearson(x, y):
    n = len(x)
    if n < 2:
        return float("nan")
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def log_pearson(x, y):
    pairs = [(a, b) for a, b in zip(x, y) if a > 0 and b > 0]
    return pearson([math.log(a) for a, _ in pairs], [math.log(b) for _, b in pairs])


def ranking(values):
    """Strategy names ordered fastest first."""
    return [k for k, _ in sorted(values.items(), key=lambda kv: (kv[1], kv[0]))]


def links_text(links):
    return ", ".join(f"{name} {100 * busy:.0f} % busy ({100 * util:.0f} % used)" for name, busy, util in links)


def load(work):
    """The replayed, refused and failed runs of WORK_DIR (scripts/crosscheck_records.py reads them)."""
    runs, skipped, failed = [], [], []
    for record in crosscheck_records.read_work(work):
        if record["status"] == "replayed":
            record["links"] = [tuple(l) for l in record["links"]]
            runs.append(record)
        else:
            (skipped if record["status"] == "skipped" else failed).append(record)
    return runs, skipped, failed


def view_runs(runs, view):
    """The runs of a view: planned runs, or trusted runs replacing the planned ones they have."""
    planned = {(r["config"], r["strategy"], r["model"]): r for r in runs if r["variant"] == "planned"}
    if view == "planned":
        return list(planned.values())
    chosen = dict(planned)
    for r in runs:
        if r["variant"] == "trusted":
            chosen[(r["config"], r["strategy"], r["model"])] = r
    return list(chosen.values())


def rank_pairs(runs):
    """(config, model) -> {strategy: run}, for pairs with at least two strategies."""
    groups = defaultdict(dict)
    for r in runs:
        groups[(r["config"], r["model"])][r["strategy"]] = r
    return {k: v for k, v in sorted(groups.items()) if len(v) >= 2}


SWAP_CAUSES = {
    "tie": "near tie: less than 5 % apart in the replay",
    "model": "the formulas misprice one (a term left out, or overcharged): the closed form (no contention) already orders them as the replay",
    "contention": "contention: the closed form keeps the predicted order, only SimGrid's shared links reverse it",
}


def swap_cause(a, b):
    """Why a (faster by prediction) is slower than b in the replay: 'tie', 'model' or 'contention'."""
    if abs(a["simulated"] / b["simulated"] - 1) < 0.05:
        return "tie"
    return "model" if a["closed"] > b["closed"] else "contention"


def swapped_pairs(exceptions):
    """(config, model, a, b, runs) for every pair of strategies whose order differs, a before b by prediction."""
    for (config, model), g, by_pred, by_sim in exceptions:
        for i, a in enumerate(by_pred):
            for b in by_pred[i + 1:]:
                if by_sim.index(a) > by_sim.index(b):
                    yield config, model, a, b, g


def why_swapped(a, b):
    """One line explaining why strategies a and b rank differently by prediction and simulation."""
    parts = []
    gap = abs(a["simulated"] / b["simulated"] - 1)
    if gap < 0.05:
        parts.append(f"near tie in the replay ({100 * gap:.1f} % apart)")
    for r in (a, b):
        part = (f"{r['strategy']}: predicted {1e3 * r['predicted']:.3g} ms, closed form {1e3 * r['closed']:.3g} ms "
                f"({100 * (r['closed'] / r['predicted'] - 1):+.0f} %: what the model leaves out), simulated "
                f"{1e3 * r['simulated']:.3g} ms ({100 * (r['simulated'] / r['closed'] - 1):+.0f} %: contention")
        if r["links"] and r["simulated"] > 1.05 * r["closed"]:
            part += f" on {r['links'][0][0]}, {100 * r['links'][0][1]:.0f} % busy"
        part += ")"
        if r["warnings"]:
            part += "; simplan warned: " + ", ".join(r["warnings"])
        parts.append(part)
    return "; ".join(parts)


def ties_only(g):
    """Whether every pair of strategies the prediction orders otherwise than the replay is a near tie."""
    by_pred = ranking({s: r["predicted"] for s, r in g.items()})
    by_sim = ranking({s: r["simulated"] for s, r in g.items()})
    return all(swap_cause(g[a], g[b]) == "tie" for a_i, a in enumerate(by_pred) for b in by_pred[a_i + 1:]
               if by_sim.index(a) > by_sim.index(b))


def agreement(rs, error_cell=None):
    """Table cells for runs: Pearson r, r of the logarithms, [error_cell,] same ranking x of y, and the
    same allowing near ties (strategies less than 5 % apart in the replay in either order)."""
    pred, sim = [r["predicted"] for r in rs], [r["simulated"] for r in rs]
    pairs = rank_pairs(rs)
    same = sum(ranking({s: r["predicted"] for s, r in g.items()}) ==
               ranking({s: r["simulated"] for s, r in g.items()}) for g in pairs.values())
    cells = [f"{pearson(pred, sim):.4f}", f"{log_pearson(pred, sim):.4f}"]
    cells += [error_cell] if error_cell is not None else []
    return " | ".join(cells + [f"{same} of {len(pairs)}", f"{sum(ties_only(g) for g in pairs.values())} of {len(pairs)}"])


def summary(runs):
    print("## Summary\n")
    print("Over all runs of a view: Pearson r of predicted vs simulated iteration time (linear and of the")
    print("logarithms), mean |simulated / predicted - 1|, and in how many (platform, workload) pairs the")
    print("strategies rank the same by prediction as by simulation (fastest first); *up to ties*: the same,")
    print("except for strategies less than 5 % apart in the replay.\n")
    print("| view | runs | Pearson r | Pearson r (log) | mean abs error | same ranking | same up to ties |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for view in VIEWS:
        rs = view_runs(runs, view)
        if rs:
            err = sum(abs(r["simulated"] / r["predicted"] - 1) for r in rs) / len(rs)
            print(f"| {VIEW_TITLE[view]} | {len(rs)} | {agreement(rs, f'{100 * err:.1f} %')} |")
    print()
    print("Per platform:\n")
    print("| platform | view | runs | Pearson r | Pearson r (log) | same ranking | same up to ties |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for config in sorted({r["config"] for r in runs}):
        for view in VIEWS:
            rs = [r for r in view_runs(runs, view) if r["config"] == config]
            if rs:
                print(f"| {config} | {VIEW_TITLE[view]} | {len(rs)} | {agreement(rs)} |")
    print()


def spread(values):
    """'a .. b %' of a list of fractions."""
    return f"{100 * min(values):+.1f} .. {100 * max(values):+.1f} %"


def where_the_error_comes_from(runs):
    """simulated / predicted = closed / predicted x simulated / closed (both evaluators time the same
    lowered program, DESIGN.md principle 1), as ranges per platform and view."""
    print("## Where the error comes from\n")
    print("simulated / predicted = closed / predicted x simulated / closed: the first factor is the lowered")
    print("program against the planner's formulas (what the model leaves out: the device model's compute,")
    print("link latency, the lowering's real collectives), the second is contention, which only SimGrid")
    print("sees. Ranges over the runs of each platform:\n")
    print("| platform | view | strategies | runs | closed vs predicted | simulated vs closed | simulated vs predicted |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for config in sorted({r["config"] for r in runs}):
        for view in VIEWS:
            rs = [r for r in view_runs(runs, view) if r["config"] == config]
            if rs:
                print(f"| {config} | {VIEW_TITLE[view]} | {', '.join(sorted({r['strategy'] for r in rs}))} | "
                      f"{len(rs)} | {spread([r['closed'] / r['predicted'] - 1 for r in rs])} | "
                      f"{spread([r['simulated'] / r['closed'] - 1 for r in rs])} | "
                      f"{spread([r['simulated'] / r['predicted'] - 1 for r in rs])} |")
    print()


def left_out(failed):
    """Per (platform, workload): the strategies whose run failed, so that no ranking leaves one out
    silently (a timeout said as one)."""
    out = defaultdict(set)
    for f in failed:
        why = ("timeout" if timed_out(f["why"])
               else "over the memory limit" if "memory limit" in f["why"] else "failed")
        out[(f["config"], f["model"])].add(f"{f['strategy']} ({why})")
    return {key: ", ".join(sorted(v)) for key, v in out.items()}


def rankings(runs, failed=()):
    print("## Do the strategies rank the same?\n")
    print("Per (platform, workload), fastest first. A trusted plan that places every layer as the planned")
    print("one shares its replay, so the simulation order is the same in both views unless marked.")
    print("Where transfers contend, one replay is one draw of a chaotic system: compute times jittered by")
    print("1e-6 moved one plan's simulated time over a range of 8 % (tpu_v2v3_256, resnet50: 86.5-93.3 ms")
    print("over six draws; docs/model.md, \"Chaotic plans, and the resampling\"), so strategies a few")
    print("percent apart there are not ordered by the replay; *same up to ties* (Summary) allows 5 %.\n")
    missing = left_out(failed)
    if missing:
        print("*Not ranked* names the strategies whose plan or replay failed for that pair (section Failed).\n")
    print("| platform | workload | by prediction (as planned) | same | by prediction (trusted) | same | "
          "by simulation |" + (" not ranked |" if missing else ""))
    print("| --- | --- | --- | --- | --- | --- | --- |" + (" --- |" if missing else ""))
    planned, trusted = rank_pairs(view_runs(runs, "planned")), rank_pairs(view_runs(runs, "trusted"))
    exceptions = []
    for key in sorted(set(planned) | set(trusted)):
        cells = []
        sim_orders = []
        for view, pairs in (("planned", planned), ("trusted", trusted)):
            g = pairs.get(key)
            if not g:
                cells += ["", ""]
                continue
            by_pred = ranking({s: r["predicted"] for s, r in g.items()})
            by_sim = ranking({s: r["simulated"] for s, r in g.items()})
            sim_orders.append(by_sim)
            cells += [" < ".join(by_pred), "yes" if by_pred == by_sim else "**no**"]
            if view == "trusted" and by_pred != by_sim:
                exceptions.append((key, g, by_pred, by_sim))
        sim_cell = " < ".join(sim_orders[-1]) if sim_orders else ""
        if len(sim_orders) == 2 and sim_orders[0] != sim_orders[1]:
            sim_cell = f"{' < '.join(sim_orders[0])} (trusted: {sim_cell})"
        print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + f" | {sim_cell} |" +
              (f" {missing.get(key, '')} |" if missing else ""))
    print()
    unranked = sorted(key for key in missing if key not in planned and key not in trusted)
    if unranked:
        replayed = defaultdict(set)
        for r in runs:
            replayed[(r["config"], r["model"])].add(r["strategy"])
        print("Pairs left out of the table because fewer than two strategies replayed (section Failed):\n")
        for key in unranked:
            print(f"- {key[0]}, {key[1]}: replayed {', '.join(sorted(replayed[key])) or 'none'}; failed {missing[key]}")
        print()
    if not exceptions:
        if trusted:
            print("With the trusted option the ranking by prediction agrees with the simulation in every pair.\n")
        return
    print("### Why the trusted ranking still differs\n")
    print("Every pair of strategies whose order differs (a before b by prediction, after it in the replay)")
    print("has one of three causes, told apart by the closed form of the same lowered programs:\n")
    counts = defaultdict(lambda: [0, 0])
    for config, model, a, b, g in swapped_pairs(exceptions):
        cause = swap_cause(g[a], g[b])
        counts[cause][0] += 1
        counts[cause][1] += bool(g[a]["warnings"])
    print("| cause | swapped pairs | simplan warned about the one predicted faster |")
    print("| --- | ---: | ---: |")
    for cause, text in SWAP_CAUSES.items():
        n, warned = counts[cause]
        print(f"| {text} | {n} | {warned} |")
    print()
    print("Each pair below: both strategies' prediction, closed form (its gap to the prediction is what")
    print("the model leaves out) and simulation (its gap to the closed form is contention), the busiest")
    print("link and simplan's warnings.\n")
    current = None
    for config, model, a, b, g in swapped_pairs(exceptions):
        if (config, model) != current:
            current = (config, model)
            print(f"- **{config}, {model}**:")
        cause = {"tie": "near tie", "model": "the formulas misprice", "contention": "contention"}[swap_cause(g[a], g[b])]
        print(f"  - {a} before {b} by prediction, after it in the replay ({cause}): {why_swapped(g[a], g[b])}.")
    print()


def contention(runs):
    rs = [r for r in view_runs(runs, "planned") if r["simulated"] > 1.05 * r["closed"]]
    print("## Contention and hot spots\n")
    print("Runs whose replay is more than 5 % slower than the uncontended closed form of the same program,")
    print("with the links busiest in the replay (busy: some transfer in flight; used: bytes / (bandwidth x")
    print("iteration)). Platforms in the order of the table below, then the largest contention first.\n")
    if not rs:
        print("None.\n")
        return
    print("| platform | strategy | workload | closed [ms] | simulated [ms] | contention | busiest links |")
    print("| --- | --- | --- | ---: | ---: | ---: | --- |")
    for r in sorted(rs, key=lambda r: (r["config"], -r["simulated"] / r["closed"], r["strategy"], r["model"])):
        print(f"| {r['config']} | {r['strategy']} | {r['model']} | {1e3 * r['closed']:.3f} | "
              f"{1e3 * r['simulated']:.3f} | {100 * (r['simulated'] / r['closed'] - 1):+.1f} % | "
              f"{links_text(r['links'])} |")
    print()


def every_run(runs):
    print("## Every run\n")
    print("*closed vs pred.* is the planner-vs-program part of the error (what the model leaves out),")
    print("*sim. vs closed* the contention part; *warnings* are the terms simplan said the prediction")
    print("misses (sim/planners/prediction_check.hpp). A run marked * shares the replay of another run with the same shardings and\n"
          "schedule, hence the same Program (a trusted run: its planned run's).\n")
    print("| platform | strategy | workload | view | predicted [ms] | closed [ms] | simulated [ms] | error | "
          "closed vs pred. | sim. vs closed | utilization | busiest link | warnings |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for r in sorted(runs, key=lambda r: (r["config"], r["model"], r["strategy"], r["variant"])):
        link = f"{r['links'][0][0]} {100 * r['links'][0][1]:.0f} %" if r["links"] else ""
        print(f"| {r['config']} | {r['strategy']} | {r['model']} | {VIEW_TITLE[r['variant']]}"
              f"{'*' if r['shared'] else ''} | {1e3 * r['predicted']:.3f} | {1e3 * r['closed']:.3f} | "
              f"{1e3 * r['simulated']:.3f} | {100 * (r['simulated'] / r['predicted'] - 1):+.1f} % | "
              f"{100 * (r['closed'] / r['predicted'] - 1):+.1f} % | {100 * (r['simulated'] / r['closed'] - 1):+.1f} % | "
              f"{r['utilization']:.3f} | {link} | {', '.join(r['warnings'])} |")
    print()


SEARCH = "search"  # issue 44's strategy: seeded with the papers' plans, priced by the replay's model


def search_column(search, papers, bounds=None, checks=()):
    """The `search` strategy beside the papers' strategies per (platform, workload): its prediction
    error, and its gain over dp and over the best paper strategy in the replay (either view); where
    a paper strategy was not replayed, its replay lower bound against the search (`bounds`), and the
    bounds of replayed runs against their replays (`checks`)."""
    if not search:
        return
    print("## The search strategy\n")
    print("`search` (docs/model.md \"The `search` strategy\") starts from every paper strategy's plan and")
    print("prices its candidates with partsim's lowering and the flow evaluator (the replay's network model),")
    print("so it is kept out of the papers' statistics above and shown here: its error (simulated / predicted")
    print("- 1), and *gain* = the other's simulated time / search's (above 1: search is faster). *best paper*")
    print("is the fastest of the other strategies in the replay, planned or trusted. *took* is the search's")
    print("own clock (the plan's `family.elapsed_s`: its seeds and its walk; the process adds the loading of")
    print("the workload and the writing of the plan), while another run of the matrix shared the machine.\n")
    print("| platform | workload | search predicted [ms] | search simulated [ms] | error | took [s] | dp [ms] | "
          "gain over dp | best paper [ms] | best paper | gain over best |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    not_worse = within = alone = 0
    gains_dp, gains_best, worst = [], [], None
    for r in sorted(search, key=lambda r: (r["config"], r["model"])):
        others = [o for o in papers if (o["config"], o["model"]) == (r["config"], r["model"])]
        dp = [o["simulated"] for o in others if o["strategy"] == "dp" and o["variant"] == "planned"]
        best = min(others, key=lambda o: o["simulated"]) if others else None
        err = r["simulated"] / r["predicted"] - 1
        within += abs(err) <= 0.05
        alone += best is None
        not_worse += best is not None and r["simulated"] <= best["simulated"]
        gains_dp += [dp[0] / r["simulated"]] if dp else []
        gains_best += [best["simulated"] / r["simulated"]] if best else []
        if worst is None or abs(err) > abs(worst[0]):
            worst = (err, r)
        dp_cells = f"{1e3 * dp[0]:.3f} | {dp[0] / r['simulated']:.3f}x" if dp else " | "
        best_cells = (f"{1e3 * best['simulated']:.3f} | {best['strategy']} | {best['simulated'] / r['simulated']:.3f}x"
                      if best else " |  | ")
        took = f"{r['elapsed_s']:.1f}" if "elapsed_s" in r else ""
        print(f"| {r['config']} | {r['model']} | {1e3 * r['predicted']:.3f} | {1e3 * r['simulated']:.3f} | "
              f"{100 * err:+.2f} % | {took} | {dp_cells} | {best_cells} |")
    print(f"\nsearch is at most the best paper strategy's simulated time in {not_worse} of {len(search) - alone} pairs"
          + (f" ({alone} where no other strategy replayed left out)" if alone else "") + ", and")
    print(f"its prediction within 5 % of its simulated time in {within} of {len(search)} (largest "
          f"{100 * worst[0]:+.2f} %, {worst[1]['config']} {worst[1]['model']}).")
    crosscheck_bounds.bounded_pairs(search, bounds or {})
    crosscheck_bounds.bound_check(checks)
    for name, gains in (("dp", gains_dp), ("the best paper strategy", gains_best)):
        if gains:
            pairs = f"{len(gains)} pair" + ("" if len(gains) == 1 else "s")
            print(f"Gain over {name}: geometric mean {statistics.geometric_mean(gains):.3f}x over {pairs} "
                  f"(from {min(gains):.3f}x to {max(gains):.3f}x).")
    took = sorted(r["elapsed_s"] for r in search if "elapsed_s" in r)
    if took:
        bins = [sum(lo <= t < lo + 10 for t in took) for lo in range(0, 50, 10)] + [sum(50 <= t <= 60 for t in took)]
        print(f"The search took {took[0]:.1f} / {statistics.median(took):.1f} / {took[-1]:.1f} s (least / median / "
              f"greatest), within 60 s in {sum(t <= 60 for t in took)} of {len(took)}; per 10 s from 0 to 60 s: "
              f"{', '.join(map(str, bins))}, over 60 s: {sum(t > 60 for t in took)}.")
    print()


def timed_out(why):
    """A .failed line of a simplan or simrun call that `timeout` ended (exit 124)."""
    return "did not finish" in why or " exit 124" in why


def failure_text(why):
    """A run's .failed line; `timeout`'s exit 124 said as what it is (older sittings wrote the log's last line)."""
    for program in ("simplan", "simrun"):
        if why.startswith(f"{program} exit 124:") and "did not finish" not in why:
            return f"{program} did not finish within PARTSIM_CROSSCHECK_TIMEOUT (timeout, exit 124)"
    return why


# How simplan says a plan does not fit a device's memory (sim/plan/memory_use.hpp kPlanDoesNotFit).
PLAN_DOES_NOT_FIT = "the plan does not fit"


def over_memory(skipped):
    """The refusals that are plans over a device's memory: plans that could not run, not errors."""
    return [s for s in skipped if PLAN_DOES_NOT_FIT in s["why"]]


def not_run(skipped, failed):
    too_big = over_memory(skipped)
    skipped = [s for s in skipped if s not in too_big]
    if too_big:
        print("## Over memory (refused)\n")
        print("These plans do not fit a device's memory by the footprint model (docs/model.md, \"Memory")
        print("footprint\": weights, gradients and Adam states at 18 B per parameter, activations kept for the")
        print("backward pass, working buffers), so simplan refused them and they are not timed as if they could")
        print("run. The papers' planners do not model memory; `simplan --allow-over-memory` replays such a plan")
        print("all the same.\n")
        print("| platform | strategy | workload | view | device, capacity and footprint |")
        print("| --- | --- | --- | --- | --- |")
        for s in too_big:
            why = s["why"].split(PLAN_DOES_NOT_FIT + ": ", 1)[-1].split("; model states:")[0]
            print(f"| {s['config']} | {s['strategy']} | {s['model']} | {s['variant']} | {why} |")
        print()
    if skipped:
        print("## Not accepted (skipped)\n")
        print("simplan refused these (exit 2); the reason, one line per strategy and reason (numbers that differ "
              "between the runs, such as sizes and counts, shown as N):\n")
        grouped = defaultdict(list)
        for s in skipped:
            reason = s["why"].replace(s["config"], "CONFIG").replace(s["model"], "WORKLOAD")
            reason = re.sub(r"(?<![\w.])(?<!eq\. )\d+(\.\d+)?(e[+-]?\d+)?(?![\w.])", "N", reason)
            grouped[(s["strategy"], reason)].append(f"{s['config']}/{s['model']}")
        for (strategy, reason), where in sorted(grouped.items()):
            print(f"- **{strategy}** ({len(where)}: {', '.join(sorted(where))}): `{reason}`")
        print()
    if failed:
        print("## Failed\n")
        if any("simrun exit 124" in f["why"] for f in failed):
            print("A simrun timeout is the replay, not the plan: SimGrid re-solving k(k - 1) point-to-point transfers of")
            print("a redistribution between layers over many shared torus links. The cross-check keeps the default")
            print("(`point_to_point`) everywhere so that the matrix compares like with like; planned with")
            print("`simplan --redistribution collective`, such a redistribution runs as an all-gather or reduce-scatter")
            print("and the same owt bert_large replay on 256 chips takes about a second (docs/model.md, \"The sharding")
            print("lowering\").\n")
        for f in failed:
            print(f"- {f['config']} {f['strategy']} {f['model']} ({f['variant']}): `{failure_text(f['why'])}`")
        print()


def coverage(work):
    """What the work directory holds, from its files (a matrix run in several sittings holds more than the
    last sitting asked for), and which shipped platforms (configs/*.yaml) it has no run of yet."""
    names = crosscheck_records.run_names(work)
    fields = [n.split("__") for n in names if n.count("__") == 3]
    if not fields:
        return
    platforms, strategies, models, variants = (sorted({f[i] for f in fields}) for i in range(4))
    print(f"This report holds {len(names)} (platform, strategy, workload, view) runs: platforms "
          f"{', '.join(platforms)}; workloads {', '.join(models)}; strategies {', '.join(strategies)}; "
          f"views {', '.join(variants)}.", end="")
    shipped = sorted(os.path.basename(p)[: -len(".yaml")] for p in glob.glob(os.path.join(CONFIGS, "*.yaml")))
    missing = [p for p in shipped if p not in platforms]
    # A platform of a finished sitting has a planned run (replayed, refused or failed) of every
    # strategy for every workload; fewer means its sitting was stopped part way.
    planned = defaultdict(int)
    for f in fields:
        planned[f[0]] += f[3] == "planned"
    partly = [f"{p} ({planned[p]} of {len(strategies) * len(models)})" for p in platforms
              if planned[p] < len(strategies) * len(models)]
    if missing or partly:
        print(" **A partial matrix**:", end="")
        if missing:
            print(f" no run yet on {', '.join(missing)};", end="")
        if partly:
            print(f" part of the planned runs on {', '.join(partly)};", end="")
        # Strategies redone by another build: resuming keeps the others' runs only when it redoes them too.
        redone = list(crosscheck_records.versions(work)[1])
        quoted = " ".join(redone) if len(redone) == 1 else '"' + " ".join(redone) + '"'
        redo = f" PARTSIM_CROSSCHECK_REDO={quoted}" if redone else ""
        print(f" `PARTSIM_CROSSCHECK_RESUME=1{redo} scripts/crosscheck.sh` adds what is missing.", end="")
    subset = os.environ.get("PARTSIM_CROSSCHECK_SUBSET", "")
    if subset:
        print(f" The last sitting asked for: {subset}.", end="")
    print(f" The full matrix (every platform, strategy and workload above, both views) is `{FULL_COMMAND}`;"
          " it takes hours on 2 cores.\n")


def main():
    work, granularity = sys.argv[1], sys.argv[2]
    runs, skipped, failed = load(work)
    print("# Cross-check: planner predictions against the SimGrid replay, across the matrix\n")
    print("Generated by `scripts/crosscheck.sh` (do not edit): every strategy of `simplan --list-strategies`")
    print("on every shipped platform that accepts it, planned with `simplan`, lowered and replayed with")
    print(f"`simrun --plan` at {granularity} granularity. *closed* is the lowered program timed without")
    print("contention; *simulated* is SimGrid (its max-min model for the transfers that share links, lone")
    print("ones timed as it times a lone flow: `simrun --lone-transfers timed`, docs/model.md); error =")
    print("simulated / predicted - 1. The *trusted* view plans the strategies that have a trusted-model")
    print("option with it (the AccPar family's `compute=device`, docs/model.md) and keeps the others as")
    print("planned.\n")
    if os.environ.get("PARTSIM_CROSSCHECK_SYNC", "in_order") == "in_order":
        print("Training plans of the strategies on the shared sharding lowering synchronise gradients as")
        print("PyTorch DDP, NCCL and XLA do (`simplan --gradient-sync-order in_order --gradient-bucket 25MB`):")
        print("each device takes part in one all-reduce at a time, in backward order, with consecutive layers'")
        print("gradients fused into 25 MB buckets (docs/model.md, \"Speed and memory\"). dsm plans have a lowering")
        print("of their own and keep theirs. `PARTSIM_CROSSCHECK_SYNC=concurrent` starts every layer's")
        print("all-reduce as soon as its gradient exists instead (simplan's default).\n")
    else:
        print("Every layer's gradient all-reduce starts as soon as its gradient exists (simplan's default,")
        print("`PARTSIM_CROSSCHECK_SYNC=concurrent`).\n")
    print("Every run's numbers, one JSON line each, are in `docs/data/crosscheck_runs.jsonl`")
    print("(`scripts/crosscheck_records.py`: the file sittings on other machines resume from).\n")
    coverage(work)
    began, redone = crosscheck_records.versions(work)
    if began:
        print(f"Built from: {began}." + "".join(f" {s}'s runs redone with {b}." for s, b in redone.items()), end="")
    # Runs kept from the records of earlier sittings (crosscheck_records.py import): each one's build.
    recorded = crosscheck_records.recorded(work)
    present = {r["name"] for r in runs + skipped + failed}
    count = defaultdict(int)
    for name, build in recorded.items():
        count[build] += name in present
    if sum(count.values()):
        print(f" With a build of their own (`docs/data/crosscheck_runs.jsonl`, each record's `build`: runs kept "
              f"from the records of earlier sittings, with the same settings and builds whose sources differ from "
              f"this one only in files that cannot change a run, or strategies not redone; and runs made again "
              f"here with a later build): " + "; ".join(f"{n} runs by {b}" for b, n in sorted(count.items()) if n)
              + ".", end="")
    print("\n")
    too_big = len(over_memory(skipped))
    print(f"**{len(runs)} runs replayed, {too_big} over memory (refused), {len(skipped) - too_big} not accepted "
          f"otherwise, {len(failed)} failed.**\n")
    if not runs:
        not_run(skipped, failed)
        return
    search = [r for r in runs if r["strategy"] == SEARCH]
    runs = [r for r in runs if r["strategy"] != SEARCH]
    summary(runs)
    where_the_error_comes_from(runs)
    rankings(runs, failed)
    search_column(search, runs, *crosscheck_bounds.load_bounds(runs))
    contention(runs)
    every_run(runs + search)
    not_run(skipped, failed)


if __name__ == "__main__":
    main()
