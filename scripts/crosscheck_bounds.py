"""The replay lower bounds in the cross-check report (scripts/crosscheck_report.py imports it): the
bounds scripts/replay_bounds.sh wrote (docs/data/replay_bounds.jsonl, or PARTSIM_CROSSCHECK_BOUNDS),
set against the search's simulated time where a paper strategy's replay was not made, and against
their own replays where it was (docs/model.md "The replay lower bound")."""
import json
import os
import statistics
from collections import defaultdict

BOUNDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "data", "replay_bounds.jsonl")


def load_bounds(runs):
    """Lower bounds on replays (scripts/replay_bounds.sh): per (platform, workload), those of runs not
    replayed in the work directory; and, for the runs that were, (bound, the replay's time, name)."""
    path = os.environ.get("PARTSIM_CROSSCHECK_BOUNDS", BOUNDS)
    if not os.path.exists(path):
        return {}, []
    replayed = {(r["config"], r["strategy"], r["model"]) for r in runs}
    simulated = {r["name"]: r["simulated"] for r in runs}
    bounds, checks = defaultdict(list), []
    with open(path) as f:
        for line in f:
            if line.strip():
                b = json.loads(line)
                if b.get("name") in simulated:
                    checks.append((b["bound_s"], simulated[b["name"]], b["name"]))
                elif (b["config"], b["strategy"], b["model"]) not in replayed:
                    bounds[(b["config"], b["model"])].append(b)
    return bounds, checks


def bound_check(checks):
    """The bounds of replayed runs against their replays: none may be above (SimGrid meets the links'
    constraints to 1e-5 relative, docs/model.md "The replay lower bound")."""
    if not checks:
        return
    ratios = sorted(bound / simulated for bound, simulated, _ in checks)
    above = [f"{name} ({bound:.6g} s against {simulated:.6g} s)" for bound, simulated, name in checks
             if bound > simulated * (1 + 1e-5)]
    print(f"As a check, the same script bounds {len(checks)} replayed run{'s' if len(checks) > 1 else ''}: the bound is "
          + (f"**above the replay** on {len(above)}: {'; '.join(above)}" if above else "at most the replay on every one")
          + f" (bound / simulated from {ratios[0]:.3f} to {ratios[-1]:.3f}, median {statistics.median(ratios):.3f}; "
          f"0.99 or more on {sum(x >= 0.99 for x in ratios)}, under 0.9 on {sum(x < 0.9 for x in ratios)}).")


def bounded_pairs(search, bounds):
    """Where a paper strategy's replay was not made: whether its lower bound is above the search's
    simulated time (then the search is at most the best strategy there whatever that replay gives)."""
    above, not_above, prefixed = [], [], False
    for r in sorted(search, key=lambda r: (r["config"], r["model"])):
        for b in sorted(bounds.get((r["config"], r["model"]), []), key=lambda b: b["strategy"]):
            # A bound after a replayed prefix (replay_bounds.sh CONFIG:STRATEGY:WORKLOAD:S) says so.
            prefixed = prefixed or "replayed_prefix_s" in b
            prefix = (f" (after replaying its first {1e3 * b['replayed_prefix_s']:g} ms; the bound alone "
                      f"{1e3 * b['bound_alone_s']:.1f} ms)" if "replayed_prefix_s" in b else "")
            text = (f"{b['config']} {b['model']}: {b['strategy']} at least {1e3 * b['bound_s']:.1f} ms{prefix}, search "
                    f"{1e3 * r['simulated']:.1f} ms")
            (above if b["bound_s"] > r["simulated"] else not_above).append(text)
    if not above and not not_above:
        return
    count = len(above) + len(not_above)
    print(f"{count} paper strategy run{'s' if count > 1 else ''} on these pairs {'were' if count > 1 else 'was'} not "
          "replayed (more time or memory than this machine has); `scripts/replay_bounds.sh` bounds each replay from "
          "below without simulating (`docs/data/replay_bounds.jsonl`; docs/model.md \"The replay lower bound\": no replay of "
          "the plan can be faster)" + (", or after replaying a first part of it, from where that replay is "
                                       "(\"After a replayed prefix\")" if prefixed else "") + ".", end="")
    if above:
        print(f" The bound is above the search's simulated time on {len(above)}, so the search is at most the "
              f"best strategy there whatever that replay would give: {'; '.join(above)}.", end="")
    if not_above:
        print(f" It is not on {len(not_above)}, which {'stay' if len(not_above) > 1 else 'stays'} unsettled: "
              f"{'; '.join(not_above)}.", end="")
    print()
