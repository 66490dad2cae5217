"""scripts/crosscheck_records.py: the cross-check's runs written as records and read back on another
machine, keeping only what this build would make the same. The builds are commits of a git
repository made here: two commits change only docs/ and crosscheck.sh, the next a source file.

Run by ctest (tests/scripts/CMakeLists.txt):
    PARTSIM_SOURCE_DIR=. /usr/bin/python3 -m unittest tests/scripts/test_crosscheck_records.py
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("PARTSIM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
RECORDS = os.path.join(SOURCE, "scripts", "crosscheck_records.py")
REPORT = os.path.join(SOURCE, "scripts", "crosscheck_report.py")
SETTINGS = {"batch": 512, "granularity": "chip", "sync": "in_order", "recipe": 1}


def read(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def version(commit):
    return f"simplan 0.1.0 (git {commit}) / simrun 0.1.0 (git {commit})"


class CrosscheckRecords(unittest.TestCase):
    def git(self, *args):
        return subprocess.run(["git", "-C", self.repo, *args], check=True, capture_output=True,
                              text=True).stdout.strip()

    def commit(self, path, text):
        os.makedirs(os.path.dirname(os.path.join(self.repo, path)), exist_ok=True)
        with open(os.path.join(self.repo, path), "w") as f:
            f.write(text)
        self.git("add", "-A")
        self.git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", path)
        return self.git("rev-parse", "--short=7", "HEAD")

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.repo = os.path.join(self.tmp, "repo")
        os.makedirs(self.repo)
        self.git("init", "-q")
        self.first = self.commit("sim/model.cpp", "int a;\n")
        self.commit("docs/model.md", "why\n")                      # cannot change a run
        self.docs_only = self.commit("scripts/crosscheck.sh", "recipe=1\n")  # its arguments: the recipe
        self.source = self.commit("sim/model.cpp", "int b;\n")     # can
        # A work directory as crosscheck.sh leaves it, begun by the first build.
        self.work = os.path.join(self.tmp, "work")
        os.makedirs(self.work)
        with open(os.path.join(self.work, "VERSIONS"), "w") as f:
            f.write(version(self.first) + "\n")
        base = os.path.join(self.work, "torus__dp__vgg16__planned")
        with open(base + ".plan.json", "w") as f:
            # family.elapsed_s as search's plans say how long the search took (kept in the record).
            json.dump({"predicted": {"iteration_s": 1.0}, "family": {"elapsed_s": 38.5}}, f)
        with open(base + ".results.json", "w") as f:
            json.dump({"closed_form_iteration_s": 1.1, "simulated_iteration_s": 1.25, "utilization": 0.5,
                       "links": [{"id": 0, "link": "l0", "busy_fraction": 0.2, "utilization": 0.1},
                                 {"id": 1, "link": "l1", "busy_fraction": 0.9, "utilization": 0.7}]}, f)
        with open(base + ".log", "w") as f:
            f.write("simplan: warning: contention: the busiest link\n")
        with open(os.path.join(self.work, "torus__owt__vgg16__planned.failed"), "w") as f:
            f.write("simrun exit 124: did not finish within 1800 s (timeout)\n")
        with open(os.path.join(self.work, "torus__search__vgg16__planned.skipped"), "w") as f:
            f.write("simplan: error: no strategy plans here\n")
        self.records = os.path.join(self.tmp, "runs.jsonl")
        self.run_script("export", self.work, self.records)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_script(self, *args, versions=None, redo="", settings=SETTINGS):
        env = dict(os.environ, PARTSIM_CROSSCHECK_SETTINGS=json.dumps(settings),
                   PARTSIM_CROSSCHECK_VERSIONS=versions or "", PARTSIM_CROSSCHECK_REDO=redo)
        r = subprocess.run([sys.executable, RECORDS, *args], capture_output=True, text=True, env=env,
                           cwd=self.repo)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def import_into_new_work(self, versions, **kwargs):
        work = os.path.join(self.tmp, "elsewhere")
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        with open(os.path.join(work, "VERSIONS"), "w") as f:
            f.write(versions + "\n")
        out = self.run_script("import", self.records, work, versions=versions, **kwargs)
        return work, out

    def test_a_record_holds_what_the_report_reads(self):
        records = {r["name"]: r for r in read(self.records)}
        self.assertEqual(sorted(records), ["torus__dp__vgg16__planned", "torus__owt__vgg16__planned",
                                           "torus__search__vgg16__planned"])
        dp = records["torus__dp__vgg16__planned"]
        self.assertEqual((dp["status"], dp["predicted"], dp["closed"], dp["simulated"]), ("replayed", 1.0, 1.1, 1.25))
        self.assertEqual(dp["links"][0], ["l1", 0.9, 0.7])  # the busiest first
        self.assertEqual((dp["warnings"], dp["elapsed_s"]), (["contention"], 38.5))
        self.assertEqual((dp["build"], dp["settings"]), (version(self.first), SETTINGS))
        self.assertEqual(records["torus__owt__vgg16__planned"]["why"],
                         "simrun exit 124: did not finish within 1800 s (timeout)")

    def test_a_build_differing_only_in_docs_keeps_every_run_and_the_report_is_the_same(self):
        work, out = self.import_into_new_work(version(self.docs_only))
        self.assertIn("kept 3 runs", out)
        self.assertTrue(os.path.exists(os.path.join(work, "torus__dp__vgg16__planned.record.json")))
        self.assertTrue(os.path.exists(os.path.join(work, "torus__owt__vgg16__planned.failed")))
        again = os.path.join(self.tmp, "again.jsonl")
        self.run_script("export", work, again)
        self.assertEqual(read(again), read(self.records))
        report = lambda w: subprocess.run([sys.executable, REPORT, w, "chip"], capture_output=True,
                                          text=True).stdout
        self.assertIn("| torus | dp | vgg16 | as planned | 1000.000 | 1100.000 | 1250.000 | +25.0 % |", report(work))
        self.assertIn(f"Built from: {version(self.docs_only)}. With a build of their own "
                      f"(`docs/data/crosscheck_runs.jsonl`, each record's `build`: runs kept from the records of "
                      f"earlier sittings, with the same settings and builds whose sources differ from this one only "
                      f"in files that cannot change a run, or strategies not redone; and runs made again here with a "
                      f"later build): 3 runs by {version(self.first)}.", report(work))

    def test_a_build_with_other_sources_keeps_nothing_unless_it_redoes_another_strategy(self):
        _, out = self.import_into_new_work(version(self.source))
        self.assertIn("kept 0 runs", out)
        self.assertIn(f"left 3 made by {version(self.first)}", out)
        # Redoing search: the other strategies' runs are kept as they are, search's left.
        work, out = self.import_into_new_work(version(self.source), redo="search")
        self.assertIn("kept 2 runs", out)
        self.assertFalse(os.path.exists(os.path.join(work, "torus__search__vgg16__planned.skipped")))

    def test_a_dirty_or_unknown_build_and_other_settings_keep_nothing(self):
        for versions in (version(self.docs_only + "-dirty"), version("1234567")):
            _, out = self.import_into_new_work(versions)
            self.assertIn("kept 0 runs", out)
        _, out = self.import_into_new_work(version(self.first), settings=dict(SETTINGS, batch=256))
        self.assertIn("kept 0 runs", out)
        self.assertIn("left 3 made with other settings", out)

    def test_a_run_the_work_directory_has_is_not_imported_over(self):
        out = self.run_script("import", self.records, self.work, versions=version(self.first))
        self.assertIn("kept 0 runs", out)
        self.assertFalse(os.path.exists(os.path.join(self.work, "torus__dp__vgg16__planned.record.json")))


if __name__ == "__main__":
    unittest.main()
