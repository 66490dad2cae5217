#!/usr/bin/python3
"""Validate partsim's collectives on the DGX A100 and DGX H100 platforms against published nccl-tests
bus bandwidths, and write docs/collectives.md.

Usage: scripts/validate_collectives.py [--simrun build/bin/simrun] [--out docs/collectives.md]
           [--jobs 2] [--quick]

What it does:
- runs `simrun --config configs/dgx_{a100,h100}.yaml --set system.cluster.nodes=N --collective C
  --bytes S --json -` for N in 1, 2, 4, 8, 16; C in all_reduce, all_gather, reduce_scatter; S from
  1 KiB to 8 GiB in powers of 4 (plus every size a published point needs, up to 16 GiB), as shipped:
  the platform's default algorithm list, of which simrun runs the algorithm and protocol whose closed
  form is fastest for the size (its JSON's "algorithm" and "protocol"); on one node also
  --algorithm ring, in_switch (where it runs) and double_binary_tree (all_reduce); at every counted
  published point also the ablation `--set system.cluster.nvlink_efficiency=1` (NVLink at line rate);
- turns every simulated time into nccl-tests' bus bandwidth (nccl-tests doc/PERFORMANCE.md):
  algbw = S / t with S nccl-tests' "size"; busbw = algbw x 2(n-1)/n (all_reduce), x (n-1)/n
  (all_gather, reduce_scatter). partsim's --bytes is the same S (sim/collectives/collectives.hpp:
  the buffer reduced for reduce_scatter and all_reduce, the full gathered result for all_gather;
  nccl-tests: the total array, recvcount x n x sizeof(type) for reduce_scatter, sendcount x n x
  sizeof(type) for all_gather), so S = --bytes and no conversion is needed;
- reads the published series (COMPARISONS) from docs/data/nccl_tests_published.yaml and compares at
  matching sizes (every published size is also simulated, so no interpolation is needed);
- writes docs/collectives.md: how it was made, inputs and comparisons, a summary against the aims
  (within 10 % from 64 MiB up, within 25 % at 1 MiB and below), every published point beside
  partsim, partsim's sweeps, and the "Why the gaps" section (docs/data/collectives_gaps.md; the
  point table's `gap: why` column comes from GAP_WHY below).

Progress (runs done / total, elapsed) goes to stderr, and at the end the slowest run and every
counted point over its aim.

python3 standard library only.
At most 2 simrun processes at a time (--jobs 1 or 2).
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KiB, MiB, GiB = 1024, 1024 ** 2, 1024 ** 3
PLATFORMS = ["dgx_a100", "dgx_h100"]
NODES = [1, 2, 4, 8, 16]
COLLECTIVES = ["all_reduce", "all_gather", "reduce_scatter"]
GRID = [KiB * 4 ** k for k in range(12)] + [8 * GiB]  # 1 KiB .. 4 GiB in powers of 4, and 8 GiB
MAX_SIZE = 16 * GiB  # the H200 proxy points are at 16 GiB
SMALL, LARGE = 1 * MiB, 64 * MiB  # aims: <= SMALL within 25 %, >= LARGE within 10 %
AIM_SMALL, AIM_LARGE = 0.25, 0.10
LINE_RATE = ("system.cluster.nvlink_efficiency=1",)  # the ablation: NVLink at its datasheet line rate
SLOW_RUN_S = 20.0  # a run slower than this is reported on stderr

# ---- the explanations of the gaps (the point table's `gap: why` column) ----------------------------
# key: (series name, size class), size class one of "small" (<= 1 MiB), "mid" (1-64 MiB), "large"
# (>= 64 MiB), "plateau" (size not stated, compared at 8 GiB); value: the text of the cell (say, the
# number of a paragraph of "Why the gaps"). A row without an entry prints '-'. Example:
#   ("dgx_a100_40gb_8gpu_all_reduce_galvatron_fixture", "large"): "1",
GAP_WHY = {
    ("dgx_a100_40gb_8gpu_all_reduce_galvatron_fixture", "small"): "1",
    ("dgx_a100_40gb_8gpu_all_reduce_galvatron_fixture", "large"): "2",
    ("h100_8gpu_all_reduce_default_nvls_256M_2G", "large"): "3",
    ("h100_8gpu_all_reduce_ring_vs_nvls_nccl_1455", "large"): "4",
    ("h200_8gpu_nvls_on_off_16GiB_ml_engineering", "large"): "4",
    ("dgx_h100_2node_16gpu_all_reduce", "small"): "5",
    ("dgx_h100_2node_16gpu_all_reduce", "large"): "6",
}
GAPS_FILE = os.path.join(ROOT, "docs", "data", "collectives_gaps.md")  # the "Why the gaps" text

# ---- how each published series is used ------------------------------------------------------------
# platform, nodes; counted: in the summary against the aims (measurements of a DGX-equivalent
# machine); otherwise context; sets: platform overrides that describe the MEASURED machine where it
# is not a DGX (context only).
SERIES_USE = {
    "dgx_a100_40gb_8gpu_all_reduce_galvatron_fixture": dict(platform="dgx_a100", nodes=1, counted=True, nccl="Ring"),
    "a100_8gpu_all_reduce_single_value_nccl_tests_175": dict(platform="dgx_a100", nodes=1, counted=True, nccl="Ring"),
    "a100_8gpu_all_reduce_single_value_ml_engineering": dict(platform="dgx_a100", nodes=1, counted=True, nccl="Ring"),
    "h100_8gpu_all_reduce_default_nvls_256M_2G": dict(platform="dgx_h100", nodes=1, counted=True, nccl="NVLS"),
    "h100_8gpu_all_reduce_ring_vs_nvls_nccl_1455": dict(platform="dgx_h100", nodes=1, counted=True),
    "h100_8gpu_all_reduce_maintainer_expectation_nccl_tests_212": dict(
        platform="dgx_h100", nodes=1, counted=False, why="a maintainer's expectation, not a measurement"),
    "h200_8gpu_nvls_on_off_16GiB_ml_engineering": dict(platform="dgx_h100", nodes=1, counted=True, proxy=True),
    "h200_nvls_gpu_count_sweep_8GiB_ml_engineering": dict(platform="dgx_h100", nodes=1, counted=True, proxy=True,
                                                          nccl="NVLS"),
    "dgx_h100_2node_16gpu_all_reduce": dict(platform="dgx_h100", nodes=2, counted=True,
                                            erratic=(8 * KiB, 128 * MiB)),  # "8 KiB-128 MiB", both ends included
    "gcp_a3mega_h100_2node_16gpu_all_reduce": dict(
        platform="dgx_h100", nodes=2, counted=False, why="Google Cloud A3 Mega: 8 x 200 Gb/s Ethernet (TCPXO), not a DGX H100"),
    "hgx_h100_ndr_per_nic_expectation_nccl_tests_290": dict(
        platform="dgx_h100", nodes=2, counted=False, why="a maintainer's expectation (per NIC), not a measurement",
        per_nic=True),
    "a100_2node_4xHDR_all_reduce_nccl_tests_175": dict(
        platform="dgx_a100", nodes=2, counted=False, why="4 HDR NICs per node (a DGX A100 has 8)",
        sets=("system.cluster.nics_per_node=4",)),
    "a100_3node_4xHDR_all_reduce_nccl_tests_119": dict(
        platform="dgx_a100", nodes=3, counted=False, why="4 HDR NICs per node, 3 nodes (not a DGX A100)",
        sets=("system.cluster.nics_per_node=4",)),
}


# ---- the published data (a small reader for the file's own YAML subset) ------------------------------
def _scalar(text):
    text = text.strip()
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if text in ("null", "~", ""):
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def read_published(path):
    """The series of nccl_tests_published.yaml: list of dicts, each with 'points' (list of dicts)."""
    series, current, in_points = [], None, False
    flow = re.compile(r'(\w+):\s*("(?:[^"\\]|\\.)*"|[^,}]*)')
    with open(path, encoding="utf-8") as f:
        for line in f:
            stripped = line.strip()
            if not stripped or stripped.startswith("#") or stripped == "series:":
                continue
            if line.startswith("  - "):
                current = {"points": []}
                series.append(current)
                in_points = False
                key, _, value = line[4:].partition(":")
                current[key.strip()] = _scalar(value)
            elif stripped == "points:":
                in_points = True
            elif in_points and stripped.startswith("- {"):
                body = stripped[3:stripped.rindex("}")]
                current["points"].append({k: _scalar(v) for k, v in flow.findall(body)})
            elif current is not None and ":" in stripped:
                key, _, value = stripped.partition(":")
                current[key.strip()] = _scalar(value)
    return series


def point_collective(series, point):
    c = point.get("collective") or series["collective"]
    return c if c in COLLECTIVES else "all_reduce"


def point_nccl_algorithm(use, series, point):
    """NCCL's algorithm for the point: 'Ring', 'NVLS' or None (not stated): the first word of the
    point's note, else the series' rule in SERIES_USE."""
    note = str(point.get("note", "")).strip().lower()
    if note.startswith("nvls"):
        return "NVLS"
    if note.startswith("ring"):
        return "Ring"
    return use.get("nccl")


# ---- running simrun -----------------------------------------------------------------------------------
def size_text(b):
    for unit, f in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if b >= f and b % f == 0:
            return "%d %s" % (b // f, unit)
    return "%d B" % b


def size_class(r):
    """The size class of a comparison row (GAP_WHY's second key)."""
    if r["plateau"]:
        return "plateau"
    return "small" if r["size"] <= SMALL else ("large" if r["size"] >= LARGE else "mid")


def over_aim(r):
    """True when a counted row misses its aim in the shipped or the NCCL's-algorithm column."""
    aim = aim_of(r)
    if not r["counted"] or aim is None:
        return False
    return any(e is not None and abs(e) > aim for e in (r["e_shipped"], r["e_matched"]))


def gap_of(r):
    """The `gap: why` cell: GAP_WHY's paragraph for a counted row over its aim, else '-'."""
    return GAP_WHY.get((r["series"], size_class(r)), "-") if over_aim(r) else "-"


def aim_of(r):
    """The aim of a row: AIM_SMALL, AIM_LARGE or None (1-64 MiB: no aim)."""
    return {"small": AIM_SMALL, "large": AIM_LARGE, "plateau": AIM_LARGE}.get(size_class(r))


class Runner:
    def __init__(self, simrun, jobs):
        self.simrun, self.jobs = simrun, jobs
        self.results, self.wall = {}, {}
        self.t0 = time.time()

    def key(self, platform, nodes, coll, alg, size, sets):
        return (platform, nodes, coll, alg or "", size, tuple(sets))

    def command(self, k):
        platform, nodes, coll, alg, size, sets = k
        cmd = [self.simrun, "--config", os.path.join("configs", platform + ".yaml"),
               "--set", "system.cluster.nodes=%d" % nodes, "--collective", coll, "--bytes", "%dB" % size, "--json", "-"]
        for s in sets:
            cmd += ["--set", s]
        if alg:
            cmd += ["--algorithm", alg]
        return cmd

    def one(self, k):
        t0 = time.time()
        p = subprocess.run(self.command(k), cwd=ROOT, capture_output=True, text=True)
        wall = time.time() - t0
        if p.returncode != 0:
            msg = (p.stderr.strip() or p.stdout.strip()).splitlines()
            return k, {"error": msg[-1] if msg else "exit %d" % p.returncode}, wall
        return k, json.loads(p.stdout), wall

    def run(self, keys, label=""):
        todo = [k for k in dict.fromkeys(keys) if k not in self.results]
        if not todo:
            return
        done, last = 0, time.time()
        with concurrent.futures.ThreadPoolExecutor(max_workers=self.jobs) as pool:
            for fut in concurrent.futures.as_completed([pool.submit(self.one, k) for k in todo]):
                k, r, wall = fut.result()
                self.results[k], self.wall[k] = r, wall
                done += 1
                if wall > SLOW_RUN_S:
                    print("validate_collectives: slow run (%.1f s > %.0f s): %s" % (wall, SLOW_RUN_S, describe(k)),
                          file=sys.stderr, flush=True)
                now = time.time()
                if done == len(todo) or now - last >= 10 or done % 50 == 0:
                    last = now
                    print("validate_collectives: %s%d / %d runs, %.0f s elapsed" % (
                        label and label + ": ", done, len(todo), now - self.t0), file=sys.stderr, flush=True)

    def get(self, *a):
        return self.results.get(self.key(*a))

    def slowest(self):
        return max(self.wall.items(), key=lambda kv: kv[1]) if self.wall else (None, 0.0)


def describe(k):
    platform, nodes, coll, alg, size, sets = k
    return "%s %d node%s %s %s%s%s" % (platform, nodes, "s" if nodes > 1 else "", coll, size_text(size),
                                       " --algorithm " + alg if alg else "",
                                       "".join(" --set " + s for s in sets))


def busbw(coll, size, seconds, n):
    """nccl-tests' bus bandwidth in GB/s (1e9 B/s) for nccl-tests size `size` over n ranks."""
    if not seconds or seconds <= 0:
        return None
    algbw = size / seconds / 1e9
    return algbw * (2.0 * (n - 1) / n if coll == "all_reduce" else (n - 1.0) / n)


# ---- formatting ---------------------------------------------------------------------------------------
def fmt_bw(v):
    if v is None:
        return "-"
    return "%.3g" % v if v < 10 else "%.1f" % v


def fmt_err(e):
    return "-" if e is None else "%+.0f %%" % (100 * e)


def rel(model, published):
    return None if model is None or not published else (model - published) / published


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


# ---- the document -------------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--simrun", default=os.path.join(ROOT, "build", "bin", "simrun"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "collectives.md"))
    ap.add_argument("--data", default=os.path.join(ROOT, "docs", "data", "nccl_tests_published.yaml"))
    ap.add_argument("--jobs", type=int, default=2, choices=[1, 2])
    ap.add_argument("--quick", action="store_true", help="only 1 and 2 nodes (a smoke test)")
    a = ap.parse_args()
    if not os.access(a.simrun, os.X_OK):
        sys.exit("validate_collectives.py: no simrun at %s (build first: scripts/build.sh)" % a.simrun)

    t_start = time.time()
    published = read_published(a.data)
    nodes_list = [1, 2] if a.quick else NODES
    runner = Runner(a.simrun, a.jobs)

    # ---- the published points (what each needs run)
    rows = []  # one per published point
    for s in published:
        use = SERIES_USE.get(s["name"])
        if not use:
            continue
        platform, nodes = use["platform"], use["nodes"]
        for p in s["points"]:
            if p.get("gpus", 8) not in (8, None):
                continue
            b, pub = p.get("bytes"), p.get("busbw_GBps")
            if pub is None or (b is not None and (b < KiB or b > MAX_SIZE)):
                continue
            coll = point_collective(s, p)
            plateau = b is None
            at = 8 * GiB if plateau else b  # a plateau of unstated size: compared at 8 GiB
            nccl = point_nccl_algorithm(use, s, p)
            counted, why = use["counted"], use.get("why", "")
            lo_hi = use.get("erratic")
            if counted and lo_hi and not plateau and lo_hi[0] <= b <= lo_hi[1]:
                counted, why = False, "flagged erratic by the data file (8 KiB-128 MiB)"
            if p.get("time_us") and b and pub < 10:
                # nccl-tests prints busbw with 2 decimals: at small sizes take it from the time column
                n = 8 * nodes
                pub = b / (p["time_us"] * 1e-6) / 1e9 * (2.0 * (n - 1) / n if coll == "all_reduce" else (n - 1.0) / n)
            if use.get("per_nic"):
                pub = pub * 8  # per NIC x 8 NICs = node busbw (the data file's reading)
            # NCCL's algorithm in partsim (one node): ring for Ring and where the source does not say,
            # in_switch for NVLS
            matched_alg = ({"NVLS": "in_switch"}.get(nccl, "ring")) if nodes == 1 else None
            rows.append(dict(series=s["name"], platform=platform, nodes=nodes, coll=coll, size=b, at=at,
                             plateau=plateau, pub=pub, nccl=nccl or "not stated", counted=counted, why=why,
                             proxy=use.get("proxy", False), sets=tuple(use.get("sets", ())), matched_alg=matched_alg))

    need = {}
    for r in rows:
        if not r["sets"]:
            need.setdefault((r["platform"], r["nodes"], r["coll"]), set()).add(r["at"])

    def sizes(platform, nodes, coll):
        return sorted(set(GRID) | need.get((platform, nodes, coll), set()))

    # time one run first (reported in the document)
    t0 = time.time()
    runner.run([runner.key("dgx_a100", 16, "all_reduce", None, GiB, ())], "timing run")
    one_run_s = time.time() - t0
    # which one-node algorithms run where: probe once (an algorithm that does not run here fails at every size)
    one_node_algs = {}
    probes = [runner.key(platform, 1, coll, alg, MiB, ()) for platform in PLATFORMS for coll in COLLECTIVES
              for alg in ["ring", "in_switch"] + (["double_binary_tree"] if coll == "all_reduce" else [])]
    runner.run(probes, "probes")
    for k in probes:
        if "error" not in runner.results[k]:
            one_node_algs.setdefault((k[0], k[2]), []).append(k[3])

    keys = []
    for platform in PLATFORMS:
        for nodes in nodes_list:
            for coll in COLLECTIVES:
                for b in sizes(platform, nodes, coll):
                    keys.append(runner.key(platform, nodes, coll, None, b, ()))
        for coll in COLLECTIVES:
            for alg in one_node_algs.get((platform, coll), []):
                for b in sizes(platform, 1, coll):
                    keys.append(runner.key(platform, 1, coll, alg, b, ()))
    for r in rows:
        keys.append(runner.key(r["platform"], r["nodes"], r["coll"], None, r["at"], r["sets"]))
        if r["matched_alg"]:
            keys.append(runner.key(r["platform"], 1, r["coll"], r["matched_alg"], r["at"], ()))
        if r["counted"]:
            keys.append(runner.key(r["platform"], r["nodes"], r["coll"], None, r["at"], LINE_RATE))
    runner.run(keys, "runs")
    total_s = time.time() - t_start
    ok = [r for r in runner.results.values() if "error" not in r]
    # Replay against the formula, without the tree and without the runs on shared NICs (see the text).
    plain = [r for k, r in runner.results.items() if "error" not in r and r.get("formula_s")
             and r.get("algorithm") != "double_binary_tree" and not any("nics_per_node" in x for x in k[5])]
    errors = [(k, r["error"]) for k, r in runner.results.items() if "error" in r and k not in probes]

    # ---- lookups
    def bw(platform, nodes, coll, alg, b, sets=()):
        r = runner.get(platform, nodes, coll, alg, b, sets)
        if not r or "error" in r:
            return None
        return busbw(coll, b, r["simulated_s"], 8 * nodes)

    def chosen(platform, nodes, coll, alg, b, sets=()):
        """The algorithm/protocol simrun ran, e.g. 'hierarchical/Simple'."""
        r = runner.get(platform, nodes, coll, alg, b, sets)
        if not r or "error" in r:
            return "-"
        return (r.get("algorithm") or alg or "?") + ("/" + r["protocol"] if r.get("protocol") else "")

    # ---- comparisons
    for r in rows:
        p, n, c, at = r["platform"], r["nodes"], r["coll"], r["at"]
        r["shipped"] = bw(p, n, c, None, at, r["sets"])
        r["e_shipped"] = rel(r["shipped"], r["pub"])
        r["by"] = chosen(p, n, c, None, at, r["sets"])
        r["matched"] = bw(p, 1, c, r["matched_alg"], at) if r["matched_alg"] else None
        r["e_matched"] = rel(r["matched"], r["pub"])
        r["matched_by"] = chosen(p, 1, c, r["matched_alg"], at) if r["matched_alg"] else "-"
        r["line"] = bw(p, n, c, None, at, LINE_RATE) if r["counted"] else None
        r["e_line"] = rel(r["line"], r["pub"])
    unused = [k for k in GAP_WHY if not any((r["series"], size_class(r)) == k for r in rows)]
    for k in unused:
        print("validate_collectives: GAP_WHY key %r matches no published point" % (k,), file=sys.stderr)

    # ---- write the document
    L = []
    w = L.append
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

    # ---- inputs
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

    # ---- summary
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

    # ---- point table
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

    # ---- full partsim sweeps
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
                cells = [size_text(b), fmt_bw(bw(platform, nodes, "all_reduce", None, b)),
                         "`%s`" % chosen(platform, nodes, "all_reduce", None, b),
                         fmt_bw(bw(platform, nodes, "all_gather", None, b)),
                         fmt_bw(bw(platform, nodes, "reduce_scatter", None, b))]
                for c, alg in ctx:
                    cells.append(fmt_bw(bw(platform, 1, c, alg, b)))
                w("| " + " | ".join(cells) + " |")
    w("")

    # ---- explanations: the hand-written text of docs/data/collectives_gaps.md
    w("## Why the gaps (every counted point over its aim)")
    w("")
    with open(GAPS_FILE, encoding="utf-8") as f:
        w(f.read().rstrip())

    with open(a.out, "w", encoding="utf-8") as f:
        f.write("\n".join(L).rstrip() + "\n")

    # ---- report on stderr
    by_nodes = {}
    for k, s in runner.wall.items():
        by_nodes.setdefault(k[1], []).append(s)
    print("validate_collectives: run wall time by nodes: " + "; ".join(
        "%d: %d runs, mean %.2f s, max %.2f s" % (n, len(v), sum(v) / len(v), max(v)) for n, v in sorted(by_nodes.items())),
        file=sys.stderr)
    if slow_k:
        print("validate_collectives: slowest run %.2f s: %s" % (slow_s, describe(slow_k)), file=sys.stderr)
    if errors:
        print("validate_collectives: %d runs failed, first: %s: %s" % (len(errors), describe(errors[0][0]), errors[0][1]),
              file=sys.stderr)
    for r in sorted(rows, key=lambda r: (r["platform"], r["nodes"], r["coll"], r["at"], r["series"])):
        aim = aim_of(r)
        if r["counted"] and aim is not None and r["e_shipped"] is not None and abs(r["e_shipped"]) > aim:
            print("over aim: %s %dn %s %s %s: published %s, shipped %s (%s, %s), line rate %s (%s)%s" % (
                r["platform"], r["nodes"], r["coll"], "plateau" if r["plateau"] else size_text(r["size"]), r["series"],
                fmt_bw(r["pub"]), fmt_bw(r["shipped"]), fmt_err(r["e_shipped"]), r["by"], fmt_bw(r["line"]),
                fmt_err(r["e_line"]), ("; %s %s (%s)" % (r["matched_by"], fmt_bw(r["matched"]), fmt_err(r["e_matched"])))
                if r["matched_alg"] else ""), file=sys.stderr)
    print("wrote %s: %d runs in %.0f s (one run %.2f s, slowest %.2f s), %d published points compared" % (
        os.path.relpath(a.out), len(runner.results), time.time() - t_start, one_run_s, slow_s, len(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
