"""The published numbers the Megatron-LM reproduction (docs/reproductions/megatron.md) compares with,
the A100 constants and the papers' formulas, each with its source; nothing is fitted. Imported by
megatron_report.py and its section writers (megatron_k22.py, megatron_n21.py); scripts/ is on sys.path.
"""
SEQ, VOCAB = 2048, 51200  # N21 §5.1 and K22 §6: every model, sequence 2048, vocabulary 51,200
PEAK = 312e12  # A100 FP16/BF16 dense tensor-core peak (NVIDIA A100 datasheet), N21's "% of peak" too
HBM = 2.039e12  # A100 80GB SXM HBM2e bandwidth (NVIDIA A100 datasheet)
TIME_AIM, MEMORY_AIM = 0.10, 0.05  # issue 40

# Narayanan et al. 2021 (SC21, arXiv 2104.04473) Table 1: parameters (B), heads, hidden, layers, TP,
# PP, GPUs, batch, achieved TFLOP/s per GPU, % of peak, aggregate PFLOP/s. Micro-batch size, virtual
# stages (layers per virtual stage) and DDP implementation from the paper's artifact script
# NVIDIA/Megatron-LM examples/sc21/run_table_1.sh @79a3bb6bf2c85b748c46749dd0695e23310d4e16 (MBS,
# --num-layers-per-virtual-pipeline-stage, DDP=torch|local; "--recompute-method uniform": full
# recomputation of every layer).
TABLE1 = [
    # name, params_B, heads, hidden, layers, tp, pp, gpus, batch, tflops, pct, pflops, mbs, layers_per_vstage, ddp
    ("1.7B", 1.7, 24, 2304, 24, 1, 1, 32, 512, 137, 44, 4.4, 16, None, "torch"),
    ("3.6B", 3.6, 32, 3072, 30, 2, 1, 64, 512, 138, 44, 8.8, 16, None, "torch"),
    ("7.5B", 7.5, 32, 4096, 36, 4, 1, 128, 512, 142, 46, 18.2, 16, None, "torch"),
    ("18.4B", 18.4, 48, 6144, 40, 8, 1, 256, 1024, 135, 43, 34.6, 8, None, "torch"),
    ("39.1B", 39.1, 64, 8192, 48, 8, 2, 512, 1536, 138, 44, 70.8, 4, None, "local"),
    ("76.1B", 76.1, 80, 10240, 60, 8, 4, 1024, 1792, 140, 45, 143.8, 2, 5, "local"),
    ("145.6B", 145.6, 96, 12288, 80, 8, 8, 1536, 2304, 148, 47, 227.1, 2, 5, "local"),
    ("310.1B", 310.1, 128, 16384, 96, 8, 16, 1920, 2160, 155, 50, 297.4, 1, 3, "local"),
    ("529.6B", 529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163, 52, 410.2, 1, 1, "local"),
    ("1008.0B", 1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163, 52, 502.0, 1, None, "local"),
]

# Korthikanti et al. 2022 (arXiv 2205.05198), the 22B GPT on 8 A100-80GB, as issue 40 quotes it.
K22_TIME_FULL = 1.42
K22_STATES_GIB, K22_ACT_NONE_GIB, K22_ACT_SEL_SP_GIB = 45.56, 59.25, 9.56
# K22 Table 5 (end to end, same 22B setting): selective recomputation + sequence parallelism 1.10 s.
# K22 Table 4 (one transformer layer of the 22B model, measured): forward, backward ms.
K22_TIME_SEL_SP = 1.10
K22_LAYER_FULL = (7.7, 19.5)  # "baseline with recompute" (full): 27.2 ms combined
K22_LAYER_SEL_SP = (7.2, 13.1)  # "selective + sequence parallel": 20.3 ms combined
K22_SHAPE = dict(layers=48, hidden=6144, heads=64, tp=8, batch=4, microbatch=4)


def virtual_stages(row):
    layers, pp, per = row[4], row[6], row[13]
    return 1 if per is None else layers // (pp * per)


def n21_flops(batch, layers, hidden, seq=SEQ, vocab=VOCAB):
    """N21 eq. 3: FLOPs of one iteration with full activation recomputation."""
    return 96 * batch * seq * layers * hidden**2 * (1 + seq / (6 * hidden) + vocab / (16 * layers * hidden))


def n21_parameters(layers, hidden, seq=SEQ, vocab=VOCAB):
    """N21 eq. 2."""
    return 12 * layers * hidden**2 * (1 + 13 / (12 * hidden) + (vocab + seq) / (12 * layers * hidden))


ADAM_BYTES = 16 + 12  # fused Adam: reads fp32 parameter, gradient, m, v; writes parameter, m, v
STEP_EXTRA_BYTES = 22  # fp16: unscale + inf check r/w 8, grad norm r 4, copy to fp16 params r 4 w 2, zero grads w 4
COPY_EFFICIENCY = 0.731  # configs/devices/a100_sxm4_80gb.yaml, elementwise (copy) row


def optimizer_estimate_s(params_per_gpu):
    """The estimate of the optimizer step this report gave before partsim modelled it (kept as a
    comparison): (Adam alone at peak HBM bandwidth, the whole fp16 step at the measured copy
    efficiency). partsim now models Adam's 28 B per parameter (family.prediction.optimizer_step_s)."""
    return (params_per_gpu * ADAM_BYTES / HBM,
            params_per_gpu * (ADAM_BYTES + STEP_EXTRA_BYTES) / (HBM * COPY_EFFICIENCY))


# Attention kernels (configs/devices/a100_sxm4_80gb.yaml, the s = 2048 rows, b 8, 16 heads of 128):
# partsim prices the attention core as a fused FlashAttention-2 kernel (sim/devices/shard_compute.hpp,
# fused_attention = true, no option changes it); Megatron-LM in N21 (2021) and K22 (2022) ran it
# unfused (two batched GEMMs around its fused scale-mask-softmax kernel; FlashAttention came to
# Megatron-LM later, --use-flash-attn). The table's unfused `attention` row is PyTorch's standard
# attention (Dao 2023 Fig. 5b, low confidence +-20 %); it has no backward row, so the backward is
# assumed to run at the forward's efficiency. Megatron's fused softmax is faster than PyTorch's, so
# this estimate is on the high side.
FA_FWD, FA_BWD, UNFUSED_FWD, UNFUSED_BWD = 0.641, 0.479, 0.202, 0.202


def unfused_attention_s(layers_per_stage, heads, hidden, b, t, m, p, v, recomputed=True):
    """Extra seconds per iteration if the attention core ran unfused instead of as FlashAttention-2:
    per layer and micro-batch 4 b s^2 h / t FLOPs forward (twice with recomputation), twice that
    backward; the pipeline runs (m + (p - 1) / v) micro-batch slots of a stage's layers."""
    core = 4 * b * SEQ * SEQ * hidden / t
    fwd = (2 if recomputed else 1) * core * (1 / (UNFUSED_FWD * PEAK) - 1 / (FA_FWD * PEAK))
    bwd = 2 * core * (1 / (UNFUSED_BWD * PEAK) - 1 / (FA_BWD * PEAK))
    return (m + (p - 1) / v) * layers_per_stage * (fwd + bwd)


SMALL_ROWS = ("1.7B", "3.6B")  # h 2304 and 3072, TP 1 and 2
LARGE_ROWS = ("76.1B", "145.6B", "310.1B", "529.6B", "1008.0B")


def row_params_per_gpu(r):
    return n21_parameters(r[4], r[3]) / (r[5] * r[6])

