"""What the figure scripts (scripts/plot_*.py) share: quantities written with units read back to SI
(the rules of sim/common/units.hpp), a readable display unit for a set of values, what a platform
key means (for axis labels), and saving a figure by its file extension without clipping.

Imported by plot_sweep.py, plot_breakdown.py and plot_timeline.py (they put scripts/ on sys.path).
"""
import json
import math
import os
import re
import sys

# ---- quantities ------------------------------------------------------------------------------

# sim/common/units.hpp: k M G T P E are powers of 1000, Ki Mi Gi Ti Pi of 1024; lower-case b is a bit.
_PREFIXES = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
             "Ki": 1024.0, "Mi": 1024.0 ** 2, "Gi": 1024.0 ** 3, "Ti": 1024.0 ** 4, "Pi": 1024.0 ** 5}
# (unit base, dimension, factor to SI), longest first so "B/s" wins over "B".
_BASES = [("FLOP/s", "flop_rate", 1.0), ("FLOPS", "flop_rate", 1.0), ("flop/s", "flop_rate", 1.0),
          ("bytes", "bytes", 1.0), ("bits", "bytes", 0.125), ("B/s", "bandwidth", 1.0), ("b/s", "bandwidth", 0.125),
          ("Bps", "bandwidth", 1.0), ("bps", "bandwidth", 0.125), ("Hz", "frequency", 1.0), ("B", "bytes", 1.0),
          ("b", "bytes", 0.125)]
_TIMES = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
_PER_SECOND = {"ps": 1e12, "ns": 1e9, "us": 1e6, "ms": 1e3, "s": 1.0}  # divide: 500ns -> exactly 5e-7 s
_NUMBER = re.compile(r"^\s*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*(.*?)\s*$")

# What each dimension is shown in: the unit base and whether binary prefixes may be used.
_DISPLAY = {"bytes": "B", "bandwidth": "B/s", "time": "s", "frequency": "Hz", "flop_rate": "FLOP/s", "count": ""}


def parse_quantity(text):
    """'30GB/s' -> (3e10, 'bandwidth'); '512KiB' -> (524288.0, 'bytes'); '7' -> (7.0, 'count');
    a value that is not a number with a known unit -> (None, None)."""
    m = _NUMBER.match(text or "")
    if not m:
        return None, None
    number, unit = float(m.group(1)), m.group(2)
    if unit == "":
        return number, "count"
    if unit in _TIMES:
        return number / _PER_SECOND[unit], "time"
    for base, dimension, factor in _BASES:
        if unit.endswith(base) and unit[:-len(base)] in _PREFIXES:
            return number * _PREFIXES[unit[:-len(base)]] * factor, dimension
    return None, None


def display_unit(values, dimension):
    """(divisor, unit text) that shows SI `values` of `dimension` readably: the prefix of their
    geometric middle (binary prefixes for sizes that are all whole multiples of 1024), so a sweep
    of 512KiB..2MiB reads 0.5, 1, 2 MiB and one of 20..240 GB/s reads 20..240 GB/s."""
    base = _DISPLAY.get(dimension, "")
    magnitudes = [abs(v) for v in values if v]
    if dimension in (None, "count") or not magnitudes:
        return 1.0, base
    middle = math.sqrt(min(magnitudes) * max(magnitudes))
    if dimension == "time":
        for unit in ("s", "ms", "us", "ns", "ps"):
            if middle >= _TIMES[unit] or unit == "ps":
                return _TIMES[unit], unit
    binary = dimension == "bytes" and all(v == int(v) and int(v) % 1024 == 0 for v in magnitudes)
    prefixes = ["Pi", "Ti", "Gi", "Mi", "Ki"] if binary else ["E", "P", "T", "G", "M", "k"]
    for p in prefixes:
        if middle >= _PREFIXES[p]:
            return _PREFIXES[p], p + base
    return 1.0, base


# ---- what a sweep axis means -----------------------------------------------------------------

_TORUS_DIMENSIONS = "XYZWVU"


def _dimension_name(match):
    i = int(match.group("i"))
    return _TORUS_DIMENSIONS[i] if i < len(_TORUS_DIMENSIONS) else f"dimension-{i}"


# (regular expression on the key path, meaning; {dim} is the torus dimension's letter). The
# meanings follow configs/README.md's key reference; the unit comes from the values.
_MEANINGS = [
    (r"^system\.torus\.bandwidth$", "torus link bandwidth per direction (every dimension)"),
    (r"^system\.torus\.latency$", "torus link latency (every dimension)"),
    (r"^system\.torus\.bandwidth\[(?P<i>\d+)\]$", "{dim}-link bandwidth per direction"),
    (r"^system\.torus\.latency\[(?P<i>\d+)\]$", "{dim}-link latency"),
    (r"^system\.star\.bandwidth$", "switch link bandwidth per direction"),
    (r"^system\.star\.latency$", "switch link latency"),
    (r"^system\.graph\.links\[(?P<n>\d+)\]\.bandwidth$", "bandwidth of graph link {n}"),
    (r"^system\.graph\.links\[(?P<n>\d+)\]\.latency$", "latency of graph link {n}"),
    (r"\.core\.scratchpad_bandwidth$", "scratchpad bandwidth per core"),
    (r"\.core\.scratchpad$", "scratchpad per core"),
    (r"\.core\.frequency$", "core clock"),
    (r"\.core\.pe_arrays$", "PE arrays per core"),
    (r"\.core\.sfus$", "special-function units per core"),
    (r"\.pe\.simd_lanes$", "MAC lanes per PE"),
    (r"\.pe_array\.rows$", "PE array rows"),
    (r"\.pe_array\.cols$", "PE array columns"),
    (r"\.chip\.cores$", "cores per chip"),
    (r"\.chip\.core_to_core_bandwidth$", "on-chip link bandwidth per direction"),
    (r"\.chip\.on_chip_latency$", "on-chip hop latency"),
    (r"\.chip\.memory_bandwidth$", "external memory bandwidth per chip"),
    (r"\.chip\.memory_efficiency$", "achieved fraction of memory bandwidth"),
    (r"\.chip\.memory_latency$", "external memory latency"),
    (r"\.chip\.memory$", "external memory per chip"),
    (r"\.network_bandwidth$", "device network bandwidth per direction"),
    (r"\.memory_bandwidth$", "device memory bandwidth"),
    (r"\.memory$", "device memory"),
    (r"\.peak$", "peak compute per device"),
    (r"\.frequency$", "clock"),
    (r"^batch$", "minibatch size"),
    (r"^workload$", "workload"),
    (r"^strategy$", "strategy"),
    (r"^option\.(?P<name>.+)$", "strategy option {name}"),
]


def axis_meaning(key):
    """'system.torus.bandwidth[1]' -> 'Y-link bandwidth per direction'; an unknown key -> the key."""
    for pattern, meaning in _MEANINGS:
        m = re.search(pattern, key)
        if m:
            groups = m.groupdict()
            return meaning.format(dim=_dimension_name(m) if "i" in groups else "", n=groups.get("n"),
                                  name=groups.get("name"))
    return key


def axis_label(key, unit):
    """'Y-link bandwidth per direction [GB/s]' (the key itself on a second line when it is not obvious)."""
    meaning = axis_meaning(key)
    text = f"{meaning} [{unit}]" if unit else meaning
    return text if meaning == key or key in ("batch", "workload", "strategy") else f"{text}\n{key}"


# ---- output ----------------------------------------------------------------------------------

def add_output_options(parser, what):
    """-o, --title and --dump-data, the same in every figure script; `what` says what --dump-data prints."""
    parser.add_argument("-o", "--output", help="image file: .png, .svg or .pdf (required unless --dump-data)")
    parser.add_argument("--title", default=None, help="figure title (default: made from the input)")
    parser.add_argument("--dump-data", action="store_true", help=f"print {what} as JSON on stdout, no image")


def run(args, program, extract, plot):
    """The figure scripts' main flow: checks -o before any work, then `extract()` (the data), then
    prints it as JSON (--dump-data) or draws it with `plot(data, args)`."""
    if not args.dump_data:
        if not args.output:
            fail(program, "-o FILE is required (.png, .svg or .pdf), or --dump-data")
        check_output(args.output, program)
    data = extract()
    if args.dump_data:
        json.dump(data, sys.stdout, indent=1)
        print()
        return
    plot(data, args)


FORMATS = (".png", ".svg", ".pdf")


def check_output(path, program):
    """Exits with a one-line error (code 2) unless `path` ends in a known image extension and its
    directory exists: before any work, so a typo does not cost the plot."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in FORMATS:
        fail(program, f"{path}: unknown image format '{ext}' (allowed: {', '.join(FORMATS)})")
    directory = os.path.dirname(path) or "."
    if not os.path.isdir(directory):
        fail(program, f"{path}: directory '{directory}' does not exist")


def save(fig, path, program):
    """Writes `fig` in the format its extension names (PNG at 150 dpi), with every title, label and
    legend inside the image (bbox_inches='tight'), then says so on stdout."""
    fig.savefig(path, dpi=150, bbox_inches="tight")
    print(f"{program}: wrote {path}")


def fail(program, message):
    """Bad input: one line on stderr, exit code 2 (the programs' convention)."""
    print(f"{program}: error: {message}", file=sys.stderr)
    sys.exit(2)


def wrapped(text, width=80):
    """A title wrapped to lines of at most `width` characters, so it is never cut at the figure's edge."""
    import textwrap
    return "\n".join(textwrap.wrap(text, width)) if text else text


def summary(doc):
    """The first paragraph of a module docstring as one line, for --help (its first line alone stops
    mid-sentence)."""
    return " ".join(doc.split("\n\n")[0].split())
