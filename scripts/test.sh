#!/usr/bin/env bash
# The whole test suite, as the README and CI run it: installs what is missing, builds the Release
# tree, runs a 30 s libFuzzer smoke of each parser harness (scripts/fuzz.sh, clang, build-fuzz/),
# every test (ctest), then the ASan + UBSan build (build-sanitize/) and every test in it.
#   scripts/test.sh              all of it (what CI runs)
#   scripts/test.sh --no-sanitize  without the sanitizer build (quicker, for local runs)
#   PARTSIM_FUZZ_SECONDS=N       seconds per harness in the smoke (default 30; 0 skips it)
# Each phase prints its wall time when it ends ("test.sh: ... took N s"); the figures of a fresh clone
# on this project's 2-core machine are in docs/robustness.md "Sanitizers".
set -euo pipefail
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
cd "$(dirname "$0")/.."
sanitize=1
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=1 ;;  # the default; kept for older command lines
    --no-sanitize) sanitize=0 ;;
    *) echo "test.sh: unknown option '$arg' (allowed: --no-sanitize)" >&2; exit 2 ;;
  esac
done
jobs=${PARTSIM_JOBS:-$(nproc)}
started=$(date +%s)
phase_start=$started
# phase NAME COMMAND...: runs COMMAND, then says how long it took.
phase() {
  local name=$1
  shift
  "$@"
  local now
  now=$(date +%s)
  echo "test.sh: $name took $((now - phase_start)) s"
  phase_start=$now
}

phase "installing dependencies" scripts/install_deps.sh
phase "the Release build" scripts/build.sh release
fuzz_seconds=${PARTSIM_FUZZ_SECONDS:-30}
if [ "$fuzz_seconds" != 0 ]; then
  phase "the fuzz smoke (its build included)" scripts/fuzz.sh --seconds "$fuzz_seconds"
fi
phase "the Release tests" ctest --test-dir build --output-on-failure -j"$jobs"

if [ "$sanitize" = 1 ]; then
  phase "the sanitizer build" scripts/build.sh sanitize
  # SimGrid switches contexts itself; ASan's use-after-return check cannot follow that. The tests of
  # the scripts (label "scripts": Python on fixtures, no code of this build) ran in the Release tree.
  ASAN_OPTIONS=detect_stack_use_after_return=0:detect_leaks=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    phase "the sanitizer tests" ctest --test-dir build-sanitize --output-on-failure -j"$jobs" -LE '^scripts$'
fi
echo "test.sh: all passed in $(($(date +%s) - started)) s"
