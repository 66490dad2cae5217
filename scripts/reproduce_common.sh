# shellcheck shell=bash
# Shared by scripts/reproduce_*.sh (sourced, not run): go to the repository root, build only the
# targets a reproduction needs, clean up temporary files on exit, and never leave a half-written
# report. The sourcing script sets `set -euo pipefail` itself.
#
#   source "$(dirname "$0")/reproduce_common.sh"
#   build_targets "$build" simplan simrun      # configures BUILD_DIR if needed; PARTSIM_JOBS jobs (default 2);
#                                              # PARTSIM_SKIP_BUILD=1: use BUILD_DIR/bin as it is
#   work=$(mktemp -d); remove_on_exit "$work"
#   write_output docs/reproductions/x.md report_function ARGS...   # stdout of the command, moved in place on success

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2

_reproduce_cleanup=()
_reproduce_on_exit() { if ((${#_reproduce_cleanup[@]})); then rm -rf -- "${_reproduce_cleanup[@]}"; fi; }
trap _reproduce_on_exit EXIT

# remove_on_exit PATH...: delete these files or folders when the script ends, however it ends.
remove_on_exit() { _reproduce_cleanup+=("$@"); }

# build_targets BUILD_DIR TARGET...: configure BUILD_DIR (Release) when it has no CMakeCache.txt, then
# build only TARGETs with at most PARTSIM_JOBS (default 2) jobs. PARTSIM_SKIP_BUILD=1 builds nothing and
# uses BUILD_DIR/bin/TARGET as they are (a copy of the programs, for a run of hours while the build
# directory is rebuilt); a missing one is an error.
build_targets() {
  local build=$1 target
  shift
  if [ "${PARTSIM_SKIP_BUILD:-0}" = 1 ]; then
    for target in "$@"; do
      [ -x "$build/bin/$target" ] || { echo "$(basename "$0"): $build/bin/$target is missing (build it, or unset PARTSIM_SKIP_BUILD)" >&2; exit 2; }
    done
    return 0
  fi
  [ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j"${PARTSIM_JOBS:-2}" --target "$@" >/dev/null
}

# write_output OUT COMMAND [ARGS...]: run COMMAND with its stdout in a temporary file next to OUT and
# move it to OUT only when COMMAND succeeded (set -e ends the script otherwise; the file is removed).
write_output() {
  local out=$1 tmp
  shift
  tmp=$(mktemp "$out.XXXXXX")
  remove_on_exit "$tmp"
  "$@" >"$tmp"
  chmod a+r "$tmp"  # mktemp makes it private; a report is for everyone to read
  mv "$tmp" "$out"
  echo "wrote $out"
}
