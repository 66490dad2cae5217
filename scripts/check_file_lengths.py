#!/usr/bin/env python3
"""Every source file of the project is under 600 lines (issue 43 item 7): C++, Python, shell and
CMake files under the source folders. Prints the files at or over the limit and exits 1 if any.

Usage: scripts/check_file_lengths.py [SOURCE_DIR] [--limit 600]"""
import argparse
import os
import sys

FOLDERS = ("sim", "topology", "workloads", "scripts", "tests", "bench", "fuzz")
SUFFIXES = (".cpp", ".hpp", ".h", ".py", ".sh", ".cmake", "CMakeLists.txt")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("source", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--limit", type=int, default=600, help="lines a file must stay under (default 600)")
    a = ap.parse_args()
    over = []
    for folder in FOLDERS:
        for root, dirs, files in os.walk(os.path.join(a.source, folder)):
            dirs[:] = [d for d in dirs if d not in ("data", "__pycache__")]  # test data are not sources
            for name in files:
                if name.endswith(SUFFIXES):
                    path = os.path.join(root, name)
                    with open(path, errors="replace") as f:
                        lines = sum(1 for _ in f)
                    if lines >= a.limit:
                        over.append((lines, os.path.relpath(path, a.source)))
    for lines, path in sorted(over, reverse=True):
        print(f"{path}: {lines} lines (limit: under {a.limit})")
    sys.exit(1 if over else 0)


if __name__ == "__main__":
    main()
