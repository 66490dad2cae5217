#!/usr/bin/env bash
# The whole test suite, as the README and CI run it: installs what is missing, builds the Release
# tree, runs a 30 s libFuzzer smoke of each parser harness (scripts/fuzz.sh, clang, build-fuzz/),
# every test (ctest), then the ASan + UBSan build (build-sanitize/) and every test in it.
#   scripts/test.sh              all of it (what CI runs)
#   scripts/test.sh --no-sanitize  without the sanitizer build (quicker, for local runs)
#   PARTSIM_FUZZ_SECONDS=N       seconds per harness in the smoke (default 30; 0 skips it)
# Timings (shared 2-core machine, load ~9, no ccache hits): sanitizer build 53 min, its ctest 76 s
# (513 tests); Release ctest 44 s.
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
scripts/install_deps.sh
jobs=${PARTSIM_JOBS:-$(nproc)}

scripts/build.sh release
fuzz_seconds=${PARTSIM_FUZZ_SECONDS:-30}
if [ "$fuzz_seconds" != 0 ]; then
  scripts/fuzz.sh --seconds "$fuzz_seconds"
fi
ctest --test-dir build --output-on-failure -j"$jobs"

if [ "$sanitize" = 1 ]; then
  scripts/build.sh sanitize
  # SimGrid switches contexts itself; ASan's use-after-return check cannot follow that.
  ASAN_OPTIONS=detect_stack_use_after_return=0:detect_leaks=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-sanitize --output-on-failure -j"$jobs"
fi
