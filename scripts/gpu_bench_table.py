"""The files scripts/gpu_microbench.py writes and their schema: OUT/<table>.yaml (the efficiency rows of
partsim's calibrated device), OUT/<table>_gpt3_block.yaml (the GPT-3 layer's operators, a validation set)
and the closing summary and self-check (TableFiles, a part of gpu_bench_kernels.Bench). Imported once
PyTorch has imported (gpu_microbench.main)."""
import json
import os
import statistics
import sys

import torch

try:
    import yaml
except ImportError:
    yaml = None

OPS = ["gemm", "conv", "attention", "flash_attention", "normalization", "softmax", "elementwise", "embedding",
       "optimizer"]
COMPUTE_OPS = {"gemm", "conv", "attention", "flash_attention"}  # size in FLOP; the others in bytes
PRECS, PASSES = ["bf16", "fp16", "fp32"], ["fwd", "bwd"]


def flow(d):
    """One-line YAML flow collection: PyYAML when present, else JSON (which YAML 1.2 reads)."""
    if yaml is not None:
        return yaml.safe_dump(d, default_flow_style=True, sort_keys=False, width=10**9).strip()
    return json.dumps(d)


def num(x):
    """A float that YAML 1.1 and 1.2 parsers both read as a float: repr, with '.0' before a bare exponent."""
    r = repr(float(x))
    return r.replace("e", ".0e") if "e" in r and "." not in r else r


class TableFiles:
    """Writing and checking the two files (a mixin of gpu_bench_kernels.Bench: self.rows, self.block, ...)."""

    def measured(self):
        return dict(date=self.date, gpu=self.name, driver=self.info.get("driver", "n/a"), torch=str(torch.__version__),
                    cuda=str(torch.version.cuda), cudnn=str(torch.backends.cudnn.version()),
                    cublas=self.info.get("cublas", "n/a"), **self.ceil, script="scripts/gpu_microbench.py", dry_run=self.dry,
                    timing="CUDA graph replays of back-to-back calls where capture works, else eager back-to-back "
                           "calls; each row's shape says which")

    def write(self, final=False):
        """Both files, complete or (before the end) marked PARTIAL; returns the GPT-3 layer's totals."""
        made = [f"# Made by: python3 {' '.join(sys.argv)}", "# Method and counting: the docstring of scripts/gpu_microbench.py."]
        tail = ([] if final else ["# PARTIAL: written before the run had finished"])
        with self.lock:
            rows = sorted(self.rows, key=lambda r: (OPS.index(r["op"]), PRECS.index(r["precision"]),
                                                    PASSES.index(r["pass"]), r["size"]))
            pk = self.peaks
            lines = ["# partsim calibrated-device efficiency table: achieved efficiency = size / median time / peak, by "
                     "operator class, precision and pass; size = FLOP (gemm, conv, attention, flash_attention) or bytes "
                     "(the others). Kernel-level measurements, never fitted to end-to-end training times."] + made + [
                f"table: {self.table}", f"device: {json.dumps(self.name)}",
                "peaks:   # the denominators of every efficiency below (datasheet, dense)",
                f"  fp32: {num(pk['fp32'])}   # FLOP/s, TF32 dense (fp32 rows: fp32 tensors on TF32 tensor cores)",
                f"  fp16: {num(pk['fp16'])}   # FLOP/s, FP16/BF16 dense (fp16 and bf16 rows)",
                f"  memory_bandwidth: {num(pk['memory_bandwidth'])}   # bytes/s, HBM",
                f"  source: {json.dumps(pk['source'])}", f"measured: {flow(self.measured())}", "rows:"]
            lines += [f"  - {flow(r)}" for r in rows] + tail
            lines += [f"# skipped: {s}" for s in self.skipped] + [f"# failed: {s}" for s in self.failed]
            lines += [f"# eager timing (graph capture or replay failed): {s}" for s in self.eager_fallbacks]
            totals = {}
            for o in self.block:
                if o["name"] != "rmsnorm_reference":
                    totals[(o["tp"], o["pass"])] = totals.get((o["tp"], o["pass"]), 0.0) + o["time_s"]
            blk = ["# partsim validation set: the operators of one GPT-3 175B transformer layer measured as they run, "
                   "fwd and bwd, bf16, unsharded (tp=1) and as a tensor-parallel shard (tp=8). NOT efficiency-table rows: "
                   "compared with partsim's prediction. time_s = median seconds per call, of CUDA graph replays where "
                   "the shape ends in [graph], else of eager calls; time_s_eager = the eager median; flop and bytes by "
                   "the table's conventions (gemm bytes: operands + result of each product)."] + made + [
                f"table: {self.table}", "kind: gpt3_175b_layer", f"device: {json.dumps(self.name)}",
                f"model: {flow(self.model)}", f"measured: {flow(self.measured())}", "ops:"]
            blk += [f"  - {flow(o)}" for o in self.block]
            blk += ["totals:   # sum of time_s over the layer's ops, rmsnorm_reference excluded"]
            blk += [f"  - {flow(dict(tp=k[0], **{'pass': k[1]}, time_s=float(f'{v:.6g}')))}" for k, v in sorted(totals.items(), key=lambda kv: (kv[0][0], PASSES.index(kv[0][1])))]
            blk += [f"not_measured: {flow([s for s in self.skipped + self.failed if s.startswith('gpt3')])}"] + tail
            for path, text in ((f"{self.table}.yaml", lines), (f"{self.table}_gpt3_block.yaml", blk)):
                with open(os.path.join(self.a.out, path), "w") as f:
                    f.write("\n".join(text) + "\n")
            return totals

    def summary(self, totals):
        groups = {}
        for r in self.rows:
            groups.setdefault((r["op"], r["precision"], r["pass"]), []).append(r)
        self.log(f"{'op':16s}{'prec':5s}{'pass':5s}{'n':>3s}  {'size min .. max':>20s}   efficiency min / median / max")
        for k in sorted(groups, key=lambda k: (OPS.index(k[0]), PRECS.index(k[1]), PASSES.index(k[2]))):
            g, e = groups[k], [r["efficiency"] for r in groups[k]]
            self.log(f"{k[0]:16s}{k[1]:5s}{k[2]:5s}{len(g):3d}  {min(r['size'] for r in g):9.3g} .. "
                     f"{max(r['size'] for r in g):9.3g}   {min(e):.3f} / {statistics.median(e):.3f} / {max(e):.3f}")
        for k, v in self.ceil.items():
            self.log(f"ceiling {k}: {v:.4g}")
        for k, v in sorted(totals.items(), key=lambda kv: (kv[0][0], PASSES.index(kv[0][1]))):
            self.log(f"gpt3 layer tp={k[0]} {k[1]}: {v * 1e3:.3f} ms (sum of its ops)")
        for f in self.failed:
            self.log(f"failed: {f}")
        for f in self.eager_fallbacks:
            self.log(f"eager timing: {f}")
        self.log(f"{len(self.rows)} rows, {len(self.block)} gpt3 ops, {len(self.skipped)} skipped, {len(self.failed)} failed; "
                 f"{self.n_graph} points timed by CUDA graph, {len(self.eager_fallbacks)} fell back to eager timing")

    def check(self):
        """Read both files back and hold every row to the schema's rules."""
        if yaml is None:
            return self.log("self-check skipped: no PyYAML") or True
        with open(os.path.join(self.a.out, f"{self.table}.yaml")) as f:
            doc = yaml.safe_load(f)
        with open(os.path.join(self.a.out, f"{self.table}_gpt3_block.yaml")) as f:
            blk = yaml.safe_load(f)
        bad, last = [], {}
        for r in doc["rows"] or []:
            g = (r["op"], r["precision"], r["pass"])
            if not (r["op"] in OPS and r["precision"] in PRECS and r["pass"] in PASSES and isinstance(r["size"], float)
                    and r["size"] > last.get(g, 0) and 0 < r["efficiency"] <= 1 and r["shape"] and r["source"]):
                bad.append(r)
            last[g] = r["size"]
        bad += [k for k in ("fp32", "fp16", "memory_bandwidth") if not isinstance(doc["peaks"][k], float)]
        bad += [o for o in blk["ops"] or [] if not (isinstance(o["time_s"], float) and o["time_s"] > 0)]
        self.log(f"self-check: {len(doc['rows'] or [])} rows, {len(blk['ops'] or [])} gpt3 ops read back; "
                 f"{len(bad)} break the rules" + (f": {bad[:3]}" if bad else ""))
        return not bad
