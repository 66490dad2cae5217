#!/usr/bin/env python3
"""Reproduces seed 001's evaluation (DeePa, §7) with partsim's `deepa` strategy; writes Markdown to stdout.

Called by scripts/reproduce_deepa.sh. Runs build/bin/simplan and build/bin/simrun only; every number
in the output is computed here from their output (nothing is copied from the paper except the
columns labelled "paper").
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import script_help  # scripts/ is on sys.path: the script's own folder

script_help.answer_help(__doc__)

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
K80 = "configs/k80_16gpu.yaml"
P100 = "configs/p100_4node.yaml"
TMP = tempfile.mkdtemp(prefix="deepa_repro_")
# Every link of k80_16gpu (8 x (2 GPU-switch + 1 switch-socket) + QPI) at the 2.25 GB/s that the paper's
# Table 2 implies for all transfers of a step together (see the notes).
SLOW = [f"system.graph.links[{i}].bandwidth=2.25GB/s" for i in range(25)]


def run(args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def simplan(config, workload, batch, strategy, options=(), explain=None, sets=(), extra=()):
    args = [f"{BUILD}/bin/simplan", "--config", config, "--workload", workload, "--batch", str(batch),
            "--strategy", strategy] + list(extra)
    for s in sets:
        args += ["--set", s]
    for o in options:
        args += ["--option", o]
    if explain:
        return run(args + ["--explain", explain])
    name = "_".join([os.path.basename(config), workload, str(batch), strategy, str(len(sets))] +
                    [o.replace("=", "-") for o in options] + [e.lstrip("-") for e in extra])
    path = os.path.join(TMP, name + ".json")
    run(args + ["-o", path])
    return path


def simrun(config, plan, sets=()):
    out = plan + ".results.json"
    args = [f"{BUILD}/bin/simrun", "--config", config, "--plan", plan, "--out", out, "--reproducible"]
    for s in sets:
        args += ["--set", s]
    run(args)
    return json.load(open(out))


def sent_bytes(results):
    """Bytes the devices put on the network in the replay (sum over links leaving a GPU)."""
    return sum(l["bytes"] for l in results["links"] if l["link"].startswith("gpu"))


def module_bytes(config, plan, prefixes):
    """Bytes of the replay's transfers (inputs, errors and gradient synchronisation) of the layers whose
    names start with each prefix, from simrun's timeline of those layers; and the replay's results."""
    names = [l["name"] for l in json.load(open(plan))["layers"] if l["name"].startswith(tuple(prefixes))]
    timeline = plan + ".timeline.json"
    run([f"{BUILD}/bin/simrun", "--config", config, "--plan", plan, "--out", plan + ".modules.json", "--reproducible",
         "--timeline", timeline, "--timeline-layers", ",".join(names), "--timeline-links", "none"])
    events = json.load(open(timeline))
    events = events["traceEvents"] if isinstance(events, dict) else events
    total = dict.fromkeys(prefixes, 0.0)
    for e in events:
        if e.get("cat") == "transfer":
            layer = e["name"].split("/")[0]
            for prefix in prefixes:
                if layer.startswith(prefix):
                    total[prefix] += e["args"]["bytes"]
    return total, json.load(open(plan + ".modules.json"))


def explain_rows(text):
    rows = {}
    for line in text.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) >= 8 and parts[0].startswith("{"):
            rows[parts[0]] = {"workers": int(parts[1]), "transfer": float(parts[2]), "compute": float(parts[3]),
                              "update": float(parts[4]), "total": float(parts[5]), "mark": parts[7]}
    return rows


def ms(x):
    return f"{x:.1f}"


out = []
p = out.append

# ---------------------------------------------------------------- Table 2
p("## Table 2: AlexNet fc6 on the 16-GPU machine (minibatch 512)\n")
text = simplan(K80, "alexnet", 512, "deepa", explain="fc6")
rows = explain_rows(text)
paper2 = {"{n=16, c=1}": (0, 1.28, 1075, 1076, "Image Parallelism"), "{n=1, c=16}": (134.4, 1.28, 0, 135.7, "OWT"),
          "{n=1, c=4}": (33.6, 5.1, 0, 38.7, "DeePa"), "{n=1, c=2}": (16.8, 10.2, 0, 27.0, ""),
          "{n=1, c=1}": (8.4, 20.4, 0, 28.8, "")}
p("Milliseconds per step. Transfer = xfer of fc6's input from flatten's chosen configuration (forward, and the")
p("errors back); compute = forward + backward of the slowest worker; update = gradient all-reduce.\n")
p("| configuration | workers | transfer (paper / ours) | compute (paper / ours) | update (paper / ours) | total (paper / ours) | paper's label | ours |")
p("|---|---|---|---|---|---|---|---|")
for cfg, (t, c, u, tot, label) in paper2.items():
    r = rows[cfg]
    p(f"| `{cfg}` | {r['workers']} | {t} / {ms(r['transfer'])} | {c} / {ms(r['compute'])} | {u} / {ms(r['update'])} | "
      f"{tot} / {ms(r['total'])} | {label} | {r['mark']} |")
best = min(rows.items(), key=lambda kv: kv[1]["total"])
chosen = [k for k, v in rows.items() if "DeePa" in v["mark"]]
p(f"\nOur lowest total among all {len(rows)} configurations of fc6: `{best[0]}` ({ms(best[1]['total'])} ms); "
  f"the search chose `{chosen[0] if chosen else '?'}` for fc6 (the search minimises the whole graph, so fc6's "
  f"choice also weighs the transfer to fc7). Full table: `simplan --config {K80} --workload alexnet --batch 512 "
  f"--strategy deepa --explain fc6`.\n")
slow = explain_rows(simplan(K80, "alexnet", 512, "deepa", explain="fc6", sets=SLOW))
p("The same with every link at 2.25 GB/s (the bandwidth the paper's transfer and update columns imply):\n")
p("| configuration | transfer (paper / ours) | update (paper / ours) | total (paper / ours) | ours |")
p("|---|---|---|---|---|")
for cfg, (t, c, u, tot, label) in paper2.items():
    r = slow[cfg]
    p(f"| `{cfg}` | {t} / {ms(r['transfer'])} | {u} / {ms(r['update'])} | {tot} / {ms(r['total'])} | {r['mark']} |")
p("")
image = rows["{n=16, c=1}"]["total"]
p(f"Image parallelism / chosen: {image / rows[chosen[0]]['total']:.1f}x (paper: 1076 / 38.7 = 27.8x; "
  f"paper's OWT / DeePa 3.5x, ours {rows['{n=1, c=16}']['total'] / rows[chosen[0]]['total']:.1f}x).\n")

# ---------------------------------------------------------------- Table 3
p("## Table 3: VGG-16's last three convolutions (conv5_1..conv5_3) on the 16-GPU machine\n")
convs = ["conv5_1", "conv5_2", "conv5_3"]
tables = [explain_rows(simplan(K80, "vgg16", 512, "deepa", explain=c)) for c in convs]
paper3 = {"{n=16, c=1, h=1, w=1}": (0, 15.9, 134.4, 150.3, "Image Parallelism & OWT"),
          "{n=8, c=1, h=1, w=1}": (39.2, 31.8, 67.2, 138.2, ""), "{n=4, c=1, h=1, w=1}": (39.2, 63.7, 33.6, 136.5, "DeePa"),
          "{n=1, c=1, h=2, w=2}": (39.2, 54.7, 33.6, 127.5, ""), "{n=2, c=1, h=1, w=1}": (39.2, 127.4, 16.8, 183.4, "")}
p("The three layers taken in the same configuration (the paper's yellow node): transfer = conv5_1's xfer from")
p("pool4 at its chosen configuration (the halo rows an h/w split exchanges between the three layers are not in")
p("this column); compute and update summed over the three convolutions. Milliseconds per step.\n")
p("| configuration | workers | transfer (paper / ours) | compute (paper / ours) | update (paper / ours) | total (paper / ours) | paper's label |")
p("|---|---|---|---|---|---|---|")
totals3 = {}
for cfg, (t, c, u, tot, label) in paper3.items():
    tr = tables[0][cfg]["transfer"]
    co = sum(tb[cfg]["compute"] for tb in tables)
    up = sum(tb[cfg]["update"] for tb in tables)
    totals3[cfg] = tr + co + up
    p(f"| `{cfg}` | {tables[0][cfg]['workers']} | {t} / {ms(tr)} | {c} / {ms(co)} | {u} / {ms(up)} | {tot} / {ms(tr + co + up)} | {label} |")
chosen3 = [tables[i] and [k for k, v in tables[i].items() if "DeePa" in v["mark"]] for i in range(3)]
p(f"\nThe search chose {', '.join(f'{convs[i]} `{chosen3[i][0]}`' for i in range(3))}. Lowest of the five rows above: "
  f"`{min(totals3, key=totals3.get)}`.\n")

# ---------------------------------------------------------------- Fig. 7 / 8
p("## Fig. 7 and 8: throughput and data transferred on 16 GPUs, minibatch 512\n")
p("Each plan is replayed with `simrun` on the same platform. Throughput = 512 / simulated step time. Data = bytes")
p("the GPUs send per step in the replay (sum over the links leaving a GPU). dp and owt are the AccPar family's")
p("baselines (image parallelism and one weird trick over all 16 devices); `deepa space=image` and `space=owt` are")
p("DeePa restricted to them (the paper's purple and green bars); `overlap=false` is DeePa without §5's overlap")
p("(grey bars).\n")
variants = [("dp", "dp", []), ("owt", "owt", []), ("deepa image", "deepa", ["space=image"]),
            ("deepa owt", "deepa", ["space=owt"]), ("deepa", "deepa", []), ("deepa no overlap", "deepa", ["overlap=false"]),
            ("deepa, no kernel efficiency", "deepa", ["kernel_efficiency=none"])]
results = {}
p("| network | strategy | predicted step [s] | simulated step [s] | pred./sim. | throughput [img/s] | data sent [GB] |")
p("|---|---|---|---|---|---|---|")
for net in ["alexnet", "vgg16", "inception_v3"]:
    for label, strategy, opts in variants:
        plan_file = simplan(K80, net, 512, strategy, opts)
        r = simrun(K80, plan_file)
        results[(net, label)] = r
        p(f"| {net} | {label} | {r['predicted_iteration_s']:.4f} | {r['simulated_iteration_s']:.4f} | "
          f"{r['predicted_iteration_s'] / r['simulated_iteration_s']:.2f} | {512 / r['simulated_iteration_s']:.0f} | "
          f"{sent_bytes(r) / 1e9:.2f} |")
p("")
p("| network | owt / dp speed-up (paper) | deepa / dp (paper vs frameworks) | deepa / owt | data dp / owt (paper 1.05-8.4) | data owt / deepa (paper 1.2-2.7) | overlap gain |")
p("|---|---|---|---|---|---|---|")
paper_owt = {"alexnet": 1.4, "vgg16": 1.2, "inception_v3": 1.07}
paper_deepa = {"alexnet": 6.5, "vgg16": 1.9, "inception_v3": 1.5}
for net in ["alexnet", "vgg16", "inception_v3"]:
    t = {k[1]: v["simulated_iteration_s"] for k, v in results.items() if k[0] == net}
    d = {k[1]: sent_bytes(v) for k, v in results.items() if k[0] == net}
    p(f"| {net} | {t['dp'] / t['owt']:.2f} ({paper_owt[net]}) | {t['dp'] / t['deepa']:.2f} ({paper_deepa[net]}) | "
      f"{t['owt'] / t['deepa']:.2f} | {d['dp'] / max(d['owt'], 1):.2f} | {d['owt'] / max(d['deepa'], 1):.2f} | "
      f"{(t['deepa no overlap'] / t['deepa'] - 1) * 100:.0f} % |")
p("")

# ---------------------------------------------------------------- sensitivity
p("### The same at the paper's effective bandwidth\n")
p("Table 2's update column (1075 ms for 16 replicas of fc6's 151 MB of gradients) and its transfer column")
p("(8.4 ms per copy of fc6's 18.9 MB input) both imply about 2.25 GB/s for all transfers of a step together.")
p("Here every link of `k80_16gpu` (GPU-switch, switch-socket and QPI) is set to 2.25 GB/s (`--set`), for planning")
p("and replay alike.\n")
p("| network | dp [img/s] | owt [img/s] | deepa [img/s] | owt / dp (paper) | deepa / dp (paper) | data dp / deepa [GB] |")
p("|---|---|---|---|---|---|---|")
for net in ["alexnet", "vgg16", "inception_v3"]:
    r = {st: simrun(K80, simplan(K80, net, 512, st, sets=SLOW), SLOW) for st in ["dp", "owt", "deepa"]}
    t = {k: v["simulated_iteration_s"] for k, v in r.items()}
    p(f"| {net} | {512 / t['dp']:.0f} | {512 / t['owt']:.0f} | {512 / t['deepa']:.0f} | {t['dp'] / t['owt']:.2f} "
      f"({paper_owt[net]}) | {t['dp'] / t['deepa']:.2f} ({paper_deepa[net]}) | {sent_bytes(r['dp']) / 1e9:.2f} / "
      f"{sent_bytes(r['deepa']) / 1e9:.2f} |")
p("")

# ---------------------------------------------------------------- parameter servers
p("### With §5's parameter servers\n")
p("The rows above synchronise replicas with a ring all-reduce. DeePa §5 keeps a parameter server per")
p("operation on a GPU, and TensorFlow and PyTorch kept theirs in CPU memory: the replicas send their")
p("gradients to the server and receive the parameters back, so the server's links carry every replica's")
p("copy. Here deepa models and writes that (`--option update=parameter_server`: one GPU of each replica")
p("group serves, a different one per layer, docs/model.md \"DeePa\"), and dp and owt are planned with")
p("`--gradient-sync-algorithm parameter_server` (the same GPU servers; the frameworks' CPU servers are")
p("not modelled). fc6 of Table 2 first (milliseconds):\n")
ps_rows = explain_rows(simplan(K80, "alexnet", 512, "deepa", ["update=parameter_server"], explain="fc6"))
ps_slow = explain_rows(simplan(K80, "alexnet", 512, "deepa", ["update=parameter_server"], explain="fc6", sets=SLOW))
p("| configuration | update: paper / ring / server | total: paper / ring / server | the same at 2.25 GB/s: update / total (server) | ours |")
p("|---|---|---|---|---|")
for cfg, (t, c, u, tot, label) in paper2.items():
    r, q, z = rows[cfg], ps_rows[cfg], ps_slow[cfg]
    p(f"| `{cfg}` | {u} / {ms(r['update'])} / {ms(q['update'])} | {tot} / {ms(r['total'])} / {ms(q['total'])} | "
      f"{ms(z['update'])} / {ms(z['total'])} | {q['mark']} |")
p("")
p("Throughput with parameter servers (simulated, minibatch 512):\n")
p("| network | links | dp [img/s] | owt [img/s] | deepa [img/s] | owt / dp (paper) | deepa / dp (paper) |")
p("|---|---|---|---|---|---|---|")
SERVER = ["--gradient-sync-algorithm", "parameter_server"]
for net in ["alexnet", "vgg16", "inception_v3"]:
    for links, sets in (("datasheet", ()), ("2.25 GB/s", SLOW)):
        r = {st: simrun(K80, simplan(K80, net, 512, st, sets=sets, extra=SERVER), sets) for st in ["dp", "owt"]}
        r["deepa"] = simrun(K80, simplan(K80, net, 512, "deepa", ["update=parameter_server"], sets=sets), sets)
        t = {k: v["simulated_iteration_s"] for k, v in r.items()}
        p(f"| {net} | {links} | {512 / t['dp']:.0f} | {512 / t['owt']:.0f} | {512 / t['deepa']:.0f} | "
          f"{t['dp'] / t['owt']:.2f} ({paper_owt[net]}) | {t['dp'] / t['deepa']:.2f} ({paper_deepa[net]}) |")
p("")

# ---------------------------------------------------------------- global configurations
p("## Fig. 9-12: the global configurations found (16 GPUs, minibatch 512)\n")
for net in ["alexnet", "vgg16", "inception_v3"]:
    plan = json.load(open(simplan(K80, net, 512, "deepa")))
    groups = []
    for layer in plan["layers"]:
        f = layer["family"]
        cfg = f"{{n={f['n']}, c={f['c']}, h={f['h']}, w={f['w']}}}"
        if groups and groups[-1][1] == cfg:
            groups[-1][0].append(layer["name"])
        else:
            groups.append(([layer["name"]], cfg))
    s = plan["family"]["search"]
    p(f"**{net}** ({len(plan['layers'])} layers; search: {s['node_eliminations']} node and {s['edge_eliminations']} "
      f"edge eliminations, {s['nodes_left']} nodes left, {s['enumerated']} global configurations enumerated):\n")
    if net == "inception_v3":
        # Configurations per module, and the branches of mixed7b (InceptionE1, Fig. 12).
        by_cfg = {}
        for layer in plan["layers"]:
            f = layer["family"]
            by_cfg.setdefault(f"{{n={f['n']}, c={f['c']}, h={f['h']}, w={f['w']}}}", []).append(layer["name"])
        for cfg, names in sorted(by_cfg.items(), key=lambda kv: -len(kv[1])):
            shown = ", ".join(names[:8]) + (f", ... ({len(names)} layers)" if len(names) > 8 else "")
            p(f"- `{cfg}`: {shown}")
        # Fig. 12 under both readings of update(c): the ring all-reduce (the default, the plan above) and
        # §5's parameter servers, each beside image parallelism with the same synchronisation.
        cfg = lambda f: f"{{n={f['n']}, c={f['c']}, h={f['h']}, w={f['w']}}}"
        server_path = simplan(K80, net, 512, "deepa", ["update=parameter_server"])
        server = {l["name"]: l["family"] for l in json.load(open(server_path))["layers"]}
        p("\nmixed7b (InceptionE1, Fig. 12), with update(c) as the ring all-reduce (the plan above) and as §5's")
        p("parameter servers (`--option update=parameter_server`):\n")
        p("| layer | ring | parameter servers |")
        p("|---|---|---|")
        for layer in plan["layers"]:
            if layer["name"].startswith("mixed7b") and not layer["name"].endswith(("_bn", "_relu")):
                p(f"| {layer['name']} | `{cfg(layer['family'])}` | `{cfg(server[layer['name']])}` |")
        modules = ["mixed7b", "mixed7c"]
        p("\nData the replay transfers per step (inputs, errors and gradient synchronisation; GB), DeePa against")
        p("image parallelism on every layer (`--option space=image`) with the same synchronisation (paper: DeePa's")
        p("configuration transfers 30 % less in InceptionE1 and E2 and 20 % less overall):\n")
        p("| update(c) | InceptionE1 (mixed7b): DeePa / image | InceptionE2 (mixed7c): DeePa / image | all layers: DeePa / image | step time: DeePa / image [ms] |")
        p("|---|---|---|---|---|")
        for label, options in (("ring all-reduce", []), ("parameter servers", ["update=parameter_server"])):
            deepa_path = simplan(K80, net, 512, "deepa", options)
            image_path = simplan(K80, net, 512, "deepa", options + ["space=image"])
            (d, rd), (i, ri) = module_bytes(K80, deepa_path, modules), module_bytes(K80, image_path, modules)
            cells = [f"{d[m] / 1e9:.2f} / {i[m] / 1e9:.2f} ({d[m] / i[m]:.2f}x)" for m in modules]
            cells.append(f"{sent_bytes(rd) / 1e9:.2f} / {sent_bytes(ri) / 1e9:.2f} ({sent_bytes(rd) / sent_bytes(ri):.2f}x)")
            cells.append(f"{rd['simulated_iteration_s'] * 1e3:.1f} / {ri['simulated_iteration_s'] * 1e3:.1f}")
            p(f"| {label} | " + " | ".join(cells) + " |")
    else:
        for names, cfg in groups:
            p(f"- {names[0]}{' .. ' + names[-1] if len(names) > 1 else ''}: `{cfg}`")
    p("")

# ---------------------------------------------------------------- Fig. 13
p("## Fig. 13: minibatch size (AlexNet and VGG-16, 16 GPUs, simulated)\n")
p("| network | minibatch | dp [img/s] | deepa [img/s] | deepa / dp (paper: AlexNet 4.6-6.5, VGG-16 1.6-1.9) |")
p("|---|---|---|---|---|")
over_memory = []  # the dp plans replayed although they do not fit a K80's 12 GB
for net in ["alexnet", "vgg16"]:
    for batch in [64, 256, 1024, 2048]:
        try:
            dp_plan, dp_mark = simplan(K80, net, batch, "dp"), ""
        except subprocess.CalledProcessError as e:
            if e.returncode != 2 or "the plan does not fit" not in e.stderr:
                raise
            # The footprint model (docs/model.md "Memory footprint") refuses it; the paper ran its
            # frameworks' data parallelism here, so the plan is replayed all the same and marked.
            dp_plan, dp_mark = simplan(K80, net, batch, "dp", extra=["--allow-over-memory"]), " *"
            over_memory.append(f"{net} {batch}: {e.stderr.strip().splitlines()[-1]}")
        dp = simrun(K80, dp_plan)["simulated_iteration_s"]
        try:
            de = simrun(K80, simplan(K80, net, batch, "deepa"))["simulated_iteration_s"]
        except subprocess.CalledProcessError as e:
            if e.returncode != 2 or "memory" not in e.stderr:
                raise
            # deepa's memory check (option memory=check) refuses it, as the paper's frameworks failed
            # at 2048; dp's plans are not checked for memory.
            p(f"| {net} | {batch} | {batch / dp:.0f}{dp_mark} | does not fit: {e.stderr.strip().splitlines()[-1]} | - |")
            continue
        p(f"| {net} | {batch} | {batch / dp:.0f}{dp_mark} | {batch / de:.0f} | {dp / de:.2f} |")
p("")
if over_memory:
    p("\\* Data parallelism does not fit a K80's memory here by the footprint model (docs/model.md, \"Memory")
    p("footprint\"; simplan's line below gives it by kind: the activations alone are over the capacity, whatever")
    p("the optimizer). The paper compares against it, so it is replayed with `simplan --allow-over-memory`:\n")
    for line in over_memory:
        p(f"- {line}")
    p("")

# ---------------------------------------------------------------- Fig. 14
p("## Fig. 14: weak scaling on the P100 cluster, 32 images per GPU (simulated)\n")
p("1 node = `configs/p100_1node.yaml` (4 GPUs, minibatch 128), 2 nodes = `p100_2node.yaml` (8, 256), 4 nodes =")
p("`p100_4node.yaml` (16, 512). The paper's DeePa / frameworks: 3.1x, 1.6x, 1.3x on one node; 8.1x, 3.2x, 1.8x on")
p("four (AlexNet, VGG-16, Inception-v3). The 1-GPU point (every framework on one GPU) is not repeated.\n")
p("| network | nodes | GPUs | dp [img/s] | owt [img/s] | deepa [img/s] | deepa / dp (paper) |")
p("|---|---|---|---|---|---|---|")
paper14 = {("alexnet", 1): 3.1, ("vgg16", 1): 1.6, ("inception_v3", 1): 1.3,
           ("alexnet", 4): 8.1, ("vgg16", 4): 3.2, ("inception_v3", 4): 1.8}
for net in ["alexnet", "vgg16", "inception_v3"]:
    for nodes, config in [(1, "configs/p100_1node.yaml"), (2, "configs/p100_2node.yaml"), (4, P100)]:
        batch = 128 * nodes
        t = {s: simrun(config, simplan(config, net, batch, s))["simulated_iteration_s"] for s in ["dp", "owt", "deepa"]}
        paper = paper14.get((net, nodes))
        p(f"| {net} | {nodes} | {4 * nodes} | {batch / t['dp']:.0f} | {batch / t['owt']:.0f} | {batch / t['deepa']:.0f} | "
          f"{t['dp'] / t['deepa']:.2f} ({paper if paper else '-'}) |")
p("")
print("\n".join(out))
