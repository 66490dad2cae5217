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
  point table's `gap: why` column comes from GAP_WHY in collectives_published.py).
The parts live beside this file: collectives_runs.py runs simrun, collectives_published.py reads the
published series and holds how each is used, collectives_doc.py writes the document.

Progress (runs done / total, elapsed) goes to stderr, and at the end the slowest run and every
counted point over its aim.

python3 standard library only.
At most 2 simrun processes at a time (--jobs 1 or 2).
"""
import argparse
import os
import sys
import time

from collectives_doc import document, fmt_bw, fmt_err
from collectives_published import aim_of, compare, published_rows, read_published
from collectives_runs import (COLLECTIVES, GRID, LINE_RATE, NODES, PLATFORMS, ROOT, GiB, MiB, Runner, describe,
                              size_text)


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

    rows = published_rows(published)  # one per published point

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

    compare(rows, runner)
    text = document(a, runner, rows, published, nodes_list, one_node_algs, sizes, one_run_s, total_s, ok, plain, errors)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(text)

    # ---- report on stderr
    slow_k, slow_s = runner.slowest()
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
