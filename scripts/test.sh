#!/usr/bin/env bash
# The whole test suite, as the README and CI run it: installs what is missing, builds the Release
# tree and runs every test; then the same suite under AddressSanitizer + UndefinedBehaviorSanitizer
# (skip it with PARTSIM_SKIP_SANITIZE=1 for a quick local run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
jobs=${PARTSIM_JOBS:-$(nproc)}

scripts/build.sh release
ctest --test-dir build --output-on-failure -j"$jobs"

if [ "${PARTSIM_SKIP_SANITIZE:-0}" != 1 ]; then
  scripts/build.sh sanitize
  # SimGrid switches actor stacks itself (boost context): ASan cannot follow that for
  # use-after-return checks; everything else stays on.
  ASAN_OPTIONS=detect_stack_use_after_return=0:detect_leaks=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-sanitize --output-on-failure -j"$jobs" -LE slow
fi
