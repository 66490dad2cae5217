#!/usr/bin/python3
"""Validate partsim's collectives on the DGX A100 and DGX H100 platforms against published nccl-tests
bus bandwidths, and write docs/collectives.md.

Usage: scripts/validate_collectives.py [--simrun build/bin/simrun] [--out docs/collectives.md]
           [--jobs 2] [--quick]

What it does:
- runs `simrun --config configs/dgx_{a100,h100}.yaml --set system.cluster.nodes=N --collective C
  --bytes S --json -` for N in 1, 2, 4, 8, 16; C in all_reduce, all_gather, reduce_scatter; S from
  1 KiB to 8 GiB in powers of 4 (plus every size a published point needs, up to 16 GiB); with the
  platform's default algorithm, as shipped and with the NCCL parameters proposed below (PROPOSAL);
  on one node also --algorithm ring, double_binary_tree (all_reduce) and in_switch (where it runs);
- turns every simulated time into nccl-tests' bus bandwidth (nccl-tests doc/PERFORMANCE.md):
  algbw = S / t with S nccl-tests' "size"; busbw = algbw x 2(n-1)/n (all_reduce), x (n-1)/n
  (all_gather, reduce_scatter). partsim's --bytes is the same S (sim/collectives/collectives.hpp:
  the buffer reduced for reduce_scatter and all_reduce, the full gathered result for all_gather;
  nccl-tests: the total array, recvcount x n x sizeof(type) for reduce_scatter, sendcount x n x
  sizeof(type) for all_gather), so S = --bytes and no conversion is needed;
- reads the published series (COMPARISONS) from docs/data/nccl_tests_published.yaml and compares at
  matching sizes (every published size is also simulated, so no interpolation is needed);
- writes docs/collectives.md: how it was made, inputs and comparisons, tables, a summary against the
  aims (within 10 % from 64 MiB up, within 25 % at 1 MiB and below) and the explanation of the gaps.

python3 standard library only.
At most 2 simrun processes at a time (--jobs 1 or 2).
"""
import argparse
import concurrent.futures
import datetime
import json
import math
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

# ---- the PROPOSAL: NCCL parameters from input sources only (never from the compared numbers) ----
# protocol_efficiency: NCCL's effective bandwidth per NVLink in its topology search and tuning
#   model (src/graph/topo.h: SM80_NVLINK_BW 20.0, SM90_NVLINK_BW 20.6 GB/s per link and direction)
#   over the line rate of one NVLink3/NVLink4 link (25 GB/s per direction, NVIDIA A100/H100
#   datasheets): 20.0/25 = 0.80, 20.6/25 = 0.824.
# endpoint_overhead: NCCL's per-step hardware latency of a ring over NVLink with the Simple protocol
#   (src/graph/tuning.cc, hwLat[NVLINK][RING][SIMPLE] = 3.4 us), the protocol NCCL runs at the sizes
#   of the 10 % aim.
PROPOSAL = {
    "dgx_a100": {"system.collectives.protocol_efficiency": "0.8", "system.collectives.endpoint_overhead": "3.4us"},
    "dgx_h100": {"system.collectives.protocol_efficiency": "0.824", "system.collectives.endpoint_overhead": "3.4us"},
}
# Sensitivity only (not proposed): NCCL's other two protocols, same sources (tuning.cc: Ring/LL x0.5,
# hwLat 0.6 us; Ring/LL128 x0.92, hwLat 1.9 us; on top of the effective NVLink fraction above).
PROTOCOLS = {"LL": (0.5, "0.6us"), "LL128": (0.92, "1.9us"), "Simple": (1.0, "3.4us")}
NVLINK_EFF = {"dgx_a100": 0.80, "dgx_h100": 0.824}
# NCCL's own tuning model (tuning.cc, docs/data/collective_parameters.md section 3), one node, ring:
# base latency and NVLink per-step latency (us) per protocol, the bandwidth of all NVLinks at NCCL's
# effective per-link rate (12 x 20.0 / 18 x 20.6 GB/s), LL capped at llMaxBw (87.7 / 141.0 GB/s).
NCCL_RING = {"LL": (6.6, 0.6), "LL128": (14.0, 1.9), "Simple": (8.4, 3.4)}
NCCL_BUS = {"dgx_a100": (12 * 20.0, 87.7), "dgx_h100": (18 * 20.6, 141.0)}


def nccl_ring_model_us(platform, proto, size, n=8):
    """NCCL's modelled time (us) of a one-node ring all_reduce: base + 2(n-1) hwLat + size / algBw."""
    base, hw = NCCL_RING[proto]
    bus, ll_max = NCCL_BUS[platform]
    bus = {"LL": min(ll_max, 0.5 * bus), "LL128": 0.92 * bus, "Simple": bus}[proto]
    algbw = bus * n / (2.0 * (n - 1))  # GB/s
    return base + 2 * (n - 1) * hw + size / (algbw * 1e3)

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


class Runner:
    def __init__(self, simrun, jobs):
        self.simrun, self.jobs = simrun, jobs
        self.results, self.wall = {}, []

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

    def run(self, keys):
        todo = [k for k in dict.fromkeys(keys) if k not in self.results]
        with concurrent.futures.ThreadPoolExecutor(max_workers=self.jobs) as pool:
            for k, r, wall in pool.map(self.one, todo):
                self.results[k] = r
                self.wall.append(wall)

    def get(self, *a):
        return self.results.get(self.key(*a))


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


def cluster_keys(platform):
    """key -> value of the cluster table of configs/<platform>.yaml (for the inputs table)."""
    out, inside = {}, False
    with open(os.path.join(ROOT, "configs", platform + ".yaml"), encoding="utf-8") as f:
        for line in f:
            if re.match(r"^  cluster:", line):
                inside = True
                continue
            if inside and re.match(r"^  \S", line):
                inside = False
            m = re.match(r"^    (\w+):\s*([^#\n]+)", line)
            if m and inside:
                out[m.group(1)] = m.group(2).strip()
            m = re.match(r"^    chunk:\s*(\S+)", line)
            if m:
                out["collectives.chunk"] = m.group(1)
    return out


INPUT_SOURCES = {
    "gpus_per_node": "NVIDIA DGX A100 / DGX H100 datasheets (8 GPUs per node)",
    "nvlink_bandwidth": "NVLink3: 12 links x 25 GB/s; NVLink4: 18 links x 25 GB/s per direction (NVIDIA A100 / H100 datasheets)",
    "nvlink_latency": "partsim's choice (no vendor number): 2 hops = 1 us GPU to GPU",
    "in_switch_reduction": "NVSwitch gen 3 reduces (NVLink SHARP), gen 2 does not (Hopper whitepaper)",
    "nics_per_node": "DGX A100: 8 ConnectX-6 HDR; DGX H100: 8 ConnectX-7 NDR (DGX datasheets / user guides)",
    "nic_bandwidth": "HDR 200 Gb/s, NDR 400 Gb/s per port (InfiniBand Trade Association)",
    "network_latency": "partsim's choice: 2 links = 1.4 us GPU -> leaf -> GPU (ConnectX 'sub 600 ns', HDR switch ~130 ns)",
    "fabric": "rail-optimized (NVIDIA DGX SuperPOD reference architectures)",
    "collectives.chunk": "NCCL_BUFFSIZE 4 MiB / NCCL_STEPS 8 = 512 KiB (NCCL init.cc, device.h); used by the tree only",
}


def gap_cause(r, err, aim_only=True):
    """The number of the explanation (section "Why the gaps") for a point's error over its aim."""
    if err is None:
        return ""
    size = 8 * GiB if r["plateau"] else r["size"]
    aim = AIM_SMALL if size <= SMALL else (AIM_LARGE if size >= LARGE else None)
    if aim is not None and abs(err) <= aim:
        return ""
    if size <= SMALL:
        return "3"
    if size < LARGE:
        return "2"
    if r["nodes"] == 1:
        if r["nccl"] == "NVLS":
            return "4"
        return "1" if err > 0.2 or size >= GiB else "1, 2"
    if r["nodes"] == 2:
        return "5a" if size <= 256 * MiB else "5"
    return "6"


# ---- the document -------------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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

    # published sizes each (platform, nodes, collective) needs, and the context machines
    need = {}
    context_keys = []
    for s in published:
        use = SERIES_USE.get(s["name"])
        if not use:
            continue
        for p in s["points"]:
            b = p.get("bytes")
            if b is None:
                b = 8 * GiB  # a plateau of unstated size: compared at the largest size
            if b < KiB or b > MAX_SIZE or p.get("gpus", 8) not in (8, None):
                continue
            c = point_collective(s, p)
            if use.get("sets"):
                context_keys.append(runner.key(use["platform"], use["nodes"], c, None, b, use["sets"]))
            need.setdefault((use["platform"], use["nodes"], c), set()).add(b)

    def sizes(platform, nodes, coll):
        return sorted(set(GRID) | need.get((platform, nodes, coll), set()))

    keys = []
    for platform in PLATFORMS:
        prop = tuple("%s=%s" % kv for kv in PROPOSAL[platform].items())
        for nodes in nodes_list:
            for coll in COLLECTIVES:
                for b in sizes(platform, nodes, coll):
                    keys.append(runner.key(platform, nodes, coll, None, b, ()))
                    keys.append(runner.key(platform, nodes, coll, None, b, prop))
        for coll in COLLECTIVES:
            algs = ["ring", "in_switch"] + (["double_binary_tree"] if coll == "all_reduce" else [])
            for alg in algs:
                # probe once: an algorithm that does not run here fails at every size
                runner.run([runner.key(platform, 1, coll, alg, MiB, ())])
                if "error" in runner.get(platform, 1, coll, alg, MiB, ()):
                    continue
                for b in sizes(platform, 1, coll):
                    keys.append(runner.key(platform, 1, coll, alg, b, ()))
                    if alg != "double_binary_tree":
                        keys.append(runner.key(platform, 1, coll, alg, b, prop))
    # sensitivity to NCCL's protocol constants at the small published sizes (one node, all_reduce)
    sens = {}
    for platform in PLATFORMS:
        for proto, (factor, lat) in PROTOCOLS.items():
            sets = ("system.collectives.protocol_efficiency=%.4g" % (factor * NVLINK_EFF[platform]),
                    "system.collectives.endpoint_overhead=" + lat)
            sens[(platform, proto)] = sets
            for b in (KiB, 64 * KiB, MiB):
                for nodes in (1, 2):
                    keys.append(runner.key(platform, nodes, "all_reduce", None, b, sets))
    keys += context_keys
    # time one run first (reported in the document)
    t0 = time.time()
    runner.run([runner.key("dgx_a100", 16, "all_reduce", None, GiB, ())])
    one_run_s = time.time() - t0
    runner.run(keys)
    total_s = time.time() - t_start
    errors = [(k, r["error"]) for k, r in runner.results.items() if "error" in r and k[3] not in ("in_switch",)]

    # ---- busbw lookup
    def bw(platform, nodes, coll, alg, b, sets=()):
        r = runner.get(platform, nodes, coll, alg, b, sets)
        if not r or "error" in r:
            return None
        return busbw(coll, b, r["simulated_s"], 8 * nodes)

    def alg_name(platform, nodes, coll, sets=()):
        r = runner.get(platform, nodes, coll, None, MiB, sets)
        return r.get("algorithm", "?") if r and "error" not in r else "?"

    def prop_sets(platform):
        return tuple("%s=%s" % kv for kv in PROPOSAL[platform].items())

    # ---- comparisons
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
            at = 8 * GiB if plateau else b
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
            sets = use.get("sets", ())
            shipped = bw(platform, nodes, coll, None, at, sets)
            proposed = None if sets else bw(platform, nodes, coll, None, at, prop_sets(platform))
            matched_alg = {"Ring": "ring", "NVLS": "in_switch"}.get(nccl) if nodes == 1 else None
            matched = bw(platform, 1, coll, matched_alg, at) if matched_alg else None
            matched_p = bw(platform, 1, coll, matched_alg, at, prop_sets(platform)) if matched_alg else None
            if nccl is None and nodes == 1 and platform == "dgx_a100":
                matched_alg, matched, matched_p = "ring", bw(platform, 1, coll, "ring", at), \
                    bw(platform, 1, coll, "ring", at, prop_sets(platform))
            rows.append(dict(series=s["name"], platform=platform, nodes=nodes, coll=coll, size=b, at=at, plateau=plateau,
                             pub=pub, nccl=nccl or "not stated", counted=counted, why=why, proxy=use.get("proxy", False),
                             confidence=s.get("confidence", "?"), note=p.get("note", ""), sets=sets,
                             shipped=shipped, e_shipped=rel(shipped, pub), proposed=proposed, e_proposed=rel(proposed, pub),
                             matched_alg=matched_alg, matched=matched, e_matched=rel(matched, pub),
                             matched_p=matched_p, e_matched_p=rel(matched_p, pub)))

    # ---- write the document
    L = []
    w = L.append
    head = git("rev-parse", "--short", "HEAD")
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    version = ""
    for r in runner.results.values():
        if "version" in r:
            version = r["version"]
            break
    w("# Collectives: partsim against published nccl-tests bus bandwidths (DGX A100, DGX H100)")
    w("")
    w("Generated by `scripts/validate_collectives.py` (do not edit by hand; rerun the script).")
    w("")
    w("## How this was made")
    w("")
    w("- command: `python3 scripts/validate_collectives.py%s`" % (" --quick" if a.quick else ""))
    w("- date: %s; partsim commit `%s`%s; simrun version `%s`" % (
        datetime.date.today().isoformat(), head, " (working tree with uncommitted changes)" if dirty else "", version))
    w("- %d simrun runs (SimGrid replay of each collective's schedule), %d at a time; one run "
      "(dgx_a100, 16 nodes, all_reduce, 1 GiB) took %.2f s; the whole script %.0f s." % (
          len(runner.results), a.jobs, one_run_s, total_s))
    w("- every run: `build/bin/simrun --config configs/<platform>.yaml --set system.cluster.nodes=N "
      "--collective C --bytes S --json - [--algorithm A] [--set system.collectives.K=V]`; the number used is "
      "`simulated_s` (the replay); the largest |simulated - closed form| / closed form over all runs here is "
      "%.1e (the schedules are uncontended, so the closed form and the replay agree)." % max(
          [abs(r.get("rel_diff", 0)) for r in runner.results.values() if "error" not in r] or [0]))
    if errors:
        w("- runs that failed: %d (first: `%s`: %s)" % (len(errors), " ".join(map(str, errors[0][0])), errors[0][1]))
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
      "same formula (nccl-tests prints busbw with two decimals: 0.05 GB/s could be 0.045-0.055).")
    w("")
    w("### Inputs (model parameters) and comparisons (published numbers) are kept apart")
    w("")
    w("Inputs: the platform files as shipped, whose numbers come from datasheets (sources in each file's "
      "header), and, for the PROPOSAL column only, NCCL's documented constants "
      "(docs/data/collective_parameters.md). No input was set from a number in the comparison file.")
    w("")
    w("| parameter | dgx_a100 | dgx_h100 | source |")
    w("| --- | --- | --- | --- |")
    ka, kh = cluster_keys("dgx_a100"), cluster_keys("dgx_h100")
    for k, src in INPUT_SOURCES.items():
        w("| `%s` | %s | %s | %s |" % (k, ka.get(k, "-"), kh.get(k, "-"), src))
    w("| default algorithm | %s | %s | platform files: `system.collectives.algorithm` (NCCL-like rails across nodes; "
      "on one node a ring) |" % (alg_name("dgx_a100", 2, "all_reduce"), alg_name("dgx_h100", 2, "all_reduce")))
    w("| `endpoint_overhead`, `protocol_efficiency`, `channels` | not set (0 s, 1, 1) | not set (0 s, 1, 1) | "
      "as shipped; see PROPOSAL |")
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
    def summarize(pred):
        sel = [r for r in rows if r["counted"] and pred(r)]
        return sel

    classes = [("<= 1 MiB (aim 25 %)", lambda r: not r["plateau"] and r["size"] <= SMALL, AIM_SMALL),
               ("1-64 MiB (no aim)", lambda r: not r["plateau"] and SMALL < r["size"] < LARGE, None),
               (">= 64 MiB (aim 10 %)", lambda r: not r["plateau"] and r["size"] >= LARGE, AIM_LARGE),
               ("plateau, size not stated (vs 8 GiB; aim 10 %)", lambda r: r["plateau"], AIM_LARGE)]
    w("## Summary against the aims")
    w("")
    w("Counted points only (DGX-equivalent measurements; see the tables for context points). Error = "
      "(partsim busbw - published busbw) / published busbw. *As shipped*: the platform's default algorithm "
      "(`hierarchical`; on one node a ring over NVSwitch). *NCCL's algorithm*: on one node, the partsim "
      "algorithm that does what NCCL did for that point (`ring` for Ring, `in_switch` for NVLS; `ring` where "
      "the source does not say, the A100 default). *Proposed*: as shipped plus the PROPOSAL parameters.")
    w("")
    w("| platform | nodes | size class | points | as shipped: within aim / max abs error | NCCL's algorithm: within / max | proposed: within / max | proposed + NCCL's algorithm: within / max |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- |")

    def stat(sel, key, aim):
        errs = [r[key] for r in sel if r[key] is not None]
        if not errs:
            return "-"
        mx = max(abs(e) for e in errs)
        if aim is None:
            return "%d pts / %.0f %%" % (len(errs), 100 * mx)
        return "%d of %d / %.0f %%" % (sum(abs(e) <= aim for e in errs), len(errs), 100 * mx)

    for platform in PLATFORMS:
        for nodes in sorted({r["nodes"] for r in rows if r["platform"] == platform and r["counted"]}):
            for label, pred, aim in classes:
                sel = summarize(lambda r: r["platform"] == platform and r["nodes"] == nodes and pred(r))
                if not sel:
                    continue
                w("| %s | %d | %s | %d | %s | %s | %s | %s |" % (
                    platform, nodes, label, len(sel), stat(sel, "e_shipped", aim), stat(sel, "e_matched", aim),
                    stat(sel, "e_proposed", aim), stat(sel, "e_matched_p", aim)))
    w("")
    w("No published DGX A100 multi-node (8 HDR NICs) series, no DGX H100 sweep at 4-16 nodes, no all_gather / "
      "reduce_scatter sweep on either node and no H100 one-node point below 256 MiB exist in the data file: "
      "those partsim numbers below stand without a comparison.")
    w("")

    # ---- point tables
    w("## Every published point beside partsim")
    w("")
    w("busbw in GB/s. `shipped` = default algorithm as shipped; `NCCL alg` = partsim's algorithm matching NCCL's "
      "(one node); `proposed` = default algorithm with the PROPOSAL parameters. Context rows (not counted) are in "
      "italics in the use column. Machines that are not a DGX run on the platform with the overrides shown "
      "(the measured machine's NIC count). `gap: why` names the explanation (section \"Why the gaps\") of every "
      "error over its aim in any of the four partsim columns (counted points).")
    w("")
    w("| platform | nodes | collective | size | series | NCCL | published | shipped | err | NCCL alg (partsim) | err | proposed | err | proposed + NCCL alg | err | gap: why | use |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in sorted(rows, key=lambda r: (r["platform"], r["nodes"], r["coll"], r["at"], r["series"])):
        size = "plateau (at 8 GiB)" if r["plateau"] else size_text(r["size"])
        use = "counted" + (" (proxy)" if r["proxy"] else "") if r["counted"] else "*context: %s%s*" % (
            r["why"], "; `--set " + " ".join(r["sets"]) + "`" if r["sets"] else "")
        causes = []
        for key in ("e_shipped", "e_matched", "e_proposed", "e_matched_p"):
            for c in (gap_cause(r, r[key]) if r["counted"] else "").split(", "):
                if c and c not in causes:
                    causes.append(c)
        w("| %s | %d | %s | %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["platform"], r["nodes"], r["coll"], size, r["series"], r["nccl"], fmt_bw(r["pub"]), fmt_bw(r["shipped"]),
            fmt_err(r["e_shipped"]), ("%s %s" % (r["matched_alg"], fmt_bw(r["matched"]))) if r["matched_alg"] else "-",
            fmt_err(r["e_matched"]), fmt_bw(r["proposed"]), fmt_err(r["e_proposed"]),
            fmt_bw(r["matched_p"]) if r["matched_alg"] else "-", fmt_err(r["e_matched_p"]),
            ", ".join(causes) or "-", use))
    w("")

    # ---- full partsim sweeps
    w("## partsim bus bandwidth against size (GB/s)")
    w("")
    w("Default algorithm (`hierarchical`), as shipped / with the PROPOSAL parameters. One-node context: "
      "`ring`, `in_switch` (NVLink SHARP; only where the switch reduces: DGX H100), `double_binary_tree` "
      "(all_reduce), as shipped. On one node `hierarchical` is a ring over the NVSwitch (the same schedule as "
      "`ring`).")
    for platform in PLATFORMS:
        prop = prop_sets(platform)
        for nodes in nodes_list:
            w("")
            w("### %s, %d node%s (%d GPUs)" % (platform, nodes, "s" if nodes > 1 else "", 8 * nodes))
            w("")
            hdr = ["size"]
            for coll in COLLECTIVES:
                hdr += ["%s shipped" % coll, "proposed"]
            ctx = []
            if nodes == 1:
                for coll in COLLECTIVES:
                    for alg in ("ring", "in_switch", "double_binary_tree"):
                        if runner.get(platform, 1, coll, alg, KiB, ()) and "error" not in runner.get(platform, 1, coll, alg, KiB, ()):
                            ctx.append((coll, alg))
                hdr += ["%s %s" % (c, a) for c, a in ctx]
            w("| " + " | ".join(hdr) + " |")
            w("|" + " --- |" * len(hdr))
            all_sizes = sorted(set().union(*[set(sizes(platform, nodes, c)) for c in COLLECTIVES]))
            for b in all_sizes:
                cells = [size_text(b)]
                for coll in COLLECTIVES:
                    cells += [fmt_bw(bw(platform, nodes, coll, None, b)), fmt_bw(bw(platform, nodes, coll, None, b, prop))]
                for c, alg in ctx:
                    cells.append(fmt_bw(bw(platform, 1, c, alg, b)))
                w("| " + " | ".join(cells) + " |")
    w("")

    # ---- sensitivity
    w("## Sensitivity to NCCL's protocol constants (small sizes, all_reduce, default algorithm)")
    w("")
    w("NCCL picks a protocol per size; partsim has one `endpoint_overhead` and one `protocol_efficiency` per "
      "platform. For the sizes where latency dominates, the busbw with each protocol's constants "
      "(tuning.cc: per-step NVLink ring latency LL 0.6 us, LL128 1.9 us, Simple 3.4 us; bandwidth factor "
      "0.5, 0.92, 1, times NCCL's effective NVLink fraction 0.80 / 0.824). Not proposed: shown so that the "
      "choice of Simple in the PROPOSAL can be judged.")
    w("")
    w("| platform | nodes | size | as shipped | LL | LL128 | Simple (= proposal) | published |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for platform in PLATFORMS:
        for nodes in (1, 2):
            for b in (KiB, 64 * KiB, MiB):
                pubs = [r for r in rows if r["platform"] == platform and r["nodes"] == nodes and r["coll"] == "all_reduce"
                        and r["size"] == b and r["counted"]]
                w("| %s | %d | %s | %s | %s | %s | %s | %s |" % (
                    platform, nodes, size_text(b), fmt_bw(bw(platform, nodes, "all_reduce", None, b)),
                    *[fmt_bw(bw(platform, nodes, "all_reduce", None, b, sens[(platform, p)])) for p in PROTOCOLS],
                    ", ".join(fmt_bw(r["pub"]) for r in pubs) or "-"))
    w("")

    # ---- explanations (the numbers quoted are computed above)
    def pick(series, size, key="e_shipped"):
        for r in rows:
            if r["series"] == series and r["size"] == size:
                return r
        return None

    w(EXPLANATIONS.format(
        a100_1g=fmt_bw(bw("dgx_a100", 1, "all_reduce", None, GiB)),
        a100_1g_p=fmt_bw(bw("dgx_a100", 1, "all_reduce", None, GiB, prop_sets("dgx_a100"))),
        a100_1m=fmt_bw(bw("dgx_a100", 1, "all_reduce", None, MiB)),
        a100_1m_p=fmt_bw(bw("dgx_a100", 1, "all_reduce", None, MiB, prop_sets("dgx_a100"))),
        a100_1m_ll=fmt_bw(bw("dgx_a100", 1, "all_reduce", None, MiB, sens[("dgx_a100", "LL")])),
        a100_1m_ll128=fmt_bw(bw("dgx_a100", 1, "all_reduce", None, MiB, sens[("dgx_a100", "LL128")])),
        nccl_ll="%.0f" % nccl_ring_model_us("dgx_a100", "LL", MiB),
        nccl_ll128="%.0f" % nccl_ring_model_us("dgx_a100", "LL128", MiB),
        nccl_simple="%.0f" % nccl_ring_model_us("dgx_a100", "Simple", MiB),
        nccl_simple_256m="%.0f" % nccl_ring_model_us("dgx_a100", "Simple", 256 * MiB),
        nccl_simple_256m_bw="%.0f" % (256 * MiB / nccl_ring_model_us("dgx_a100", "Simple", 256 * MiB) / 1e3 * 14 / 8),
        h100_1g=fmt_bw(bw("dgx_h100", 1, "all_reduce", None, GiB)),
        h100_1g_sw=fmt_bw(bw("dgx_h100", 1, "all_reduce", "in_switch", GiB)),
        h100_1g_sw_p=fmt_bw(bw("dgx_h100", 1, "all_reduce", "in_switch", GiB, prop_sets("dgx_h100"))),
        h100_1g_p=fmt_bw(bw("dgx_h100", 1, "all_reduce", None, GiB, prop_sets("dgx_h100"))),
        h100_2n_8g=fmt_bw(bw("dgx_h100", 2, "all_reduce", None, 8 * GiB)),
        h100_2n_8g_p=fmt_bw(bw("dgx_h100", 2, "all_reduce", None, 8 * GiB, prop_sets("dgx_h100"))),
        h100_2n_1k=fmt_bw(bw("dgx_h100", 2, "all_reduce", None, KiB)),
        h100_2n_1k_t=("%.1f" % (1e6 * runner.get("dgx_h100", 2, "all_reduce", "", KiB, ())["simulated_s"]))
        if runner.get("dgx_h100", 2, "all_reduce", "", KiB, ()) else "-",
        h100_2n_1k_tp=("%.1f" % (1e6 * runner.get("dgx_h100", 2, "all_reduce", "", KiB, prop_sets("dgx_h100"))["simulated_s"]))
        if runner.get("dgx_h100", 2, "all_reduce", "", KiB, prop_sets("dgx_h100")) else "-",
        a100_16n=fmt_bw(bw("dgx_a100", 16, "all_reduce", None, 8 * GiB)) if 16 in nodes_list else "-",
        h100_16n=fmt_bw(bw("dgx_h100", 16, "all_reduce", None, 8 * GiB)) if 16 in nodes_list else "-",
    ))
    w(PROPOSAL_TEXT)

    with open(a.out, "w", encoding="utf-8") as f:
        f.write("\n".join(L).rstrip() + "\n")
    print("wrote %s: %d runs in %.0f s (one run %.2f s), %d published points compared" % (
        os.path.relpath(a.out), len(runner.results), time.time() - t_start, one_run_s, len(rows)))
    return 0


EXPLANATIONS = """## Why the gaps (every gap over the aim)

The numbers in the point table's `gap: why` column refer to these paragraphs.

**1. Large messages on one node, ring (DGX A100 all_reduce; H100/H200 Ring points, all_gather,
reduce_scatter): NVLink's achievable bandwidth.** partsim's ring over the NVSwitch runs at the line rate
of the GPU's NVLink ports (300 GB/s A100, 450 GB/s H100 per direction), so its busbw tends to the line
rate (A100 all_reduce at 1 GiB: {a100_1g} GB/s). NCCL does not reach it: its own topology model credits
20.0 GB/s (A100) and 20.6 GB/s (H100) per 25 GB/s link (NCCL src/graph/topo.h), about 80 %, and an NCCL
maintainer puts the protocol overhead at ~20 % (nccl-tests issue #212). The measured plateaus (A100
~230 GB/s, H100/H200 Ring ~362-368 GB/s for all three collectives) sit where that factor puts them. As
shipped partsim has `protocol_efficiency` 1, so it is 22-30 % high on these points; with the PROPOSAL
(0.80 / 0.824, NCCL's own constants, not fitted) A100 at 1 GiB becomes {a100_1g_p} GB/s and every such
point is within 3 %.

**2. Medium sizes on one A100 node (1-512 MiB, Galvatron fixture): NCCL approaches its plateau more
slowly than any latency model.** NCCL's own tuning model (Ring/Simple, base 8.4 us + 14 x 3.4 us, all
NVLinks at 20 GB/s per link) gives {nccl_simple_256m} us at 256 MiB, i.e. {nccl_simple_256m_bw} GB/s busbw;
the fixture measures 2339 us (200.8 GB/s) at 256 MiB and 202 GB/s at 512 MiB, then 231 GB/s at 1 GiB.
partsim with the PROPOSAL gives what NCCL's model gives (232.7 GB/s at 256 MiB), so the remaining
+16-21 % from 64 to 512 MiB is a difference between that measurement and NCCL's own model: pipeline
fill and drain of NCCL's chunked rings (2 MiB chunks per channel over tens of channels), the channel
count NCCL chooses per size, and the run's mode (one process launching on all 8 GPUs, `-g 8`). partsim
runs each ring step as one transfer of S/p (no chunks), so it has no fill and drain. As shipped partsim
also has no per-step overhead, so it reaches its plateau already at a few MiB and is 1.6-4x too fast
from 1 to 64 MiB.

**3. Small messages (<= 1 MiB): latency that partsim does not model as shipped.** At 1 MiB partsim as
shipped gives {a100_1m} GB/s on 8 A100 against 23.3 GB/s measured (78.8 us): 14 steps x (1 us route
latency + 0.44 us of data). NCCL's time there is dominated by what partsim leaves out unless
`endpoint_overhead` is set: the per-step hardware latency, the algorithm's base latency (no partsim key:
partsim has no per-collective constant term) and the kernel launch (not modelled). NCCL's own model puts
1 MiB at {nccl_ll} us (LL, which it would pick), {nccl_ll128} us (LL128) or {nccl_simple} us (Simple), all below
the measured 78.8 us, so this measurement also carries launch and single-process (`-g 8`) overhead
that NCCL's model does not. With the PROPOSAL (Simple's 3.4 us per step, 0.80) partsim gives
{a100_1m_p} GB/s (+14 %), but that agreement is partly fortuitous: with LL's constants (which NCCL would use)
it would be {a100_1m_ll} GB/s, with LL128's {a100_1m_ll128} GB/s (sensitivity table). On 2 DGX H100 at 1 KiB
partsim takes {h100_2n_1k_t} us as shipped and {h100_2n_1k_tp} us with the PROPOSAL against the measured
~40 us floor: the measured floor is NCCL's base latency, its network latencies (tuning.cc: NET per-step
latency 2.7-14 us, network post overhead 1-3 us), the launch on 8 GPUs from one process, and the
tree/NVLS-tree algorithms NCCL uses at small sizes across nodes; as shipped partsim charges 1 us per
NVLink step and 1.4 us per network step and nothing else, and the PROPOSAL's Simple 3.4 us per step
over all 16 steps over-charges the 14 NVLink steps for a message this small.

**4. One H100 node, all_reduce from 256 MiB: NCCL uses NVLS, partsim's default is a ring.** NCCL picks
NVLS (NVLink SHARP) for all_reduce on 8 H100/H200 from 2 MiB (NCCL_DEBUG on H200, ml-engineering), and
its busbw (~420-480 GB/s) exceeds what a ring can reach. partsim's default on dgx_h100 is
`hierarchical`, on one node a ring over the NVSwitch ({h100_1g} GB/s at 1 GiB as shipped): it lands within
10 % of the NVLS measurements only because, as shipped, the ring runs at the full line rate (the error
of paragraph 1 offsets the missing in-switch reduction). With the PROPOSAL efficiency the ring falls to
{h100_1g_p} GB/s, where NCCL's own Ring measurements are, and so 16-23 % below the NVLS points. partsim's
`in_switch` (NVLS) gives {h100_1g_sw} GB/s as shipped and {h100_1g_sw_p} GB/s with the PROPOSAL: too high,
because NCCL's NVLS loses a further factor (tuning.cc `nvlsEfficiency` 0.85 on Hopper: the switch's
reduction and multicast throughput) that partsim's single `protocol_efficiency` cannot apply to one
algorithm only; and partsim's in_switch moves S(p+1)/p per port in one step with no pipelining.
Choosing `in_switch` for all_reduce inside an H100 node is a platform-file change, not made here.

**5. Two DGX H100 nodes, all_reduce from 1 GiB: the hierarchical phases run one after the other.**
partsim's `hierarchical` does a reduce-scatter inside the node, an all-reduce across the rails, and an
all-gather inside the node, each phase after the previous one (docs/model.md "Steps and the step rule"),
so its time is the sum of the NVLink time (2 x 7/8 x S / 450 GB/s) and the NIC time (S/8 over
50 GB/s): {h100_2n_8g} GB/s at 8 GiB as shipped ({h100_2n_8g_p} GB/s proposed, which also derates the NICs)
against 434-472 GB/s measured from 2 GiB. That measurement is above the ring bound of 8 NICs x 50 GB/s =
400 GB/s, so NCCL ran a tree-like algorithm (NVLS tree: reduce inside the switch, exchange across
nodes) and overlapped the intra- and inter-node parts chunk by chunk; with the phases overlapped
partsim's time would be the larger of the two parts, not their sum. A pipelined hierarchical
schedule (and in-switch reduction inside the node) is the missing model feature: a change to the
algorithm, not a parameter. Beyond two nodes there is no DGX measurement to compare with; partsim gives
{a100_16n} GB/s (A100) and {h100_16n} GB/s (H100) all_reduce busbw at 16 nodes, 8 GiB.

**5a. Two DGX H100 nodes at 256 MiB: a step in the measurement.** The measured time doubles from 128 MiB
to 256 MiB (1616 -> 3231 us, the same 83 GB/s algbw) and then hardly grows to 512 MiB (3346 us): NCCL
changed algorithm, protocol or channel count between 256 and 512 MiB (the data file flags the series'
mid sizes up to 128 MiB as erratic). partsim has no such switch and is +87 % at 256 MiB as shipped.

**6. Points that are context only.** The GCP A3 Mega series is Ethernet with TCPXO, not a DGX; the
A100 multi-node series have 4 HDR NICs per node (run here with `nics_per_node=4` to describe that
machine; sizes mostly unknown); the maintainers' expectations (nccl-tests #212, #290) are not
measurements; the DGX H100 2-node points from 8 KiB to 128 MiB were flagged erratic by the data file
before this comparison (e.g. 1.66 ms at 64 KiB, slower than at 1 MiB).
"""

PROPOSAL_TEXT = """## PROPOSAL: NCCL parameters for the DGX platforms (not adopted; the column "proposed" above)

From input sources only (docs/data/collective_parameters.md; NCCL `NVIDIA/nccl` at 5067397c, whose
constants agree with v2.18.3 for these entries). Nothing here was chosen by looking at the compared
numbers; the protocol was chosen as the one NCCL runs at the sizes of the 10 % aim.

```yaml
# configs/dgx_a100.yaml
  collectives:
    protocol_efficiency: 0.8      # NCCL src/graph/topo.h SM80_NVLINK_BW 20.0 GB/s per NVLink3 link / 25 GB/s line rate
    endpoint_overhead: 3.4us      # NCCL src/graph/tuning.cc hwLat[NVLINK][RING][SIMPLE], per ring step
# configs/dgx_h100.yaml
  collectives:
    protocol_efficiency: 0.824    # NCCL src/graph/topo.h SM90_NVLINK_BW 20.6 GB/s per NVLink4 link / 25 GB/s line rate
    endpoint_overhead: 3.4us      # as above
```

What it does and what it cannot do:
- `protocol_efficiency` applies to every link, so it also derates the NICs (HDR 25 -> 20 GB/s, NDR
  50 -> 41 GB/s). NCCL's model takes the NIC's port speed as it is (Simple); the maintainers' expectation
  of 46-48 GB/s per NDR NIC (a comparison, not used) says the real loss there is smaller. A per-link-kind
  efficiency (NVLink vs network) would be the faithful form; partsim has one number.
- `endpoint_overhead` is one per-step latency for every step, intra-node and inter-node; NCCL's per-step
  latency over the network is larger (tuning.cc NET Ring Simple 14 us, plus the "flush" and the
  network post overhead), and NCCL switches to LL (0.6 us, half bandwidth) and LL128 (1.9 us, 0.92) at
  small sizes, which a fixed platform value cannot follow (see the sensitivity table).
- NCCL's base latency per collective (tuning.cc baseLatencies, 6.6-14 us) and the kernel launch have no
  partsim key; a per-collective constant (`system.collectives.launch_overhead`, say) would be needed.
- `channels` is not proposed: NCCL's channel count comes from its topology search and is not documented
  for these machines (the typical 24-32 is from logs we could not verify); partsim's `hierarchical`
  already loads every rail, and `channels` only affects `ring`.
- NVLS: NCCL's `nvlsEfficiency` 0.85 (Hopper) would apply to `in_switch` only; not expressible today.
"""

if __name__ == "__main__":
    sys.exit(main())
