#!/usr/bin/python3
"""How many translation units of a build tree reach each heavy third-party header (docs/building.md
"Keeping heavy headers where they are used"): reads the tree's compile_commands.json and the
compiler's dependency file (.o.d) of every object in it, so build the tree first.

Usage: scripts/include_counts.py [BUILD_DIR] [--list HEADER]
  BUILD_DIR       default build/
  --list HEADER   also print the sources that reach HEADER (one of the names in the table)
"""
import argparse
import json
import os
import re
import sys

# Table name -> a path fragment that only that library's headers have.
HEADERS = {
    "nlohmann/json": "nlohmann/json.hpp",
    "Boost adjacency_list": "boost/graph/adjacency_list.hpp",
    "CLI11": "CLI/CLI.hpp",
    "yaml-cpp": "yaml-cpp/yaml.h",
    "SimGrid": "simgrid/s4u.hpp",
    "Gecode": "/gecode/",
    "libtorch": "/torch/",
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build_dir", nargs="?", default="build")
    parser.add_argument("--list", metavar="HEADER", choices=sorted(HEADERS), help="print the sources reaching HEADER")
    args = parser.parse_args()
    commands_file = os.path.join(args.build_dir, "compile_commands.json")
    try:
        with open(commands_file, encoding="utf-8") as f:
            commands = json.load(f)
    except OSError as e:
        print(f"include_counts.py: {commands_file}: {e.strerror} (configure and build the tree first)", file=sys.stderr)
        sys.exit(2)
    reaching = {name: [] for name in HEADERS}
    missing = 0
    for entry in commands:
        output = re.search(r" -o (\S+)", entry["command"])
        if not output:
            continue
        depfile = os.path.join(entry["directory"], output.group(1) + ".d")
        if not os.path.exists(depfile):
            missing += 1
            continue
        with open(depfile, encoding="utf-8", errors="replace") as f:
            deps = f.read()
        for name, fragment in HEADERS.items():
            if fragment in deps:
                reaching[name].append(os.path.relpath(entry["file"]))
    units = len(commands) - missing
    print(f"{units} translation units in {args.build_dir}" + (f" ({missing} not built yet, left out)" if missing else ""))
    width = max(len(n) for n in HEADERS)
    for name, files in reaching.items():
        print(f"{name:<{width}}  {len(files)}")
    if args.list:
        print(f"\nreaching {args.list}:")
        for path in sorted(reaching[args.list]):
            print(f"  {path}")


if __name__ == "__main__":
    main()
