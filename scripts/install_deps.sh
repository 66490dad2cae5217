#!/usr/bin/env bash
# Installs the Debian 12 packages partsim needs to build, test and plot. Idempotent and quiet when
# everything is already there; needs root (or sudo) only when something is missing.
set -euo pipefail
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above

packages=(
  build-essential cmake pkg-config git
  libsimgrid-dev          # SimGrid 3.32: the replay
  libboost-graph-dev      # Boost.Graph: workload DAGs, topology graphs
  libyaml-cpp-dev         # platform and workload files
  nlohmann-json3-dev      # plan and result files
  libcli11-dev            # command lines
  libgtest-dev            # tests
  libbenchmark-dev        # micro-benchmarks
  python3-matplotlib      # scripts/plot_*.py
  clang libclang-rt-14-dev  # scripts/fuzz.sh: libFuzzer harnesses of the parsers (fuzz/)
  libgecode-dev           # sim/planners/mcm: the placement constraint solver (seed 002)
  libtorch-dev            # sim/planners/mcm/rl: the RL placement policy and PPO (seed 002 §4), CPU
  libopenmpi-dev openmpi-bin  # simsweep under mpirun/srun: points spread over MPI ranks (sim/sweep/mpi_world.*)
  protobuf-compiler libprotobuf-dev  # sim/export (Chakra traces for ASTRA-sim) and workloads/onnx (ONNX's ModelProto)
  libonnx-dev             # workloads/onnx: ONNX models as workloads (ModelProto, shape inference)
  libonnx-testdata        # tests/onnx: ONNX's node and PyTorch-converted test models
  python3-torch python3-torchvision  # scripts/export_test_models.py: the PyTorch models tests/onnx exports
  zlib1g-dev              # sim/report: simrun --timeline trace.json.gz (gzip-compressed timeline)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install_deps: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
