"""The published nccl-tests numbers scripts/validate_collectives.py compares with: how each series of
docs/data/nccl_tests_published.yaml is used (SERIES_USE), the explanation of each gap (GAP_WHY), the
aims, a reader for the file's YAML subset, and the comparison rows (one per published point) with
partsim's numbers beside them."""
import os
import re
import sys

from collectives_runs import COLLECTIVES, LINE_RATE, MAX_SIZE, ROOT, GiB, KiB, MiB

SMALL, LARGE = 1 * MiB, 64 * MiB  # aims: <= SMALL within 25 %, >= LARGE within 10 %
AIM_SMALL, AIM_LARGE = 0.25, 0.10

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


def rel(model, published):
    return None if model is None or not published else (model - published) / published


def published_rows(published):
    """One comparison row per published point that SERIES_USE uses (8 GPUs a node, 1 KiB to MAX_SIZE)."""
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
    return rows


def compare(rows, runner):
    """partsim's bus bandwidth beside each row (shipped, NCCL's algorithm, line rate) and its errors."""
    for r in rows:
        p, n, c, at = r["platform"], r["nodes"], r["coll"], r["at"]
        r["shipped"] = runner.bw(p, n, c, None, at, r["sets"])
        r["e_shipped"] = rel(r["shipped"], r["pub"])
        r["by"] = runner.chosen(p, n, c, None, at, r["sets"])
        r["matched"] = runner.bw(p, 1, c, r["matched_alg"], at) if r["matched_alg"] else None
        r["e_matched"] = rel(r["matched"], r["pub"])
        r["matched_by"] = runner.chosen(p, 1, c, r["matched_alg"], at) if r["matched_alg"] else "-"
        r["line"] = runner.bw(p, n, c, None, at, LINE_RATE) if r["counted"] else None
        r["e_line"] = rel(r["line"], r["pub"])
    unused = [k for k in GAP_WHY if not any((r["series"], size_class(r)) == k for r in rows)]
    for k in unused:
        print("validate_collectives: GAP_WHY key %r matches no published point" % (k,), file=sys.stderr)
