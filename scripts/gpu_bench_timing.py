"""How scripts/gpu_microbench.py times a point (TimedBench, the base of gpu_bench_kernels.Bench): inputs
rotating over a working set ~5x the L2, eager back-to-back calls timed by CUDA events, the same calls
captured in a CUDA graph and replayed, the budget, and the efficiency rows. The method is in
gpu_microbench.py's docstring. Imported once PyTorch has imported (gpu_microbench.main)."""
import datetime
import gc
import math
import os
import statistics
import threading
import time
import traceback

import torch

from gpu_bench_device import peaks_for, table_name_for
from gpu_bench_table import COMPUTE_OPS


class TimedBench:
    def __init__(self, args, t0):
        """t0: time.perf_counter() at the script's start, where the budget counts from."""
        self.t0 = t0
        self.a, self.dry, self.cuda = args, args.dry_run, not args.dry_run
        self.dev = "cuda" if self.cuda else "cpu"
        self.rows, self.block, self.skipped, self.failed, self.ceil, self.info, self.model = [], [], [], [], {}, {}, {}
        self.deadline = self.t0 + args.budget_s
        self.point_s, self.sample_s = (0.01, 1e-4) if self.dry else (0.2, 1e-3)
        self.graph_kernels = 200  # the most kernels (about) one captured graph holds
        self.timing, self.label, self.eager_fallbacks, self.n_graph = None, "", [], 0
        os.makedirs(args.out, exist_ok=True)
        self.logf = open(os.path.join(args.out, "log.txt"), "w", buffering=1)
        self.lock = threading.RLock()
        if self.cuda:
            assert torch.cuda.is_available(), "no CUDA device (use --dry-run on a CPU)"
            self.name = torch.cuda.get_device_name(0)
            l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 0) or 50 * 2**20
            self.ws, self.max_buf = 5 * l2, 128  # rotate input sets: working set ~5x L2
            self.stream = torch.cuda.Stream()  # every measurement runs here: CUDA graphs cannot capture the default stream
        else:
            self.name, self.ws, self.max_buf = "CPU (dry run)", 4 * 2**20, 8
        self.peaks = peaks_for(self.name if self.cuda else "H100 SXM (dry run)")
        if self.dry:
            self.peaks["source"] += "; DRY RUN on CPU: efficiencies are meaningless"
        self.table = args.table_name or ("cpu_dry_run" if self.dry else table_name_for(self.name))
        self.date = datetime.date.today().isoformat()
        self.source = f"partsim scripts/gpu_microbench.py on {self.name}, {self.date}, torch {torch.__version__}"

    # ---- plumbing ---------------------------------------------------------------------------------------------
    def log(self, msg, extra=""):
        line = f"[{time.perf_counter() - self.t0:6.1f}s] {msg}"
        print(line, flush=True)
        with self.lock:
            self.logf.write(line + "\n" + extra)

    def left(self):
        return self.deadline - time.perf_counter()

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def dt(self, prec):
        return torch.float32 if self.dry else {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[prec]

    def esize(self, prec):
        return torch.finfo(self.dt(prec)).bits // 8

    def rnd(self, *shape, prec="bf16", grad=False):
        return torch.randn(*shape, device=self.dev, dtype=self.dt(prec)).requires_grad_(grad)

    def point(self, label, est_s, body):
        """body() unless it would pass the budget; a failure (OOM, missing backend, ...) is logged, never fatal."""
        if self.left() < est_s:
            self.skipped.append(label)
            self.log(f"SKIP (budget) {label}")
            return None
        self.timing, self.label = None, label
        try:
            return body()
        except Exception as e:  # noqa: BLE001
            self.failed.append(f"{label}: {type(e).__name__}: {(str(e).splitlines() or [''])[0][:160]}")
            self.log(f"FAIL {label}: {type(e).__name__}: {str(e)[:300]}", traceback.format_exc())
            return None
        finally:
            if self.cuda and torch.cuda.memory_reserved() > 8 * 2**30:
                gc.collect()
                torch.cuda.empty_cache()

    def measure(self, make, fn, set_bytes, kernels=1):
        """Median seconds per call of fn(s), s rotating over input sets from make(); NaN/inf in the output raises.
        kernels: about how many kernels one call launches (caps the calls one CUDA graph captures). Sets
        self.timing = dict(kind "graph" or "eager", graph and eager seconds, why); returns the time of that kind."""
        if not self.cuda:  # CPU dry run: eager only, no streams
            return self._measure(make, fn, set_bytes, kernels)
        cur, s = torch.cuda.current_stream(), self.stream
        s.wait_stream(cur)  # inputs made before (on the current stream) are ready before s uses them
        try:
            with torch.cuda.stream(s):  # restores the caller's stream on exit, even after a failed capture
                return self._measure(make, fn, set_bytes, kernels)
        finally:
            cur.wait_stream(s)

    def _measure(self, make, fn, set_bytes, kernels):
        nbuf = max(2 if self.dry else 1, min(self.max_buf, math.ceil(self.ws / max(set_bytes, 1))))
        sets, i = [make() for _ in range(nbuf)], [0]

        def call():
            i[0] += 1
            return fn(sets[i[0] % nbuf])
        call()  # first call: cuDNN autotuning, cuBLAS heuristics, lazy initialisation
        self.sync()
        n, t = 0, time.perf_counter()
        while n < 3 or (n < nbuf and time.perf_counter() - t < 0.05):
            call()
            n += 1
        self.sync()
        est = max((time.perf_counter() - t) / n, 1e-7)
        inner = max(1, min(2000, math.ceil(self.sample_s / est)))
        reps = max(3, min(20, int(self.point_s / (inner * est))))
        if self.cuda:  # eager: events on the current stream (the side stream), back-to-back eager calls
            ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
            for a, b in ev:
                a.record()
                for _ in range(inner):
                    call()
                b.record()
            torch.cuda.synchronize()
            times = [a.elapsed_time(b) / 1e3 / inner for a, b in ev]
        else:
            times = []
            for _ in range(reps):
                t = time.perf_counter()
                for _ in range(inner):
                    call()
                times.append((time.perf_counter() - t) / inner)
        t_eager = statistics.median(times)
        t_graph, why = self.graph_time(call, inner, nbuf, est, kernels) if self.cuda else (None, "CPU dry run")
        self.timing = dict(kind="eager" if t_graph is None else "graph", eager=t_eager, graph=t_graph, why=why)
        out = fn(sets[0])
        if not all(bool(torch.isfinite(o).all()) for o in (out if isinstance(out, (list, tuple)) else [out])):
            raise FloatingPointError("NaN/inf in the output")
        return t_eager if t_graph is None else t_graph

    def graph_time(self, call, inner, nbuf, est, kernels):
        """(median seconds per call, None) of CUDA-graph replays of back-to-back call()s, else (None, why).
        Runs on the current stream, a side stream (measure() sees to it). One capture of ng calls (the eager
        inner, raised to cover the nbuf input sets, capped at ~graph_kernels kernels), then up to 20 timed replays."""
        ng = max(1, min(max(1, self.graph_kernels // max(1, kernels)), max(inner, nbuf)))
        reps = max(3, min(20, int(self.point_s / (ng * est))))  # est (eager, per call) bounds the graph time
        g = None
        try:
            s = torch.cuda.current_stream()
            for _ in range(3):  # warm-up on the capturing side stream before capture, as PyTorch's docs do
                call()
            torch.cuda.synchronize()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g, stream=s):
                for _ in range(ng):
                    call()
        except Exception as e:  # noqa: BLE001  (autograd, cuDNN, the optimizer, ...: eager time stands)
            return None, self.graph_failed("capture", e)
        try:
            g.replay()  # the first replay: errors surface here
            torch.cuda.synchronize()
            g.replay()  # untimed: keeps the GPU busy while the timed replays are queued behind it
            ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
            for a, b in ev:
                a.record()
                g.replay()
                b.record()
            torch.cuda.synchronize()
            self.n_graph += 1
            return statistics.median(a.elapsed_time(b) / 1e3 / ng for a, b in ev), None
        except Exception as e:  # noqa: BLE001
            return None, self.graph_failed("replay", e)
        finally:
            del g

    def graph_failed(self, stage, e):
        why = f"CUDA graph {stage} failed: {type(e).__name__}: {(str(e).splitlines() or [''])[0][:160]}"
        try:
            torch.cuda.synchronize()
        except Exception as e2:  # noqa: BLE001
            why += f"; then synchronize failed: {type(e2).__name__}: {str(e2)[:120]}"
        self.eager_fallbacks.append(f"{self.label}: {why}")
        self.log(f"EAGER FALLBACK {self.label}: {why}", traceback.format_exc())
        return why

    @staticmethod
    def grad_set(f, inputs):  # a retained graph and its output gradient, for grad_fn
        out = f(*inputs)
        return out, inputs, torch.randn_like(out)

    @staticmethod
    def grad_fn(s):
        return torch.autograd.grad(s[0], s[1], s[2], retain_graph=True)

    def times(self):
        """The last measurement's timing kind and both times, for the log."""
        tm = self.timing or {}
        g = "   -    " if tm.get("graph") is None else f"{tm['graph'] * 1e3:9.4f}"
        e = "   -    " if tm.get("eager") is None else f"{tm['eager'] * 1e3:9.4f}"
        return f"[{tm.get('kind', '?')}] graph {g} ms eager {e} ms"

    def add_row(self, op, prec, pas, size, t, shape):
        peak = self.peaks["fp32" if prec == "fp32" else "fp16"] if op in COMPUTE_OPS else self.peaks["memory_bandwidth"]
        eff = size / t / peak
        rate = f"{size / t / 1e12:7.1f} TFLOP/s" if op in COMPUTE_OPS else f"{size / t / 1e9:7.0f} GB/s"
        if eff > 1.0:
            self.log(f"WARNING {op} {prec} {pas} {shape}: efficiency {eff:.3f} > 1 (a counting error?), clamped to 1")
            shape, eff = f"{shape} (measured efficiency {eff:.4g} > 1, clamped)", 1.0
        shown, shape = shape, f"{shape} [{(self.timing or {}).get('kind', 'eager')}]"  # the timing behind eff
        if any((r["op"], r["precision"], r["pass"], r["size"]) == (op, prec, pas, float(size)) for r in self.rows):
            return self.log(f"WARNING {op} {prec} {pas} {shape}: size {size} already in the table, row dropped")
        self.rows.append(dict(op=op, precision=prec, **{"pass": pas}, size=float(size),
                              efficiency=float(f"{eff:.6g}"), shape=shape, source=self.source))
        self.log(f"{op:15s} {prec} {pas} {shown:40.40s} {self.times()} {rate}  eff {eff:.3f}")

    def row(self, op, prec, pas, label, est_s, fn, *args):
        r = self.point(f"{op} {prec} {pas} {label}", est_s, lambda: fn(*args))
        if r:
            self.add_row(op, prec, pas, r[1] if op in COMPUTE_OPS else r[2], r[0], r[3])
