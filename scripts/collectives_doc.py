"""The document scripts/validate_collectives.py writes (docs/collectives.md), one function per section:
how it was made, the size mapping, inputs and comparisons, the summary against the aims, every
published point, partsim's sweeps and the hand-written "Why the gaps"; with the sources of the inputs."""
import datetime
import os
import re
import subprocess

from collectives_published import AIM_LARGE, AIM_SMALL, GAPS_FILE, SERIES_USE, gap_of, size_class
from collectives_runs import COLLECTIVES, PLATFORMS, ROOT, GiB, describe, size_text

# ---- formatting ---------------------------------------------------------------------------------------
def fmt_bw(v):
    if v is None:
        return "-"
    return "%.3g" % v if v < 10 else "%.1f" % v


def fmt_err(e):
    return "-" if e is None else "%+.0f %%" % (100 * e)


def git(*args):
    try:
        return subprocess.run(["git"] + list(args), cwd=ROOT, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def platform_inputs(platform):
    """What configs/<platform>.yaml sets, for the inputs table: the cluster table's keys, and
    'collectives.<key>' for the collectives table (its algorithm map and each protocol as text)."""
    out, block, in_protocols = {}, None, False
    with open(os.path.join(ROOT, "configs", platform + ".yaml"), encoding="utf-8") as f:
        for line in f:
            if line.lstrip().startswith("#") or not line.strip():
                continue
            m = re.match(r"^  (\w+):", line)
            if m:
                block, in_protocols = m.group(1), False
                continue
            m = re.match(r"^    (\w+):\s*([^#\n]*)", line)
            if m and block in ("cluster", "collectives"):
                key, value = m.group(1), m.group(2).strip()
                in_protocols = block == "collectives" and key == "protocols"
                out[key if block == "cluster" else "collectives." + key] = value
                continue
            m = re.match(r"^      (\w+):\s*\{([^}]*)\}", line)
            if m and in_protocols:
                out["collectives.protocols." + m.group(1)] = m.group(2).strip()
    return out


def algorithm_map(text):
    """{collective: algorithm (list)} from the platform file's flow map `{all_reduce: "a,b", ...}`."""
    return {k: v.strip().strip('"') for k, v in re.findall(r'(\w+):\s*("[^"]*"|[^,}]+)', text.strip("{} "))}


# The sources of the inputs, as the platform files' headers give them (configs/dgx_*.yaml).
INPUT_SOURCES = {
    "gpus_per_node": "NVIDIA DGX A100 / DGX H100 datasheets (8 GPUs per node)",
    "nvlink_bandwidth": "NVLink3: 12 links x 25 GB/s; NVLink4: 18 links x 25 GB/s per direction (NVIDIA A100 / H100 "
                        "datasheets; Hopper architecture whitepaper)",
    "nvlink_latency": "partsim's choice (no vendor number): 2 hops = 1 us GPU to GPU",
    "nvlink_efficiency": "achievable NVLink bandwidth: NCCL's topology model credits 20.0 (A100) / 20.6 (H100) GB/s "
                         "per 25 GB/s link (NCCL src/graph/topo.h SM80_NVLINK_BW / SM90_NVLINK_BW): 20.0/25, 20.6/25",
    "in_switch_reduction": "NVSwitch gen 3 reduces (NVLink SHARP), gen 2 does not (Hopper whitepaper)",
    "nics_per_node": "DGX A100: 8 ConnectX-6 HDR; DGX H100: 8 ConnectX-7 NDR (DGX datasheets / user guides)",
    "nic_bandwidth": "HDR 200 Gb/s, NDR 400 Gb/s per port (InfiniBand Trade Association)",
    "network_latency": "partsim's choice: 2 links = 1.4 us GPU -> leaf -> GPU (ConnectX 'sub 600 ns', HDR switch ~130 ns)",
    "fabric": "rail-optimized (NVIDIA DGX SuperPOD reference architectures)",
    "collectives.chunk": "NCCL_BUFFSIZE 4 MiB / NCCL_STEPS 8 = 512 KiB (NCCL init.cc, device.h); the tree's pipelining "
                         "chunk (`hierarchical` picks its own chunk count, 1-16, by its closed form)",
    "collectives.in_switch_efficiency": "NVLS runs at 0.85 of the NVLink bandwidth (NCCL src/graph/tuning.cc "
                                        "nvlsEfficiency, Hopper); not set on dgx_a100 (its switch does not reduce; "
                                        "nvlsEfficiency is 0 on Ampere: no NVLS)",
}
PROTOCOL_SOURCE = ("NCCL's Ring base latency, per-step NVLink latency and bandwidth factor (NCCL src/graph/tuning.cc, "
                   "commit 5067397c, 2026-06-11; docs/data/collective_parameters.md section 3)")
ALGORITHM_SOURCE = ("platform file: as NCCL's tuner does (NCCL_ALGO's role), of the listed algorithms and the "
                    "protocols the one pair whose closed form is fastest for the size runs. `hierarchical`: NCCL's "
                    "rings across the rails, pipelined (on dgx_h100 all_reduce with the switch's reduction inside "
                    "the node: NCCL's NVLS tree); `double_binary_tree`: NCCL's trees; `in_switch`: NVLS on one node "
                    "(none on dgx_a100: nvlsEfficiency 0 on Ampere, tuning.cc)")


def document(a, runner, rows, published, nodes_list, one_node_algs, sizes, one_run_s, total_s, ok, plain, errors):
    """The text of docs/collectives.md. a: the command's arguments (quick, jobs); sizes(platform,
    nodes, coll): the sizes run; ok: the runs that did not fail; plain: those checked against the
    formula; errors: [(key, message)] of the runs that failed."""
    L = []
    w = L.append
    how_made(w, a, runner, one_run_s, total_s, ok, plain, errors)
    size_mapping(w)
    aa, ah = inputs(w, published)
    summary(w, rows)
    point_table(w, rows)
    sweeps(w, runner, nodes_list, one_node_algs, sizes, aa, ah)
    gaps(w)
    return "\n".join(L).rstrip() + "\n"


def how_made(w, a, runner, one_run_s, total_s, ok, plain, errors):
    """The title, the command, the runs and how far the replay is from the closed forms."""
    head = git("rev-parse", "--short", "HEAD")
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    version = next((r["version"] for r in ok if "version" in r), "")
    slow_k, slow_s = runner.slowest()
    w("# Collectives: partsim against published nccl-tests bus bandwidths (DGX A100, DGX H100)")
    w("")
    w("Generated by `scripts/validate_collectives.py` (do not edit by hand; rerun the script).")
    w("")
    w("## How this was made")
    w("")
    w("- command: `python3 scripts/validate_collectives.py%s`" % (" --quick" if a.quick else ""))
    w("- date: %s; partsim commit `%s`%s; simrun version `%s`" % (
        datetime.date.today().isoformat(), head, " (working tree with uncommitted changes)" if dirty else "", version))
    timing = runner.get("dgx_a100", 16, "all_reduce", None, GiB, ())
    w("- %d simrun runs (SimGrid replay of each collective's schedule), %d at a time; one run "
      "(dgx_a100, 16 nodes, all_reduce, 1 GiB) took %.2f s%s, the slowest (%s) %.2f s; the whole script %.0f s." % (
          len(runner.results), a.jobs, one_run_s, " (it failed)" if timing and "error" in timing else "",
          describe(slow_k) if slow_k else "-", slow_s, total_s))
    w("- every run: `build/bin/simrun --config configs/<platform>.yaml --set system.cluster.nodes=N "
      "--collective C --bytes S --json - [--algorithm A] [--set system.cluster.nvlink_efficiency=1]`; the number "
      "used is `simulated_s` (the replay). Without `--algorithm` simrun runs the platform's default list "
      "(`system.collectives.algorithm`) and, of its algorithms and the platform's protocols, the pair whose "
      "closed form is fastest for S; its JSON names the pair (`algorithm`, `protocol`), shown here as "
      "`algorithm/protocol`. `--algorithm A` fixes the algorithm; the protocol is still chosen.")
    w("- replay against the closed forms over all runs here: largest |simulated - step rule| / step rule "
      "(`rel_diff`) %.1e; largest |simulated - algorithm's formula| / formula (the formula the choice is made "
      "by) %.1e, and %.1e without double_binary_tree and the two context runs on shared NICs. The tree's formula "
      "is the steady state of one chunk per tree and step (docs/model.md \"Collective algorithms\"): its fill and "
      "drain steps move less, and on a node's switch the two trees' transfers share a member's port, so its "
      "replay runs from below to well above its formula, and a choice by formula can take the tree where its "
      "replay is slower. With 4 NICs per node (`nics_per_node=4`) two members' rings across nodes share a NIC, "
      "which hierarchical's formula (one rail per member) does not see." % (
          max([abs(r.get("rel_diff") or 0) for r in ok] or [0]),
          max([abs(r["simulated_s"] - r["formula_s"]) / r["formula_s"] for r in ok if r.get("formula_s")] or [0]),
          max([abs(r["simulated_s"] - r["formula_s"]) / r["formula_s"] for r in plain] or [0])))
    if errors:
        w("- runs that failed: %d (first: `%s`: %s)" % (len(errors), describe(errors[0][0]), errors[0][1]))
    w("")


def size_mapping(w):
    """nccl-tests' bus bandwidth and its size against partsim's --bytes."""
    w("### Bus bandwidth and the size mapping")
    w("")
    w("nccl-tests (doc/PERFORMANCE.md) reports `algbw = S / t` and `busbw = algbw x 2(n-1)/n` for "
      "all_reduce, `algbw x (n-1)/n` for all_gather and reduce_scatter, where S is nccl-tests' *size*: for "
      "all_reduce the buffer per rank; for reduce_scatter and all_gather **the total array**, "
      "`recvcount x sizeof(type) x n` and `sendcount x sizeof(type) x n` (the per-rank count times n). "
      "partsim's `--bytes` S (sim/collectives/collectives.hpp) is the buffer reduced (reduce_scatter, "
      "all_reduce) or the full gathered result (all_gather): the same total array. So **nccl-tests size = "
      "partsim --bytes** for all three collectives, and each rank's chunk is S/n in both. n = 8 x nodes. "
      "Sizes are binary (1 MiB = 1048576 B, as nccl-tests' `-b 1M`); GB/s is 1e9 B/s as nccl-tests prints. "
      "NVLS (in-switch) all_reduce is reported with the same ring factor 2(n-1)/n, as nccl-tests does for "
      "the published NVLS numbers, so its busbw exceeds the wire rate. Where a published point's busbw is "
      "below 10 GB/s and the source gives its time, the published busbw is recomputed from the time with the "
      "same formula (nccl-tests prints busbw with two decimals: 0.05 GB/s could be 0.045-0.055). A published "
      "plateau of unstated size is compared with partsim at 8 GiB.")
    w("")


def inputs(w, published):
    """The inputs (the platform files) and the comparisons (the published series), kept apart;
    returns the two platforms' default algorithm maps."""
    w("### Inputs (model parameters) and comparisons (published numbers) are kept apart")
    w("")
    w("**Inputs** are the platform files as shipped (configs/dgx_a100.yaml, configs/dgx_h100.yaml; the sources "
      "are in each file's header): datasheet numbers, two latencies of partsim's own choosing, and NCCL's "
      "documented constants (NVLink efficiency, NVLS efficiency, the three protocols' latencies and bandwidth "
      "factors; docs/data/collective_parameters.md). **Comparisons** are the published nccl-tests numbers in "
      "docs/data/nccl_tests_published.yaml: they are only compared with. No input was set from a number in "
      "docs/data/nccl_tests_published.yaml, and none was tuned to reduce an error below. The column "
      "`line rate` is an ablation, not an input: the shipped run with `nvlink_efficiency` 1 (NVLink at the "
      "datasheet line rate), to show what NCCL's link constant contributes.")
    w("")
    w("| parameter | dgx_a100 | dgx_h100 | source |")
    w("| --- | --- | --- | --- |")
    ka, kh = platform_inputs("dgx_a100"), platform_inputs("dgx_h100")
    for k, src in INPUT_SOURCES.items():
        w("| `%s` | %s | %s | %s |" % (k, ka.get(k, "not set"), kh.get(k, "not set"), src))
    protos = list(dict.fromkeys([k for k in ka if k.startswith("collectives.protocols.")] +
                                [k for k in kh if k.startswith("collectives.protocols.")]))
    for i, k in enumerate(protos):
        w("| `%s` | %s | %s | %s |" % (k, ka.get(k, "-"), kh.get(k, "-"), PROTOCOL_SOURCE if i == 0 else "as above"))
    aa, ah = algorithm_map(ka.get("collectives.algorithm", "")), algorithm_map(kh.get("collectives.algorithm", ""))
    for c in COLLECTIVES:
        w("| `collectives.algorithm` %s | `%s` | `%s` | %s |" % (c, aa.get(c, "-"), ah.get(c, "-"),
                                                              ALGORITHM_SOURCE if c == "all_reduce" else "as above"))
    unset = [k for k in ("endpoint_overhead", "protocol_efficiency", "channels")
             if "collectives." + k not in ka and "collectives." + k not in kh]
    if unset:
        w("| %s | not set | not set | defaults (0 s, 1, 1): the protocols carry NCCL's per-step latency and "
          "bandwidth factor |" % ", ".join("`collectives.%s`" % k for k in unset))
    w("")
    w("Comparisons (docs/data/nccl_tests_published.yaml; the file gives the full citation of each):")
    w("")
    w("| series | machine | nodes | collective | confidence | use | source (abridged) |")
    w("| --- | --- | --- | --- | --- | --- | --- |")
    for s in published:
        use = SERIES_USE.get(s["name"])
        if not use:
            w("| `%s` | - | - | - | %s | not used (no rule in the script) | %s |" % (
                s["name"], s.get("confidence"), str(s.get("source", ""))[:160]))
            continue
        usage = "counted" + (" (H200 as the NVLink4 proxy)" if use.get("proxy") else "") if use["counted"] else \
            "context: " + use["why"]
        if use.get("erratic"):
            usage += "; 8 KiB-128 MiB points context only (flagged erratic by the data file)"
        src = str(s.get("source", ""))
        w("| `%s` | %s | %s | %s | %s | %s | %s |" % (
            s["name"], use["platform"], use["nodes"], s.get("collective"), s.get("confidence"), usage,
            src[:220].replace("|", "/") + ("..." if len(src) > 220 else "")))
    w("")
    return aa, ah


def summary(w, rows):
    """The counted points against the aims, by platform, nodes and size class."""
    classes = [("<= 1 MiB (aim 25 %)", "small", AIM_SMALL), ("1-64 MiB (no aim)", "mid", None),
               (">= 64 MiB (aim 10 %)", "large", AIM_LARGE),
               ("plateau, size not stated (vs 8 GiB; aim 10 %)", "plateau", AIM_LARGE)]
    w("## Summary against the aims")
    w("")
    w("Counted points only (DGX-equivalent measurements; see the point table for context points). Error = "
      "(partsim busbw - published busbw) / published busbw. *Shipped*: the platform as shipped, its default "
      "algorithm list (simrun picks the algorithm and protocol per size). *NCCL's algorithm*: on one node, "
      "`--algorithm` set to the partsim algorithm that does what NCCL did for that point (`ring` for Ring, "
      "`in_switch` for NVLS; `ring` where the source does not say); the protocol is still chosen.")
    w("")
    w("| platform | nodes | size class | points | shipped: within aim / max abs error | NCCL's algorithm: within aim / max abs error |")
    w("| --- | --- | --- | --- | --- | --- |")

    def stat(sel, key, aim):
        errs = [r[key] for r in sel if r[key] is not None]
        if not errs:
            return "-"
        mx = max(abs(e) for e in errs)
        if aim is None:
            return "%d pts (no aim) / %.0f %%" % (len(errs), 100 * mx)
        return "%d of %d / %.0f %%" % (sum(abs(e) <= aim for e in errs), len(errs), 100 * mx)

    for platform in PLATFORMS:
        for nodes in sorted({r["nodes"] for r in rows if r["platform"] == platform and r["counted"]}):
            for label, cls, aim in classes:
                sel = [r for r in rows if r["counted"] and r["platform"] == platform and r["nodes"] == nodes
                       and size_class(r) == cls]
                if sel:
                    w("| %s | %d | %s | %d | %s | %s |" % (platform, nodes, label, len(sel), stat(sel, "e_shipped", aim),
                                                          stat(sel, "e_matched", aim)))
    w("")
    w("No published DGX A100 multi-node (8 HDR NICs) series, no DGX H100 sweep at 4-16 nodes, no all_gather / "
      "reduce_scatter sweep on either node and no H100 one-node point below 256 MiB exist in the data file: "
      "those partsim numbers below stand without a comparison.")
    w("")


def point_table(w, rows):
    """Every published point beside partsim."""
    w("## Every published point beside partsim")
    w("")
    w("busbw in GB/s. `shipped` = the platform as shipped (default algorithm list), `by` = the algorithm/protocol "
      "simrun chose for it; `NCCL's algorithm` = on one node, `--algorithm ring` (NCCL Ring, or not stated) or "
      "`--algorithm in_switch` (NVLS), with the protocol simrun chose; `line rate` = the shipped run with "
      "`--set system.cluster.nvlink_efficiency=1` (counted points only), with its error. Context rows (not "
      "counted) are in italics in the use column; machines that are not a DGX run on the platform with the "
      "overrides shown (the measured machine's NIC count). `gap: why`: the explanation of the point's gap "
      "(section \"Why the gaps\"), from GAP_WHY in the script, keyed by series and size class (small <= 1 MiB, "
      "mid, large >= 64 MiB, plateau).")
    w("")
    w("| platform | nodes | collective | size | series | NCCL | published | shipped | err | by | NCCL's algorithm (partsim) | err | line rate | gap: why | use |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in sorted(rows, key=lambda r: (r["platform"], r["nodes"], r["coll"], r["at"], r["series"])):
        size = "plateau (at 8 GiB)" if r["plateau"] else size_text(r["size"])
        use = "counted" + (" (proxy)" if r["proxy"] else "") if r["counted"] else "*context: %s%s*" % (
            r["why"], "; `--set " + " ".join(r["sets"]) + "`" if r["sets"] else "")
        w("| %s | %d | %s | %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["platform"], r["nodes"], r["coll"], size, r["series"], r["nccl"], fmt_bw(r["pub"]), fmt_bw(r["shipped"]),
            fmt_err(r["e_shipped"]), "`%s`" % r["by"],
            ("`%s` %s" % (r["matched_by"], fmt_bw(r["matched"]))) if r["matched_alg"] else "-", fmt_err(r["e_matched"]),
            ("%s (%s)" % (fmt_bw(r["line"]), fmt_err(r["e_line"]))) if r["counted"] else "-",
            gap_of(r), use))
    w("")


def sweeps(w, runner, nodes_list, one_node_algs, sizes, aa, ah):
    """partsim's bus bandwidth against size, one table per platform and node count."""
    w("## partsim bus bandwidth against size (GB/s)")
    w("")
    w("As shipped: the default algorithm list (all_reduce: `%s` on dgx_a100, `%s` on dgx_h100; all_gather and "
      "reduce_scatter: `%s` / `%s`), with the algorithm/protocol simrun chose for all_reduce. On one node "
      "`hierarchical` is its inside phases only: a ring over the NVSwitch, or for dgx_h100 all_reduce the "
      "switch's reduction and multicast (NCCL's NVLS tree), pipelined in 1-16 chunks. One-node context, each "
      "with the protocol simrun chose: `ring`, `in_switch` (NVLink SHARP; only where the switch reduces: DGX "
      "H100), `double_binary_tree` (all_reduce)." % (
          aa.get("all_reduce", "-"), ah.get("all_reduce", "-"), aa.get("all_gather", "-"), aa.get("reduce_scatter", "-")))
    for platform in PLATFORMS:
        for nodes in nodes_list:
            w("")
            w("### %s, %d node%s (%d GPUs)" % (platform, nodes, "s" if nodes > 1 else "", 8 * nodes))
            w("")
            hdr = ["size", "all_reduce", "all_reduce by", "all_gather", "reduce_scatter"]
            ctx = [(c, alg) for c in COLLECTIVES for alg in one_node_algs.get((platform, c), [])] if nodes == 1 else []
            hdr += ["%s %s" % (c, alg) for c, alg in ctx]
            w("| " + " | ".join(hdr) + " |")
            w("|" + " --- |" * len(hdr))
            all_sizes = sorted(set().union(*[set(sizes(platform, nodes, c)) for c in COLLECTIVES]))
            for b in all_sizes:
                cells = [size_text(b), fmt_bw(runner.bw(platform, nodes, "all_reduce", None, b)),
                         "`%s`" % runner.chosen(platform, nodes, "all_reduce", None, b),
                         fmt_bw(runner.bw(platform, nodes, "all_gather", None, b)),
                         fmt_bw(runner.bw(platform, nodes, "reduce_scatter", None, b))]
                for c, alg in ctx:
                    cells.append(fmt_bw(runner.bw(platform, 1, c, alg, b)))
                w("| " + " | ".join(cells) + " |")
    w("")


def gaps(w):
    """The hand-written text of docs/data/collectives_gaps.md."""
    w("## Why the gaps (every counted point over its aim)")
    w("")
    with open(GAPS_FILE, encoding="utf-8") as f:
        w(f.read().rstrip())
