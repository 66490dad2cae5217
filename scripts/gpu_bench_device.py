"""The GPU scripts/gpu_microbench.py measures: its datasheet peaks (the denominators of every efficiency),
the table's name, the driver and cuBLAS versions, and the precision modes (TF32 for fp32, cuDNN
autotuning). Imported once PyTorch has imported (gpu_microbench.main)."""
import ctypes
import re
import subprocess
import time

import torch


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
