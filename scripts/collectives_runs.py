"""Running simrun for scripts/validate_collectives.py: the sweep's platforms, node counts, collectives
and sizes, a pool of at most 2 simrun processes (Runner) and nccl-tests' bus bandwidth of a run."""
import concurrent.futures
import json
import os
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
LINE_RATE = ("system.cluster.nvlink_efficiency=1",)  # the ablation: NVLink at its datasheet line rate
SLOW_RUN_S = 20.0  # a run slower than this is reported on stderr


def size_text(b):
    for unit, f in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if b >= f and b % f == 0:
            return "%d %s" % (b // f, unit)
    return "%d B" % b


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

    def bw(self, platform, nodes, coll, alg, b, sets=()):
        """nccl-tests' bus bandwidth (GB/s) of a run, None where it failed or was not run."""
        r = self.get(platform, nodes, coll, alg, b, sets)
        if not r or "error" in r:
            return None
        return busbw(coll, b, r["simulated_s"], 8 * nodes)

    def chosen(self, platform, nodes, coll, alg, b, sets=()):
        """The algorithm/protocol simrun ran, e.g. 'hierarchical/Simple'."""
        r = self.get(platform, nodes, coll, alg, b, sets)
        if not r or "error" in r:
            return "-"
        return (r.get("algorithm") or alg or "?") + ("/" + r["protocol"] if r.get("protocol") else "")


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
