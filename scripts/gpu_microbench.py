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

The parts beside this file: gpu_bench_timing.py (timing a point), gpu_bench_kernels.py (the operator classes
  and the sections), gpu_bench_table.py (the two files, their schema and self-check), gpu_bench_device.py (the
  GPU's peaks, driver and cuBLAS versions, precision modes).

Usage: python3 scripts/gpu_microbench.py --out DIR [--budget-s 300] [--table-name NAME] [--dry-run]
  --dry-run: CPU, float32, tiny sizes, perf_counter timing; exercises every path in seconds (dry_run: true)."""
import time

T0 = time.perf_counter()  # the budget counts from here: torch's import and CUDA's start are in it
import argparse, os, sys, threading, traceback, warnings  # noqa


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog="Method and counting: the module docstring.")
    ap.add_argument("--out", required=True, help="folder for <table>.yaml, <table>_gpt3_block.yaml and log.txt")
    ap.add_argument("--dry-run", action="store_true", help="CPU, float32, tiny sizes: runs every code path in seconds")
    ap.add_argument("--budget-s", type=float, default=300, help="no point starts that would end later, s from start (300)")
    ap.add_argument("--hard-limit-s", type=float, help="watchdog: write the files and exit here (default budget + 100)")
    ap.add_argument("--table-name", help="default from the GPU: h100_sxm5_80gb, h200_sxm_141gb, else a slug of its name")
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        sys.exit(f"gpu_microbench.py: {sys.executable} has no PyTorch (on a Debian CPU machine: /usr/bin/python3 "
                 "with python3-torch)")
    from gpu_bench_device import device_info, set_precision_modes  # they import torch too
    from gpu_bench_kernels import Bench
    # AdamW(capturable=True) warns once per instance when step() runs uncaptured (the eager timing): expected here
    warnings.filterwarnings("ignore", message=".*constructed with capturable=True.*")
    bench = Bench(args, T0)

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
