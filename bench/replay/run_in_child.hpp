#pragma once
// SimGrid runs one simulation per process: a benchmark that replays more than once runs each replay
// in a forked child, which sends its (trivially copyable) result back through a pipe. The child's
// ru_maxrss is then the peak memory of that run alone.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <type_traits>

#include "sim/common/error.hpp"

namespace partsim::bench {

/// Runs `run()` in a child process and returns its result; `ok` is false if it threw or died.
template <class Result, class Run>
Result run_in_child(Run run, bool& ok) {
  static_assert(std::is_trivially_copyable_v<Result>);
  int fds[2];
  if (pipe(fds) != 0) throw Error("pipe failed");
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) throw Error("fork failed");
  if (pid == 0) {
    close(fds[0]);
    Result r{};
    int code = 0;
    try {
      r = run();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "benchmark run failed: %s\n", e.what());
      code = 1;
    }
    const ssize_t written = write(fds[1], &r, sizeof r);
    _exit(written == static_cast<ssize_t>(sizeof r) ? code : 1);
  }
  close(fds[1]);
  Result r{};
  const ssize_t got = read(fds[0], &r, sizeof r);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ok = got == static_cast<ssize_t>(sizeof r) && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return r;
}

}  // namespace partsim::bench
