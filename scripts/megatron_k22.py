"""Section 1 of docs/reproductions/megatron.md: Korthikanti et al. 2022's 22B GPT on 8 A100-80GB
(iteration time, one layer's time and memory against K22's measurements, where the planned time
goes, and the gap examined without tuning). Imported by megatron_report.py."""
from megatron_sources import (ADAM_BYTES, FA_BWD, FA_FWD, HBM, K22_ACT_NONE_GIB, K22_ACT_SEL_SP_GIB,
                              K22_LAYER_FULL, K22_LAYER_SEL_SP, K22_SHAPE, K22_STATES_GIB, K22_TIME_FULL,
                              K22_TIME_SEL_SP, MEMORY_AIM, PEAK, SEQ, STEP_EXTRA_BYTES, TIME_AIM, UNFUSED_FWD,
                              VOCAB, n21_parameters, optimizer_estimate_s, unfused_attention_s)
from megatron_work import GIB, block_times, fmt_pct, pct


class K22Runs:
    """The three 22B runs (full recomputation; none, planned only; selective + sequence parallelism)
    and the numbers section 1 derives from them."""

    def __init__(self, w):
        self.full, self.full_r = w.json("k22_full", "plan"), w.json("k22_full", "results")
        self.none_p = w.json("k22_none", "plan")
        self.sel, self.sel_r = w.json("k22_sel_sp", "plan"), w.json("k22_sel_sp", "results")
        self.pred = self.full["predicted"]["iteration_s"]
        self.sim = self.full_r["simulated_iteration_s"]
        self.closed = self.full_r["closed_form_iteration_s"]
        self.fp = fp = self.full["family"]["prediction"]
        mem = self.full["memory"]
        self.states = mem["weights_bytes"] + mem["gradients_bytes"] + mem["optimizer_bytes"]
        L, h, a, t, _, b = (K22_SHAPE[k] for k in ("layers", "hidden", "heads", "tp", "batch", "microbatch"))
        s, V = SEQ, VOCAB
        self.L, self.h, self.t, self.b, self.s, self.V = L, h, t, b, s, V
        # K22's 45.56 GiB is 18 B per parameter of the 12 L h^2 transformer-layer matrices over t GPUs:
        self.k22_matrix_states = 18 * 12 * L * h * h / t
        # What partsim adds on top (its parameters / t, 18 B each, docs/model.md "The megatron planner"):
        self.extra = {
            "token embedding V h": V * h,
            "untied LM head V h (K22 ties it to the embedding)": V * h,
            "position embedding s h": s * h,
            "biases and LayerNorms 13 L h + 2 h": 13 * L * h + 2 * h,
        }
        self.act_none = self.none_p["memory"]["activations_bytes"]
        self.act_sel = self.sel["memory"]["activations_bytes"]

        # The optimizer step partsim models (family.prediction.optimizer_step_s), against the estimate
        # this report gave before it did (Adam at peak bandwidth to the whole fp16 step at copy efficiency).
        self.params_per_gpu = n21_parameters(L, h) / t
        self.opt = fp["optimizer_step_s"]
        self.opt_lo, self.opt_hi = optimizer_estimate_s(self.params_per_gpu)
        self.opt_bw = self.params_per_gpu * ADAM_BYTES / self.opt  # bytes per second the modelled step achieves
        self.att_22 = unfused_attention_s(L, a, h, b, t, 1, 1, 1)
        self.att_fwd_22 = 4 * b * s * s * h / t * (1 / (UNFUSED_FWD * PEAK) - 1 / (FA_FWD * PEAK))
        # GEMM-only FLOPs of the forward per micro-batch and GPU (K22 App. A: 48 layers and the logit
        # layer), against partsim's forward compute time (which also holds the non-GEMM work).
        block_gemm_f = 24 * b * s * h * h * (1 + s / (6 * h)) / t
        self.fwd_gemm = L * block_gemm_f + 2 * b * s * h * V / t
        self.eff_fwd = self.fwd_gemm / fp["forward_compute_s"] / PEAK
        # One layer's forward and backward (full recomputation), and forward + backward (selective + SP).
        self.lf, self.lb = block_times(self.full)
        _, self.lsel = block_times(self.sel)


def write_k22(p, w):
    """Section 1, each part through p (a line appender); returns the runs' K22Runs (the last section
    of the report quotes its optimizer step)."""
    k = K22Runs(w)
    k22_comparison(p, w, k)
    k22_time_terms(p, k)
    k22_gap(p, k)
    k22_with_attention(p, k)
    k22_memory(p, k)
    return k



def k22_comparison(p, w, k):
    """The run's command and the table of partsim against K22, then the closed form and the other two runs."""
    full_r, none_p, sel, sel_r, pred, sim, closed = k.full_r, k.none_p, k.sel, k.sel_r, k.pred, k.sim, k.closed
    states, act_none, act_sel, lf, lb, lsel = k.states, k.act_none, k.act_sel, k.lf, k.lb, k.lsel
    p("## 1. 22B GPT on 8 A100-80GB (Korthikanti et al. 2022, arXiv 2205.05198)")
    p("")
    p("48 layers, hidden 6144, 64 heads, sequence 2048, vocabulary 51,200 (K22 §6), TP 8, PP 1, global "
      "batch 4, micro-batch 4, one DGX A100 node (`--set system.cluster.nodes=1`):")
    p("")
    p("```")
    p(w.text("k22_full.command"))
    p("```")
    p("")
    p("| quantity | partsim | K22 | error |")
    p("|---|---:|---:|---:|")
    p(f"| iteration, full recomputation, planned (s) | {pred:.4f} | {K22_TIME_FULL} | "
      f"{fmt_pct(pct(pred, K22_TIME_FULL), TIME_AIM)} |")
    p(f"| iteration, full recomputation, simulated (s) | {sim:.4f} | {K22_TIME_FULL} | "
      f"{fmt_pct(pct(sim, K22_TIME_FULL), TIME_AIM)} |")
    p(f"| iteration, selective recomputation + SP, simulated (s) | {sel_r['simulated_iteration_s']:.4f} | "
      f"{K22_TIME_SEL_SP} (Table 5) | {fmt_pct(pct(sel_r['simulated_iteration_s'], K22_TIME_SEL_SP), TIME_AIM)} |")
    p(f"| one layer, full recomputation: forward (ms) | {lf * 1e3:.2f} | {K22_LAYER_FULL[0]} (Table 4) | "
      f"{fmt_pct(pct(lf * 1e3, K22_LAYER_FULL[0]), TIME_AIM)} |")
    p(f"| one layer, full recomputation: backward incl. recomputation (ms) | {lb * 1e3:.2f} | "
      f"{K22_LAYER_FULL[1]} (Table 4) | {fmt_pct(pct(lb * 1e3, K22_LAYER_FULL[1]), TIME_AIM)} |")
    p(f"| one layer, selective + SP: forward + backward (ms) | {lsel * 1e3:.2f} | {sum(K22_LAYER_SEL_SP):.1f} "
      f"(Table 4) | {fmt_pct(pct(lsel * 1e3, sum(K22_LAYER_SEL_SP)), TIME_AIM)} |")
    p(f"| model states per GPU (GiB) | {states / GIB:.2f} | {K22_STATES_GIB} | "
      f"{fmt_pct(pct(states / GIB, K22_STATES_GIB), MEMORY_AIM)} |")
    p(f"| activations, no recomputation, no SP (GiB) | {act_none / GIB:.2f} | {K22_ACT_NONE_GIB} | "
      f"{fmt_pct(pct(act_none / GIB, K22_ACT_NONE_GIB), MEMORY_AIM)} |")
    p(f"| activations, selective recomputation + SP (GiB) | {act_sel / GIB:.2f} | {K22_ACT_SEL_SP_GIB} | "
      f"{fmt_pct(pct(act_sel / GIB, K22_ACT_SEL_SP_GIB), MEMORY_AIM)} |")
    p("")
    p(f"The closed form of the lowered Program gives {closed:.4f} s; the replay {sim:.4f} s "
      f"({full_r.get('activities', 0):,} activities). With selective recomputation and sequence "
      f"parallelism (same model, `--option recompute=selective --option sequence_parallel=true`) partsim "
      f"plans {sel['predicted']['iteration_s']:.4f} s and simulates "
      f"{sel_r['simulated_iteration_s']:.4f} s. Without recomputation the plan needs "
      f"{none_p['memory']['per_device_bytes'] / GIB:.1f} GiB per GPU, over the 80 GiB, as K22 says "
      f"(it is planned with `--allow-over-memory` for its activation figure only, never replayed).")
    p("")


def k22_time_terms(p, k):
    """Where the planned time goes: the terms of family.prediction."""
    fp, pred = k.fp, k.pred
    p("### Where the planned time goes (full recomputation, `plan.json` `family.prediction`)")
    p("")
    p("| term | s | share |")
    p("|---|---:|---:|")
    terms = [
        ("forward compute (48 layers, embedding, LM head)", fp["forward_compute_s"]),
        ("backward compute, without recomputation", fp["backward_compute_s"] - fp["recompute_s"]),
        ("recomputed forward (full)", fp["recompute_s"]),
        ("TP all-reduces, forward (2 per layer)", fp["tp_forward_s"]),
        ("TP all-reduces, backward (2 + 2 recomputed per layer)", fp["tp_backward_s"]),
        ("pipeline sends, DP (none: PP 1, DP 1)", fp["send_s"] * 2 + fp["dp_exposed_s"]),
        ("optimizer step (Adam, 28 B per parameter)", fp["optimizer_step_s"]),
    ]
    for name, v in terms:
        p(f"| {name} | {v:.4f} | {v / pred:.1%} |")
    p(f"| **planned iteration** | **{pred:.4f}** | |")
    p("")
    p(f"The terms add up to {sum(v for _, v in terms):.4f} s (pipeline {fp['pipeline_s']:.4f} s + "
      f"exposed DP {fp['dp_exposed_s']:.4f} s + optimizer {fp['optimizer_step_s']:.4f} s = "
      f"`family.prediction.iteration_s` {fp['iteration_s']:.4f} s).")
    p("")


def k22_gap(p, k):
    """The gap to K22's 1.42 s inside and outside the layers, and its five candidate causes."""
    fp, pred, sim, L, b, s, h, t = k.fp, k.pred, k.sim, k.L, k.b, k.s, k.h, k.t
    lf, lb, opt, opt_lo, opt_hi, opt_bw = k.lf, k.lb, k.opt, k.opt_lo, k.opt_hi, k.opt_bw
    params_per_gpu, fwd_gemm, eff_fwd, att_22, att_fwd_22 = k.params_per_gpu, k.fwd_gemm, k.eff_fwd, k.att_22, k.att_fwd_22
    gap = K22_TIME_FULL - sim
    k22_layers = L * sum(K22_LAYER_FULL) / 1e3
    ours_layers = L * (lf + lb)
    p(f"### The {fmt_pct(pct(sim, K22_TIME_FULL))} gap ({gap:.3f} s), examined without tuning")
    p("")
    p(f"K22's Table 4 splits the measurement: its 48 layers take 48 x 27.2 ms = {k22_layers:.3f} s "
      f"({k22_layers / K22_TIME_FULL:.0%} of 1.42 s), partsim's 48 layers {ours_layers:.3f} s "
      f"({fmt_pct(pct(ours_layers, k22_layers))}); everything else (embedding, LM head and loss, optimizer "
      f"step, data loading) is {K22_TIME_FULL - k22_layers:.3f} s measured against partsim's "
      f"{pred - ours_layers:.3f} s (embedding, LM head and the optimizer step). So about "
      f"{(k22_layers - ours_layers) * 1e3:.0f} ms of the gap is inside the layers and "
      f"{(K22_TIME_FULL - k22_layers - (pred - ours_layers)) * 1e3:.0f} ms outside them:")
    p("")
    p(f"1. **Optimizer step, modelled.** Megatron-LM's measured iteration includes it, and so does "
      f"partsim's now (`--option optimizer=adam`, the default; docs/model.md \"The megatron planner\"): "
      f"Adam over the {params_per_gpu / 1e9:.2f} B parameters per GPU (N21 eq. 2 / 8) reads the fp32 "
      f"parameter, gradient and two moments and writes three of them, {ADAM_BYTES} B per parameter, "
      f"`family.prediction.optimizer_step_s` = {opt * 1e3:.1f} ms ({opt / pred:.1%} of the planned "
      f"iteration), {opt_bw / 1e9:.0f} GB/s, {opt_bw / HBM:.0%} of the datasheet's 2039 GB/s. That "
      f"rate is the device model's default for the `optimizer` class: the A100 table "
      f"(`configs/devices/a100_sxm4_80gb.yaml`) has no measured optimizer row (the H100's has, "
      f"0.21-0.80 of peak bandwidth by size), so this is an optimistic figure, not a measurement. The "
      f"estimate this report gave before the step was modelled was {opt_lo * 1e3:.0f}-{opt_hi * 1e3:.0f} "
      f"ms: Adam alone at peak bandwidth ({opt_lo * 1e3:.0f} ms, what partsim now charges) up to the "
      f"whole fp16 step at the 0.731 of peak a copy achieves (the table's `elementwise` row): Adam plus "
      f"the gradients' unscale and inf check (read and write 8 B), the gradient norm for clipping "
      f"(read 4 B), the copy to the fp16 parameters (read 4, write 2) and zeroing the gradients "
      f"(write 4), {ADAM_BYTES + STEP_EXTRA_BYTES} B per parameter. partsim counts none of these "
      f"extras (docs/model.md: the copy of the updated weights and the gradient norm are not counted), "
      f"so up to {(opt_hi - opt) * 1e3:.0f} ms ({(opt_hi - opt) / K22_TIME_FULL:.1%} of 1.42 s) of the "
      f"step may still be missing.")
    p(f"2. **GEMM efficiency.** partsim's forward compute, {fp['forward_compute_s']:.4f} s per "
      f"GPU, is K22 App. A's GEMM FLOPs of the forward (48 x 24 b s h^2 (1 + s/6h) / t + 2 b s h V / t = "
      f"{fwd_gemm / 1e12:.2f} TFLOP) at {eff_fwd:.1%} of the 312 TFLOP/s peak (the non-GEMM work "
      f"included). The table's two bf16 GEMM rows (0.869, 0.859) are the best shapes of a scan "
      f"(the table says so: 'an upper envelope, not a typical shape'); the layer's TP-8 shards are "
      f"8192 x 6144 x 2304 (QKV), 8192 x 768 x 6144 (projection), 8192 x 6144 x 3072 and 8192 x 3072 x "
      f"6144 (MLP), and no published A100 measurement of these shapes was found, so the table holds "
      f"none. This is the largest uncertainty, and what a kernel-level measurement on an A100 (as "
      f"`scripts/gpu_microbench.py` did for the H100) would settle.")
    per_ar = (fp["tp_forward_s"] + fp["tp_backward_s"]) / (6 * L)
    ar_bytes = b * s * h * 2
    p(f"3. **Attention as FlashAttention-2.** partsim prices every attention core as the fused "
      f"FlashAttention-2 kernel (`sim/devices/shard_compute.hpp`: `fused_attention = true`, no option "
      f"changes it), at the table's FA-2 rows ({FA_FWD} forward, {FA_BWD} backward at s = 2048). K22's "
      f"Megatron-LM (2022) ran it unfused: two batched GEMMs around its fused scale-mask-softmax "
      f"kernel (FlashAttention came to Megatron-LM later, `--use-flash-attn`). Priced with the table's "
      f"own unfused `attention` row ({UNFUSED_FWD} at s = 2048, Dao 2023's PyTorch column, +-20 %; no "
      f"backward row, so the forward's rate is assumed), the 4 b s^2 h / t = "
      f"{4 * b * s * s * h / t / 1e9:.1f} GFLOP core per layer, run twice forward (recomputation) and "
      f"once backward (twice the FLOPs), costs {att_22 / L * 1e3:.2f} ms more per layer, "
      f"{att_22:.3f} s per iteration, {att_fwd_22 * 1e3:.2f} ms of it in each layer's forward. "
      f"Megatron's fused softmax beats PyTorch's, so this is on the high side.")
    p(f"4. **TP all-reduces** ({fp['tp_forward_s'] + fp['tp_backward_s']:.3f} s: 6 per layer, 2 forward, "
      f"2 backward, 2 recomputed, each of b s h x 2 B = {ar_bytes / 1e6:.1f} MB over the 8 GPUs of the "
      f"node): {per_ar * 1e3:.3f} ms each, a bus bandwidth of 2 (t - 1) / t x {ar_bytes / 1e6:.1f} MB / "
      f"{per_ar * 1e3:.3f} ms = {2 * (t - 1) / t * ar_bytes / per_ar / 1e9:.0f} GB/s, from NCCL's own "
      f"credit of 20 GB/s per NVLink (0.80 x 300 GB/s) and its Simple protocol's latencies. partsim runs "
      f"every one on the critical path. Megatron-LM does so in the forward, but in the backward its "
      f"column-parallel layers overlap the input-gradient all-reduce with the weight-gradient GEMM "
      f"(`--async-tensor-model-parallel-allreduce`, on by default in 2022): partsim is pessimistic there, by up "
      f"to the 2 backward all-reduces per layer, {2 * L * per_ar:.3f} s. That widens, not narrows, "
      f"what compute must explain. No A100 measurement of a 100 MB NVSwitch all-reduce is in the "
      f"project's sources to check the bus bandwidth itself.")
    p("5. **Not modelled, small:** data loading, kernel launch gaps between the layers' kernels, the "
      "fp16 loss-scale bookkeeping (partsim's loss is the LM head's element-wise work only).")
    p("")


def k22_with_attention(p, k):
    """The simulated times with the unfused-attention estimate (item 3) added."""
    fp, sim, sel, sel_r, L, lf, lsel = k.fp, k.sim, k.sel, k.sel_r, k.L, k.lf, k.lsel
    opt, opt_hi, att_22, att_fwd_22 = k.opt, k.opt_hi, k.att_22, k.att_fwd_22
    with_att = sim + att_22
    left = K22_TIME_FULL - with_att
    compute = fp["forward_compute_s"] + fp["backward_compute_s"]
    within = "within" if abs(pct(with_att, K22_TIME_FULL)) <= TIME_AIM else "outside"
    p(f"Adding the unfused-attention estimate (item 3), the one omission quantified here that partsim "
      f"does not model, to the simulated time (which holds the optimizer step) gives {with_att:.3f} s, "
      f"{fmt_pct(pct(with_att, K22_TIME_FULL))} from the measured 1.42 s, {within} the 10 % aim; the "
      f"layer's forward becomes {(lf + att_fwd_22) * 1e3:.2f} ms against Table 4's 7.7 ms "
      f"({fmt_pct(pct((lf + att_fwd_22) * 1e3, 7.7))}). {left * 1e3:.0f} ms is left "
      f"({left / compute:.1%} of partsim's compute): the fp16 step's extras of item 1 (up to "
      f"{(opt_hi - opt) * 1e3:.0f} ms), the A100 optimizer efficiency (a default, not a measurement) "
      f"and the GEMM uncertainty of item 2. The estimate is beside the simulation, not an input to it: "
      f"the config and the device model are unchanged.")
    p("")
    sel_sim = sel_r["simulated_iteration_s"]
    p(f"The selective + SP iteration ({fmt_pct(pct(sel_sim, K22_TIME_SEL_SP))} against K22 Table 5's 1.10 s) "
      f"holds the same {sel['family']['prediction']['optimizer_step_s'] * 1e3:.1f} ms optimizer step and has "
      f"the same unfused-attention omission (selective recomputation recomputes exactly the attention "
      f"core, so the estimate is the same {att_22:.3f} s): {sel_sim + att_22:.3f} s, "
      f"{fmt_pct(pct(sel_sim + att_22, K22_TIME_SEL_SP), TIME_AIM)}. What remains is larger here; K22 "
      f"Table 4 has the layer at 20.3 ms, partsim at {lsel * 1e3:.2f} ms + {att_22 / L * 1e3:.2f} ms "
      f"(unfused estimate): the sequence-parallel all-gathers and reduce-scatters and the "
      f"element-wise work on sequence shards, where partsim is faster than Megatron-LM by more than "
      f"the estimate covers; not explained further here.")
    p("")


def k22_memory(p, k):
    """Model states and activations against K22's 45.56, 59.25 and 9.56 GiB."""
    states, L, h, t, k22_matrix_states, extra = k.states, k.L, k.h, k.t, k.k22_matrix_states, k.extra
    act_none, act_sel = k.act_none, k.act_sel
    p("### Memory")
    p("")
    p(f"- **Model states, {fmt_pct(pct(states / GIB, K22_STATES_GIB))}.** K22's 45.56 GiB is 18 B per "
      f"parameter (fp16 weight 2 + fp32 gradient 4 + fp32 master weight 4 + Adam's two moments 8) of the "
      f"transformer layers' matrices only, 12 L h^2 / t = {12 * L * h * h / t / 1e9:.4f} B parameters: "
      f"{k22_matrix_states / GIB:.4f} GiB. partsim counts every parameter / t at the same 18 B:")
    for name, n in extra.items():
        p(f"  {name}: {n / 1e6:.1f} M parameters, {18 * n / t / GIB:.3f} GiB per GPU;")
    p(f"  sum {(k22_matrix_states + 18 * sum(extra.values()) / t) / GIB:.3f} GiB against partsim's "
      f"{states / GIB:.3f} GiB. The untied head is the `gpt` preset's (`workloads/transformer_presets.cpp`); "
      f"the rest is in a real Megatron-LM model too, so the 45.56 GiB understates what Megatron-LM holds.")
    p(f"- **Activations.** K22's 59.25 and 9.56 GiB are its Eq. 2 and Eq. 6 times 48 layers "
      f"(docs/model.md \"Activation memory\"); partsim adds K22 §4.3's embedding-dropout mask, final "
      f"LayerNorm and projection inputs and fp32 logits: "
      f"{(act_none - 63619203072) / GIB:.3f} and {(act_sel - 10267656192) / GIB:.3f} GiB.")
    p("")
