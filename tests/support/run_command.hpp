#pragma once
// Running a program from a test: exit code and everything it printed (stdout and stderr).

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace partsim::test {

/// Runs `command` in a shell; returns its exit code (-1 if it did not exit) and puts its stdout and
/// stderr in `output` when given.
inline int run_command(const std::string& command, std::string* output = nullptr) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[4096];
  std::string out;
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) out += buf;
  const int status = pclose(pipe);
  if (output != nullptr) *output = out;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace partsim::test
