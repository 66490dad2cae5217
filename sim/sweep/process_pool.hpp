#pragma once
// Runs chains of commands in parallel child processes (one SimGrid simulation per process, and the
// cores of the machine used by several points at once). A chain runs its commands in order and
// stops at the first that fails.

#include <functional>
#include <string>
#include <vector>

namespace partsim::sweep {

struct Command {
  std::vector<std::string> argv;  // argv[0] is the program's path
  std::string log_file;           // stdout and stderr go here (appended)
};

struct ChainResult {
  int exit_code = 0;      // 0 when every command succeeded; else the failing command's code
                          // (128 + signal for a command killed by a signal, 127 if it could not start)
  int failed_command = -1;  // index within the chain, -1 when none failed
  bool timed_out = false;   // killed (SIGKILL) for running past the chain's time limit
};

/// Runs every chain, at most `parallel` processes at once (>= 1). `on_done(i, result)` is called in
/// the calling thread as chain i finishes, in completion order. Returns results by chain index.
/// `timeout_s` > 0: a chain still running that long (wall clock, from its first command's start)
/// has its process killed and stops there, timed_out.
std::vector<ChainResult> run_chains(const std::vector<std::vector<Command>>& chains, int parallel,
                                    const std::function<void(size_t, const ChainResult&)>& on_done,
                                    double timeout_s = 0);

}  // namespace partsim::sweep
