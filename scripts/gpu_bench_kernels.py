"""What scripts/gpu_microbench.py measures: the operator classes (each returns median s, FLOP, bytes,
shape) and the sections that sweep them, in order of importance (Bench: TimedBench's timing, these,
TableFiles' output). Counting rules: gpu_microbench.py's docstring. Imported once PyTorch has imported
(gpu_microbench.main)."""
import contextlib

import torch
import torch.nn.functional as F

from gpu_bench_table import PASSES, TableFiles
from gpu_bench_timing import TimedBench


def math_attention(q, k, v):  # unfused: S = Q K^T / sqrt(d), P = softmax(S), O = P V
    return torch.matmul(torch.softmax(torch.matmul(q * q.shape[-1] ** -0.5, k.transpose(-2, -1)), -1), v)


class Bench(TimedBench, TableFiles):
    """The microbenchmark: TimedBench times a point, the methods here say what to time, TableFiles writes it."""

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
