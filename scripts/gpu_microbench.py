#!/usr/bin/env python3
"""Kernel-level microbenchmarks of one NVIDIA GPU: the efficiency table of partsim's calibrated device.

Writes OUT/<table>.yaml (rows {op, precision, pass, size, efficiency, shape, source}), OUT/<table>_gpt3_block.yaml
(the operators of one GPT-3 175B layer, tp = 1 and tp = 8, measured as they run: a validation set, never table
rows) and OUT/log.txt. The calibration rule (shared/DESIGN.md): efficiencies come from kernel measurements like
these, never from fits to end-to-end training times.

Counting (partsim's conventions; efficiency = size / median time / peak):
  gemm (m x k)@(k x n): fwd 2mnk FLOP; bwd = dA = dC B^T and dB = A^T dC timed together, 4mnk.
  conv 3x3: fwd 2 N C_out H_out W_out C_in 9 FLOP; bwd (input grad + weight grad) twice that.
  attention, flash_attention: fwd 4 b h s^2 d (QK^T and PV; softmax not counted); bwd 8 b h s^2 d (the four
    products; the flash kernel's recomputation is not counted, so its efficiency absorbs it).
  memory-bound classes count whole tensors: normalization, softmax, elementwise (GELU) fwd 2 (read x, write y),
    bwd 3 (read x or y, read dy, write dx); add fwd 3; embedding fwd 2 t d e (rows read, output written), bwd
    3 t d e (read dy, read+write touched rows; the kernel also zeroes a vocab x d grad: absorbed); optimizer
    (AdamW fused, fp32) 28 bytes a parameter (read p, g, m, v; write p, m, v), pass fwd only.
Timing: the table holds GPU KERNEL efficiency (the framework's launch gaps are a separate effect), so each point
  is timed twice, on one side stream (all its work, the inputs' forward passes included, runs there):
  eager: CUDA events around `inner` back-to-back eager calls (a sample lasts >= 1 ms) after a warm-up (which also
    runs cuDNN autotuning); the median of up to 20 samples (>= 3; about 0.2 s a point). Small kernels are starved
    here by the CPU's dispatch (~20 us a call: a 1024^3 bf16 gemm reads 11 % of peak).
  graph: the same back-to-back calls (at most ~200 kernels, covering the rotating input sets where that fits)
    captured once in a torch.cuda.CUDAGraph after 3 warm-up calls, then CUDA events around each g.replay(); the
    median of up to 20 replays, per call. Where capture or the first replay raises, the point keeps its eager
    time (logged, and listed in the table's comments).
  The efficiency uses the graph time where there is one; each row's shape ends in [graph] or [eager] to say which,
  and the log prints both times. Inputs are torch.randn (never
  zeros) and rotate among several sets so the working set is ~5x the L2 (50 MB on H100): no point is timed
  from a warm cache. Outputs are checked for NaN/inf once per point (a bad point is dropped). Backward passes
  run torch.autograd.grad on a retained graph (no .grad accumulation), so small eager ones include autograd's
  CPU cost. The optimizer is AdamW(fused=True, capturable=True) so that its step can be captured.
Precision fp32 means fp32 tensors on TF32 tensor cores, as Megatron-style training runs them: fp32 rows are
  against the TF32 peak, bf16 and fp16 rows against the FP16/BF16 dense peak.
Budget: work runs in order of importance (ceilings, gemm bf16, flash bf16, GPT-3 block, memory-bound bf16,
  gemm fp16/fp32, attention, conv, optimizer, the rest); a point that does not fit --budget-s is skipped and
  listed; both files are rewritten after every section, and a watchdog writes them and exits at --hard-limit-s.

Usage: python3 scripts/gpu_microbench.py --out DIR [--budget-s 300] [--table-name NAME] [--dry-run]
  --dry-run: CPU, float32, tiny sizes, perf_counter timing; exercises every path in seconds (dry_run: true)."""
import time

T0 = time.perf_counter()  # the budget counts from here: torch's import and CUDA's start are in it
import argparse, contextlib, ctypes, datetime, gc, json, math, os, re, statistics, subprocess, sys, threading, traceback, warnings  # noqa

# Datasheet peaks, dense (without sparsity): the denominators of every efficiency.
PEAKS = {
    # NVIDIA H100 Tensor Core GPU datasheet, SXM5: TF32 989 and FP16/BF16 1979 TFLOPS with sparsity; HBM3 3.35 TB/s
    "h100": dict(fp32=494.7e12, fp16=989.4e12, memory_bandwidth=3.35e12,
                 source="NVIDIA H100 Tensor Core GPU datasheet (SXM5), dense rates"),
    # NVIDIA H200 Tensor Core GPU datasheet (SXM): the tensor-core rates of H100 SXM5; HBM3e 4.8 TB/s
    "h200": dict(fp32=494.7e12, fp16=989.4e12, memory_bandwidth=4.8e12,
                 source="NVIDIA H200 Tensor Core GPU datasheet (SXM), dense rates"),
    # NVIDIA A100 Tensor Core GPU datasheet, SXM4 80GB: TF32 156, FP16/BF16 312 TFLOPS dense; HBM2e 2039 GB/s
    "a100": dict(fp32=156e12, fp16=312e12, memory_bandwidth=2.039e12,
                 source="NVIDIA A100 Tensor Core GPU datasheet (SXM4 80GB), dense rates"),
}
OPS = ["gemm", "conv", "attention", "flash_attention", "normalization", "softmax", "elementwise", "embedding",
       "optimizer"]
COMPUTE_OPS = {"gemm", "conv", "attention", "flash_attention"}  # size in FLOP; the others in bytes
PRECS, PASSES = ["bf16", "fp16", "fp32"], ["fwd", "bwd"]


def gpu_key(name):
    n = name.lower()
    return ("h200" if "h200" in n else "a100" if "a100" in n else
            "h100" if "h100" in n and ("hbm3" in n or "sxm" in n) else None)


def peaks_for(name):
    key = gpu_key(name)
    p = dict(PEAKS[key or "h100"])
    if not key:
        p["source"] += f"; NOTE: unknown GPU '{name}': H100 SXM5 numbers used as placeholders"
    return p


def table_name_for(name):
    key = gpu_key(name)
    return {"h100": "h100_sxm5_80gb", "h200": "h200_sxm_141gb"}.get(key) or re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def flow(d):
    """One-line YAML flow collection: PyYAML when present, else JSON (which YAML 1.2 reads)."""
    if yaml is not None:
        return yaml.safe_dump(d, default_flow_style=True, sort_keys=False, width=10**9).strip()
    return json.dumps(d)


def num(x):
    """A float that YAML 1.1 and 1.2 parsers both read as a float: repr, with '.0' before a bare exponent."""
    r = repr(float(x))
    return r.replace("e", ".0e") if "e" in r and "." not in r else r


class Bench:
    def __init__(self, args):
        self.a, self.dry, self.cuda = args, args.dry_run, not args.dry_run
        self.dev = "cuda" if self.cuda else "cpu"
        self.rows, self.block, self.skipped, self.failed, self.ceil, self.info, self.model = [], [], [], [], {}, {}, {}
        self.deadline = T0 + args.budget_s
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
        line = f"[{time.perf_counter() - T0:6.1f}s] {msg}"
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

    # ---- operator classes: each returns (median s, FLOP, bytes, shape) ------------------------------------------
    def gemm(self, prec, m, n, k, pas, linear=False):
        """torch.matmul (m x k)@(k x n); linear: F.linear(x, W), W (n x k), as Megatron's layers run."""
        e, bwd = self.esize(prec), pas == "bwd"
        make = lambda: [self.rnd(m, k, prec=prec), self.rnd(*((n, k) if linear else (k, n)), prec=prec)] + \
            ([self.rnd(m, n, prec=prec)] if bwd else [])
        if not bwd:
            fn = (lambda s: F.linear(s[0], s[1])) if linear else (lambda s: torch.matmul(s[0], s[1]))
        elif linear:  # dX = dY W, dW = dY^T X
            fn = lambda s: (torch.matmul(s[2], s[1]), torch.matmul(s[2].t(), s[0]))
        else:  # dA = dC B^T, dB = A^T dC
            fn = lambda s: (torch.matmul(s[2], s[1].t()), torch.matmul(s[0].t(), s[2]))
        t = self.measure(make, fn, (m * k + k * n + m * n * bwd) * e, kernels=1 + bwd)
        shape = f"m=n=k={m}" if m == n == k and not linear else f"m={m} n={n} k={k}" + " linear" * linear
        return t, 2 * m * n * k * (1 + bwd), (m * k + k * n + m * n) * e * (1 + bwd), shape

    def conv(self, prec, n, c, h, pas):
        bwd, cl = pas == "bwd", torch.channels_last
        make = lambda: [self.rnd(n, c, h, h, prec=prec).to(memory_format=cl).requires_grad_(bwd),
                        self.rnd(c, c, 3, 3, prec=prec).to(memory_format=cl).requires_grad_(bwd)]
        f = lambda x, w: F.conv2d(x, w, padding=1)
        if bwd:
            t = self.measure(lambda: self.grad_set(f, make()), self.grad_fn, n * c * h * h * self.esize(prec), kernels=6)
        else:
            t = self.measure(make, lambda s: f(*s), n * c * h * h * self.esize(prec), kernels=3)
        return t, 2 * n * c * h * h * c * 9 * (1 + bwd), 0, f"N={n} C={c} HW={h} 3x3 s1 channels_last"

    def attention(self, prec, b, h, s, d, pas, flash=False):
        e, bwd = self.esize(prec), pas == "bwd"
        qkv = lambda: [self.rnd(b, h, s, d, prec=prec, grad=bwd) for _ in range(3)]
        f, ctx, backend = self.sdpa_backend(qkv()) if flash else (math_attention, None, "unfused math")
        with ctx() if ctx else contextlib.nullcontext():
            if bwd:
                t = self.measure(lambda: self.grad_set(f, qkv()), self.grad_fn, 3 * b * h * s * d * e,
                                 kernels=5 if flash else 10)
            else:
                t = self.measure(qkv, lambda q: f(*q), 3 * b * h * s * d * e, kernels=2 if flash else 4)
        return t, 4 * b * h * s * s * d * (1 + bwd), (4 + 4 * bwd) * b * h * s * d * e, f"b={b} h={h} s={s} d={d} {backend}"

    def sdpa_backend(self, qkv):
        """(function, context factory, name): SDPA pinned to FLASH_ATTENTION, else EFFICIENT_ATTENTION, else default."""
        sdpa = getattr(F, "scaled_dot_product_attention", None)
        if sdpa is None:  # an old torch (Debian's 1.13 in the CPU dry run): the math path stands in
            return math_attention, None, "math (this torch has no sdpa)"
        try:
            from torch.nn.attention import SDPBackend, sdpa_kernel
        except ImportError:
            return sdpa, None, "sdpa default backend (no torch.nn.attention)"
        for name in ("FLASH_ATTENTION", "EFFICIENT_ATTENTION"):
            try:
                with sdpa_kernel(getattr(SDPBackend, name)):
                    sdpa(*qkv)
                self.sync()
                return sdpa, (lambda n=name: sdpa_kernel(getattr(SDPBackend, n))), name
            except RuntimeError as ex:
                self.log(f"sdpa backend {name} unavailable here: {str(ex)[:160]}")
        return sdpa, None, "sdpa default backend"

    def memop(self, op, prec, t_, h, pas):
        """layer_norm, rms_norm, softmax, gelu (tanh) or add on a t_ x h tensor; bytes count whole tensors."""
        e, bwd = self.esize(prec), pas == "bwd"
        x = lambda: self.rnd(t_, h, prec=prec, grad=bwd)
        if op == "layer_norm":
            ins, f = lambda: [x(), self.rnd(h, prec=prec, grad=bwd), self.rnd(h, prec=prec, grad=bwd)], \
                lambda x_, w, b: F.layer_norm(x_, (h,), w, b)
        elif op == "rms_norm":
            if not hasattr(F, "rms_norm"):
                raise NotImplementedError("this torch has no F.rms_norm")
            ins, f = lambda: [x(), self.rnd(h, prec=prec, grad=bwd)], lambda x_, w: F.rms_norm(x_, (h,), w)
        elif op == "softmax":
            ins, f = lambda: [x()], lambda x_: torch.softmax(x_, -1)
        elif op == "gelu":
            ins, f = lambda: [x()], lambda x_: F.gelu(x_, approximate="tanh")
        else:  # add: fwd only (its backward runs no kernel)
            ins, f = lambda: [x(), x()], lambda a, b: a + b
        if bwd:
            t = self.measure(lambda: self.grad_set(f, ins()), self.grad_fn, 2 * t_ * h * e, kernels=4)
        else:
            t = self.measure(ins, lambda s: f(*s), (1 + (op == "add")) * t_ * h * e, kernels=1)
        return t, 0, (3 if bwd or op == "add" else 2) * t_ * h * e, f"tokens={t_} hidden={h} {op}"

    def embedding(self, prec, vocab, d, t_, pas):
        e, bwd = self.esize(prec), pas == "bwd"
        w = self.rnd(vocab, d, prec=prec, grad=bwd)  # one table; the token ids rotate
        ids = lambda: torch.randint(0, vocab, (t_,), device=self.dev)
        if bwd:  # aten embedding_dense_backward through autograd (it allocates and zeroes a vocab x d grad)
            def make():
                out = F.embedding(ids(), w)
                return out, [w], torch.randn_like(out)
            t = self.measure(make, self.grad_fn, t_ * d * e, kernels=12)
        else:
            t = self.measure(ids, lambda i: F.embedding(i, w), t_ * d * e, kernels=1)
        rule = "bytes=3*t*d*e: read dy, r/w touched rows" if bwd else "bytes=2*t*d*e"
        return t, 0, (2 + bwd) * t_ * d * e, f"tokens={t_} dim={d} vocab={vocab} {rule}"

    def optimizer(self, n):
        kinds = set()

        def make():
            p = torch.randn(n, device=self.dev, requires_grad=True)
            p.grad = torch.randn(n, device=self.dev)
            opt = None
            for kw, kind in ((dict(fused=True, capturable=True), "fused capturable"), (dict(fused=True), "fused"),
                             ({}, "unfused (fused=True refused)")):
                try:  # capturable: step() refuses CUDA-graph capture without it (the fused kernel is the same)
                    opt = torch.optim.AdamW([p], lr=1e-4, **kw)
                    kinds.add(kind)
                    break
                except (TypeError, RuntimeError, ValueError):
                    continue
            opt.step()  # exp_avg and exp_avg_sq are created here, outside the timing
            return opt, p
        t = self.measure(make, lambda s: (s[0].step(), s[1].detach())[1], 16 * n, kernels=3)
        return t, 0, 28 * n, f"params={n} AdamW {'/'.join(sorted(kinds))} fp32, bytes=28/param"

    # ---- sections, in order of importance ----------------------------------------------------------------------
    def ceilings(self):
        def copy():
            src = self.rnd((8 if self.dry else 2048) * 2**20 // 2)  # a 2 GB bf16 tensor
            dst = torch.empty_like(src)
            t = self.measure(lambda: (src, dst), lambda s: s[1].copy_(s[0]), self.ws, kernels=1)
            self.ceil["copy_bandwidth"] = float(f"{2 * src.numel() * src.element_size() / t:.6g}")
            self.log(f"ceiling: device copy {self.ceil['copy_bandwidth'] / 1e9:.0f} GB/s (read + write) {self.times()}")

        def mm():
            m = 256 if self.dry else 8192
            t, flop, _, _ = self.gemm("bf16", m, m, m, "fwd")
            self.ceil["bf16_gemm_8192"] = float(f"{flop / t:.6g}")
            self.log(f"ceiling: bf16 gemm {m}^3 {flop / t / 1e12:.1f} TFLOP/s {self.times()}")
        self.point("ceiling copy", 5, copy)
        self.point("ceiling bf16 gemm", 3, mm)

    def gemms(self, prec, sizes):
        for s in sizes:
            for pas in PASSES:
                self.row("gemm", prec, pas, f"m=n=k={s}", 3 if s >= 16384 else 1.5, self.gemm, prec, s, s, s, pas)

    def attns(self, prec, flash):
        op = "flash_attention" if flash else "attention"
        shapes = [(1, 2, 32, 16), (2, 2, 64, 16), (2, 4, 128, 16)] if self.dry else \
            [(b, h, s, 128) for s in (512, 1024, 2048, 4096, 8192) for b, h in ((1, 16), (4, 32))]  # sizes distinct
        for b, h, s, d in shapes:
            if not flash and b * h * s * s * 2 > 5e9:  # unfused: P alone over 5 GB, its backward would not fit
                self.skipped.append(f"{op} {prec} b={b} h={h} s={s} (memory)")
                continue
            for pas in PASSES:
                self.row(op, prec, pas, f"b={b} h={h} s={s}", 2, self.attention, prec, b, h, s, d, pas, flash)

    def convs(self, prec):
        # ResNet stages (C, HW) have equal FLOP per image: batches are staggered so that no two sizes collide.
        shapes = [(16, 8, (1, 2)), (8, 16, (3,))] if self.dry else [
            (512, 7, (8, 48, 256)), (256, 14, (12, 64, 384)), (128, 28, (16, 96, 512)), (64, 56, (6, 32, 192, 1024, 4096))]
        for c, h, batches in shapes:
            for n in batches:
                for pas in PASSES:
                    self.row("conv", prec, pas, f"N={n} C={c} HW={h}", 4, self.conv, prec, n, c, h, pas)

    def memops(self, prec):
        hiddens, tokens = ((64, 192), (8, 32)) if self.dry else ((4096, 12288), (256, 1024, 4096, 16384, 65536))
        for op, cls in (("layer_norm", "normalization"), ("softmax", "softmax"), ("gelu", "elementwise")):
            for h in hiddens:
                for t_ in tokens:
                    for pas in PASSES:
                        self.row(cls, prec, pas, f"{op} {t_}x{h}", 1.5, self.memop, op, prec, t_, h, pas)
        vocab, dims, tokens = (512, (64, 192), (16, 64)) if self.dry else (51200, (4096, 12288), (2048, 4096, 8192, 16384, 32768))
        if prec != "fp32":
            for d in dims:
                for t_ in tokens:
                    for pas in PASSES:
                        self.row("embedding", prec, pas, f"{t_}x{d}", 2, self.embedding, prec, vocab, d, t_, pas)

    def optimizers(self):
        for n in ((1000, 10000) if self.dry else (10**6, 4 * 10**6, 16 * 10**6, 64 * 10**6, 2 * 10**8)):
            self.row("optimizer", "fp32", "fwd", f"params={n}", 3, self.optimizer, n)

    def gpt3_block(self):
        """One GPT-3 175B layer (h 12288, 96 heads of 128, s 2048, b 1), bf16, unsharded and as a tp=8 shard."""
        h, heads, d, s, b = (256, 8, 32, 64, 1) if self.dry else (12288, 96, 128, 2048, 1)
        self.model = dict(hidden=h, heads=heads, head_dim=d, seq=s, micro_batch=b, precision="bf16", tp=[1, 8])
        bs, p = b * s, "bf16"
        for tp in (1, 8):
            for name, op, fn, args, kw in [
                    ("layernorm1", "normalization", self.memop, ("layer_norm", p, bs, h), {}),
                    ("qkv_gemm", "gemm", self.gemm, (p, bs, 3 * h // tp, h), dict(linear=True)),
                    ("attention_core", "flash_attention", self.attention, (p, b, heads // tp, s, d), dict(flash=True)),
                    ("attention_out_gemm", "gemm", self.gemm, (p, bs, h, h // tp), dict(linear=True)),
                    ("residual_add", "elementwise", self.memop, ("add", p, bs, h), {}),
                    ("layernorm2", "normalization", self.memop, ("layer_norm", p, bs, h), {}),
                    ("mlp_up_gemm", "gemm", self.gemm, (p, bs, 4 * h // tp, h), dict(linear=True)),
                    ("gelu", "elementwise", self.memop, ("gelu", p, bs, 4 * h // tp), {}),
                    ("mlp_down_gemm", "gemm", self.gemm, (p, bs, h, 4 * h // tp), dict(linear=True)),
                    ("rmsnorm_reference", "normalization", self.memop, ("rms_norm", p, bs, h), {})]:
                for pas in ["fwd"] if name == "residual_add" else PASSES:
                    r = self.point(f"gpt3 {name} tp={tp} {pas}", 2, lambda: fn(*args, pas, **kw))
                    if r:
                        tm = self.timing or dict(kind="eager", eager=r[0])
                        self.block.append(dict(name=name, op=op, tp=tp, **{"pass": pas}, time_s=float(f"{r[0]:.6g}"),
                                               time_s_eager=float(f"{tm['eager']:.6g}"), flop=float(r[1]),
                                               bytes=float(r[2]), shape=f"{r[3]} [{tm['kind']}]"))
                        self.log(f"gpt3 tp={tp} {name:18s} {pas} {r[3]:44.44s} {self.times()}")

    # ---- output ------------------------------------------------------------------------------------------------
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


def math_attention(q, k, v):  # unfused: S = Q K^T / sqrt(d), P = softmax(S), O = P V
    return torch.matmul(torch.softmax(torch.matmul(q * q.shape[-1] ** -0.5, k.transpose(-2, -1)), -1), v)


def device_info():
    info = {}
    try:  # "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...": the first
        with open("/proc/driver/nvidia/version") as f:  # token of digits and dots (at least one dot)
            info["driver"] = next(w for w in f.readline().split() if re.fullmatch(r"\d+(?:\.\d+)+", w))
    except (OSError, StopIteration):  # no /proc/driver/nvidia in this container, or no version in it: nvidia-smi
        try:
            v = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                               capture_output=True, text=True, timeout=20).stdout.split()
            if v and re.fullmatch(r"\d+(?:\.\d+)+", v[0]):
                info["driver"] = v[0]
        except Exception:  # noqa: BLE001
            pass
    try:  # the cuBLASLt this process loaded (torch's own): cublasLtGetVersion() = MAJOR*10000 + MINOR*100 + PATCH
        with open("/proc/self/maps") as f:
            fn = ctypes.CDLL(next(ln.split()[-1] for ln in f if "libcublasLt" in ln)).cublasLtGetVersion
        fn.restype = ctypes.c_size_t
        v = fn()
        info["cublas"] = f"{v // 10000}.{v // 100 % 100}.{v % 100} (cublasLtGetVersion {v})"
    except Exception:  # noqa: BLE001  (no CUDA, or another layout: the version is then "n/a")
        pass
    return info


def set_precision_modes(bench):
    """fp32 = TF32 tensor cores; cuDNN autotuning on. PyTorch >= 2.9 has a new TF32 API and refuses a mix of the
    new and the legacy flags, so exactly one of the two is used; a numeric check says whether TF32 is on."""
    torch.backends.cudnn.benchmark = True
    try:  # torch < 2.9 refuses the new names (AssertionError or AttributeError)
        torch.backends.cuda.matmul.fp32_precision = "tf32"
        mode = "fp32_precision='tf32'"
        for sub in ("conv", "rnn"):
            try:
                setattr(getattr(torch.backends.cudnn, sub), "fp32_precision", "tf32")
            except (AssertionError, AttributeError, RuntimeError):
                mode += f" (cudnn.{sub} not set)"
    except (AssertionError, AttributeError, RuntimeError):
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
        mode = "allow_tf32 (legacy flags)"
    def tf32_error():  # TF32 keeps 10 mantissa bits: an error ~1e-4..1e-3 of the largest entry says it is on
        a, b = torch.randn(512, 512, device="cuda"), torch.randn(512, 512, device="cuda")
        ref = a.double() @ b.double()
        return ((a @ b).double() - ref).abs().max().item() / ref.abs().max().item()
    if bench.cuda:
        err = tf32_error()
        if err <= 1e-5:  # still IEEE fp32: one more way, the documented one-call switch
            try:
                torch.set_float32_matmul_precision("high")
                err, mode = tf32_error(), mode + ", then set_float32_matmul_precision('high')"
            except RuntimeError as e:
                mode += f", set_float32_matmul_precision refused: {e}"
        mode += f"; fp32 matmul relative error {err:.1e}: " + ("TF32 on" if err > 1e-5 else "WARNING: TF32 looks OFF")
        a, t = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16), time.perf_counter()
        while time.perf_counter() - t < 1.0:  # one second of GEMMs brings the clocks up before the first point
            torch.matmul(a, a)
            torch.cuda.synchronize()
    bench.log(f"precision: {mode}; cudnn.benchmark on")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog="Method and counting: the module docstring.")
    ap.add_argument("--out", required=True, help="folder for <table>.yaml, <table>_gpt3_block.yaml and log.txt")
    ap.add_argument("--dry-run", action="store_true", help="CPU, float32, tiny sizes: runs every code path in seconds")
    ap.add_argument("--budget-s", type=float, default=300, help="no point starts that would end later, s from start (300)")
    ap.add_argument("--hard-limit-s", type=float, help="watchdog: write the files and exit here (default budget + 100)")
    ap.add_argument("--table-name", help="default from the GPU: h100_sxm5_80gb, h200_sxm_141gb, else a slug of its name")
    args = ap.parse_args()
    global torch, F, yaml
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        sys.exit(f"gpu_microbench.py: {sys.executable} has no PyTorch (on a Debian CPU machine: /usr/bin/python3 "
                 "with python3-torch)")
    try:
        import yaml
    except ImportError:
        yaml = None
    # AdamW(capturable=True) warns once per instance when step() runs uncaptured (the eager timing): expected here
    warnings.filterwarnings("ignore", message=".*constructed with capturable=True.*")
    bench = Bench(args)

    def watchdog():
        bench.log("HARD TIME LIMIT: writing what was measured and exiting")
        bench.write()
        os._exit(3)
    timer = threading.Timer(max(1.0, (args.hard_limit_s or args.budget_s + 100) - (time.perf_counter() - T0)), watchdog)
    timer.daemon = True
    timer.start()
    set_precision_modes(bench)
    bench.info = device_info()  # after the first matmul: cuBLAS is loaded by then
    bench.log(f"device {bench.name}, torch {torch.__version__}, cuda {torch.version.cuda}, cudnn "
              f"{torch.backends.cudnn.version()}, {bench.info}, table {bench.table}, budget {args.budget_s} s")
    big, small = (256,) if bench.dry else (16384,), (32, 64, 128) if bench.dry else (256, 512, 1024, 2048, 4096, 8192)
    sections = [("ceilings", bench.ceilings), ("gemm bf16", lambda: bench.gemms("bf16", small + big)),
                ("flash_attention bf16", lambda: bench.attns("bf16", True)), ("gpt3 block", bench.gpt3_block),
                ("memory-bound bf16", lambda: bench.memops("bf16")), ("gemm fp16", lambda: bench.gemms("fp16", small + big)),
                ("gemm fp32", lambda: bench.gemms("fp32", small)), ("attention bf16", lambda: bench.attns("bf16", False)),
                ("attention fp16", lambda: bench.attns("fp16", False)), ("conv bf16", lambda: bench.convs("bf16")),
                ("conv fp16", lambda: bench.convs("fp16")), ("optimizer fp32", bench.optimizers),
                ("flash_attention fp16", lambda: bench.attns("fp16", True)), ("gemm fp32 16384", lambda: bench.gemms("fp32", big)),
                ("conv fp32", lambda: bench.convs("fp32")), ("memory-bound fp32", lambda: bench.memops("fp32"))]
    for name, fn in sections:
        bench.log(f"== {name} ({bench.left():.0f} s of budget left)")
        for step in (fn, bench.write):
            try:
                step()
            except Exception as e:  # noqa: BLE001  (a bug in one section must not lose the others)
                bench.log(f"FAIL section {name}: {type(e).__name__}: {e}", traceback.format_exc())
    timer.cancel()
    totals = bench.write(final=True)
    bench.summary(totals)
    ok = bench.check()
    bench.log(f"done in {time.perf_counter() - T0:.1f} s; files in {args.out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
