"""What the Megatron-LM report reads and how it writes numbers: the work directory
scripts/reproduce_megatron.sh fills (Work), one transformer layer's time read from a plan
(block_times), and the errors' formats. Imported by megatron_report.py, megatron_k22.py and
megatron_n21.py.
"""
import json
import os

GIB = 2**30


def block_times(plan):
    """One transformer layer of a megatron plan per micro-batch and GPU, from its per-layer rows
    (docs/plan-format.md: a layer's predicted total is m x its compute, the block's TP collectives on
    its attention layer, recomputation apart in family.prediction.recompute_s): (forward, backward
    with recomputation). Forward = the block's forward compute + its forward TP collectives; with
    full recomputation the block's forward compute is recompute_s / L."""
    fam = plan["family"]
    m, L = fam["micro_batches"], fam["shape"]["layers"]
    q = fam["prediction"]
    layers_per_pipeline = L // fam["pp"]
    total = sum(lp["predicted"]["total_s"] for lp in plan["layers"] if lp.get("family", {}).get("block") == 0) / m
    recompute = q["recompute_s"] / layers_per_pipeline
    tp_f = q["tp_forward_s"] / layers_per_pipeline
    if fam["recompute"] == "full":
        fwd = recompute + tp_f
        return fwd, total + recompute - fwd
    return None, total + recompute


def pct(x, ref):
    return (x - ref) / ref


def fmt_pct(e, aim=None):
    s = f"{100 * e:+.1f} %"
    return f"**{s}**" if aim is not None and abs(e) > aim else s


def pct_range(values):
    lo, hi = min(values), max(values)
    return f"{100 * lo:+.1f} %" if round(100 * lo, 1) == round(100 * hi, 1) else f"{100 * lo:+.1f} % to {100 * hi:+.1f} %"


class Work:
    def __init__(self, path):
        self.path = path

    def json(self, run, kind):
        p = os.path.join(self.path, f"{run}.{kind}.json")
        if not os.path.exists(p):
            return None
        with open(p) as f:
            return json.load(f)

    def text(self, name, default=""):
        p = os.path.join(self.path, name)
        if not os.path.exists(p):
            return default
        with open(p) as f:
            return f.read().strip()

    def seconds(self, run):
        """{'simplan': s, 'simrun': s} from <run>.seconds (lines 'tool seconds')."""
        out = {}
        for line in self.text(f"{run}.seconds").splitlines():
            tool, s = line.split()
            out[tool] = float(s)
        return out

