#!/usr/bin/env bash
# Configures and builds partsim. Usage: scripts/build.sh [release|sanitize] (default release).
# Release goes to build/, the ASan+UBSan build to build-sanitize/.
# PARTSIM_UNITY=ON (or OFF) in the environment configures a unity build (CMake option PARTSIM_UNITY:
# each target's sources compiled in batches of 16; an edit then recompiles its whole batch).
set -euo pipefail
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
cd "$(dirname "$0")/.."
kind=${1:-release}
jobs=${PARTSIM_JOBS:-$(nproc)}
case "$kind" in
  release) dir=build; flags=(-DCMAKE_BUILD_TYPE=Release) ;;
  sanitize) dir=build-sanitize; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPARTSIM_SANITIZE=ON -DPARTSIM_BUILD_BENCH=OFF) ;;
  *) echo "build.sh: unknown build kind '$kind' (allowed: release, sanitize)" >&2; exit 2 ;;
esac
if [ -n "${PARTSIM_UNITY:-}" ]; then
  flags+=(-DPARTSIM_UNITY="$PARTSIM_UNITY")
fi
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
cmake --build "$dir" -j"$jobs"
