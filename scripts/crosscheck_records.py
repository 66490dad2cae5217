#!/usr/bin/python3
"""The cross-check's runs as records, one JSON object per line, so that the full matrix (hours on
2 cores) can be made in sittings on different machines and its data kept with the report
(docs/data/crosscheck_runs.jsonl, written by scripts/crosscheck.sh next to docs/crosscheck.md).

A record: name (CONFIG__STRATEGY__MODEL__VARIANT), config, strategy, model, variant, status
(replayed | skipped | failed), build (simplan's and simrun's --version), settings (batch,
granularity, gradient sync, and the recipe number of crosscheck.sh's arguments to simplan and
simrun); a replayed run adds predicted, closed and simulated (seconds), utilization, links (the three busiest: label, busy fraction, utilization), warnings (the terms
simplan warned about), shared (a trusted plan sharing its planned run's replay) and, where the plan
says how long its strategy took (search), elapsed_s; the others add why (one line).

Usage:
  crosscheck_records.py export WORK_DIR OUT.jsonl   every run in WORK_DIR as a record
  crosscheck_records.py import IN.jsonl WORK_DIR    the records this build may keep, into WORK_DIR
Environment (import; crosscheck.sh sets them): PARTSIM_CROSSCHECK_VERSIONS (this build's --version
line), PARTSIM_CROSSCHECK_REDO (strategies redone: the other strategies' records are kept whatever
built them, as with a work directory), PARTSIM_CROSSCHECK_SETTINGS (JSON of this call's settings).

A record is kept when its settings are this call's and its build is this build, or a build whose
sources differ from this build's only in files that cannot change a run (docs, tests, benchmarks,
the report scripts, crosscheck.sh whose arguments the recipe stands for: INERT below; both clean
commits of this repository, git diff), or when its strategy is not being redone. A replayed
record becomes WORK_DIR/NAME.record.json, a refusal or failure NAME.skipped / NAME.failed as crosscheck.sh writes them (a failure is tried again under
crosscheck.sh's rule: unless it ran out of time or memory at this call's limits or larger ones);
WORK_DIR/RECORDED lists each kept name with its build. A run this work directory already has is
not imported over.
"""
import fnmatch
import glob
import json
import os
import re
import subprocess
import sys

import script_help  # scripts/ is on sys.path: the script's own folder

script_help.answer_help(__doc__)
STATUS_EXTENSIONS = ("results.json", "record.json", "same_as", "skipped", "failed")
# What a replayed record holds besides its name, build and settings (elapsed_s only where the plan says
# how long its strategy took: search's family.elapsed_s).
REPLAYED_FIELDS = ("status", "predicted", "closed", "simulated", "utilization", "links", "warnings", "shared",
                   "elapsed_s")
# Files whose change cannot change a run's plan or replay (fnmatch patterns, "*" crossing "/").
# scripts/crosscheck.sh's own arguments to simplan and simrun are its settings' recipe number, recorded.
INERT = ("docs/*", "tests/*", "bench/*", "fuzz/*", ".ci/*", "*.md", "scripts/*.py", "scripts/demo.sh",
         "scripts/test.sh", "scripts/fuzz.sh", "scripts/crosscheck.sh", "scripts/reproduce_common.sh",
         ".gitignore")


def warning_terms(log_path):
    """The terms simplan warned about (sim/planners/prediction_check.cpp), in a short form."""
    terms = []
    if not os.path.exists(log_path):
        return terms
    for line in open(log_path, errors="replace"):
        if not line.startswith("simplan: warning: "):
            continue
        text = line[len("simplan: warning: "):]
        if text.startswith("link latency:"):
            terms.append("latency")
        elif text.startswith("contention:"):
            terms.append("contention")
        elif "of compute" in text:
            terms.append("compute")
        elif "external memory" in text:
            terms.append("memory")
        else:
            terms.append("other")
    return terms


def hot_links(results, count=3):
    """The links busiest in the replay: (label, busy fraction, utilization), busiest first."""
    links = sorted(results.get("links", []), key=lambda l: (-l["busy_fraction"], l["id"]))
    return [(l["link"] + (f" ({l['axis']})" if l.get("axis") and l["axis"] not in l["link"] else ""),
             l["busy_fraction"], l["utilization"]) for l in links[:count]]


def recorded(work):
    """name -> build of the runs imported from records (WORK_DIR/RECORDED)."""
    kept = {}
    path = os.path.join(work, "RECORDED")
    if os.path.exists(path):
        for line in open(path):
            name, _, build = line.rstrip("\n").partition("\t")
            kept[name] = build
    return kept


def run_names(work):
    """The names of the runs WORK_DIR holds (made, kept from records, refused or failed)."""
    return {os.path.basename(p).split(".")[0] for ext in STATUS_EXTENSIONS
            for p in glob.glob(os.path.join(work, f"*__*__*__*.{ext}"))}


def versions(work):
    """WORK_DIR/VERSIONS: the build that began the run ("" if none), and strategy -> build that redid it."""
    path = os.path.join(work, "VERSIONS")
    if not os.path.exists(path):
        return "", {}
    began, *lines = open(path).read().strip().splitlines()
    return began, dict(line.split(": ", 1) for line in lines)


def builds(work):
    """A function giving the build of a run of WORK_DIR: its record's (RECORDED), or from
    WORK_DIR/VERSIONS the build that began the run or redid its strategy."""
    kept = recorded(work)
    began, redone = versions(work)
    return lambda name: kept.get(name) or redone.get(name.split("__")[1], began)


def read_work(work, settings=None):
    """Every run in WORK_DIR as a record, sorted by name."""
    build_of = builds(work)
    records = []
    for name in sorted(run_names(work)):
        config, strategy, model, variant = name.split("__")
        base = os.path.join(work, name)
        record = dict(name=name, config=config, strategy=strategy, model=model, variant=variant,
                      build=build_of(name), settings=settings or {})
        if os.path.exists(base + ".record.json"):
            kept = json.load(open(base + ".record.json"))
            record.update({k: kept[k] for k in REPLAYED_FIELDS if k in kept})
        elif os.path.exists(base + ".plan.json") and (os.path.exists(base + ".results.json") or
                                                       os.path.exists(base + ".same_as")):
            replay = base
            if os.path.exists(base + ".same_as"):
                replay = os.path.join(work, open(base + ".same_as").read().strip())
            if not os.path.exists(replay + ".results.json"):
                if not os.path.exists(replay + ".record.json"):
                    continue
                shared = json.load(open(replay + ".record.json"))
                r = {"closed_form_iteration_s": shared["closed"], "simulated_iteration_s": shared["simulated"],
                     "utilization": shared["utilization"]}
                links = [tuple(l) for l in shared["links"]]
            else:
                r = json.load(open(replay + ".results.json"))
                links = hot_links(r)
            plan = json.load(open(base + ".plan.json"))
            record.update(status="replayed", predicted=plan["predicted"]["iteration_s"],
                          closed=r["closed_form_iteration_s"], simulated=r["simulated_iteration_s"],
                          utilization=r["utilization"], links=[list(l) for l in links],
                          warnings=warning_terms(base + ".log"), shared=replay != base)
            if "elapsed_s" in plan.get("family", {}):
                record["elapsed_s"] = plan["family"]["elapsed_s"]
        else:
            for status in ("skipped", "failed"):
                if os.path.exists(f"{base}.{status}"):
                    record.update(status=status, why=open(f"{base}.{status}", errors="replace").read().strip())
                    break
            else:
                continue
        records.append(record)
    return records


def export(work, out):
    settings = json.loads(os.environ.get("PARTSIM_CROSSCHECK_SETTINGS", "{}"))
    records = read_work(work, settings)
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        for record in records:
            f.write(json.dumps(record, sort_keys=True) + "\n")
    os.replace(tmp, out)
    print(f"crosscheck_records: {len(records)} runs written to {out}")


GIT_VERSION = re.compile(r"\(git (?:.*-g)?([0-9a-f]{7,40})(-dirty)?\)")


def commits(build):
    """The commits of a build's --version line (simplan's, simrun's), or None if any is dirty or unknown."""
    found = GIT_VERSION.findall(build)
    if not found or any(dirty for _, dirty in found):
        return None
    return {c for c, _ in found}


def inert_difference(a, b):
    """True when clean builds a and b differ only in files that cannot change a run."""
    ca, cb = commits(a), commits(b)
    if ca is None or cb is None or len(ca) != 1 or len(cb) != 1:
        return False
    r = subprocess.run(["git", "diff", "--name-only", ca.pop(), cb.pop()], capture_output=True, text=True)
    if r.returncode != 0:
        return False  # a commit this clone does not have
    return all(any(fnmatch.fnmatch(path, p) for p in INERT) for path in r.stdout.split())


def importable(record, versions, redo, settings, same_source):
    if record.get("settings") != settings:
        return False
    if record["build"] == versions or (redo and record["strategy"] not in redo):
        return True
    if record["build"] not in same_source:
        same_source[record["build"]] = inert_difference(record["build"], versions)
    return same_source[record["build"]]


def materialize(record, work):
    base = os.path.join(work, record["name"])
    if record["status"] == "replayed":
        with open(base + ".record.json", "w") as f:
            json.dump({k: record[k] for k in REPLAYED_FIELDS if k in record}, f)
    else:
        with open(f"{base}.{record['status']}", "w") as f:
            f.write(record["why"] + "\n")


def import_records(source, work):
    versions = os.environ["PARTSIM_CROSSCHECK_VERSIONS"]
    redo = set(os.environ.get("PARTSIM_CROSSCHECK_REDO", "").split())
    settings = json.loads(os.environ.get("PARTSIM_CROSSCHECK_SETTINGS", "{}"))
    if not os.path.exists(source):
        print(f"crosscheck_records: no records at {source}: nothing to keep")
        return
    have = run_names(work)
    kept, dropped, same_source = 0, {}, {}
    with open(os.path.join(work, "RECORDED"), "a") as listing:
        for number, line in enumerate(open(source), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"crosscheck_records: {source}:{number}: not a JSON record ({e.msg})")
            if record["name"] in have:
                continue
            if not importable(record, versions, redo, settings, same_source):
                why = record["build"] if record.get("settings") == settings else "other settings"
                dropped[why] = dropped.get(why, 0) + 1
                continue
            materialize(record, work)
            listing.write(f"{record['name']}\t{record['build']}\n")
            kept += 1
    print(f"crosscheck_records: kept {kept} runs of {source}" +
          "".join(f"; left {n} made by {why} (its sources differ from this build's)" if why != "other settings"
                  else f"; left {n} made with other settings" for why, n in sorted(dropped.items())))


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("export", "import"):
        sys.exit("usage: crosscheck_records.py export WORK_DIR OUT.jsonl | import IN.jsonl WORK_DIR")
    if sys.argv[1] == "export":
        export(sys.argv[2], sys.argv[3])
    else:
        import_records(sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
