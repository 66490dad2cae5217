#include "sim/sweep/process_pool.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cerrno>
#include <chrono>
#include <thread>
#include <map>

#include "sim/common/error.hpp"

extern char** environ;

namespace partsim::sweep {
namespace {

// Starts one command with stdout/stderr appended to its log; returns the pid, or -1 if it could
// not be started.
pid_t spawn(const Command& command) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!command.log_file.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, command.log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  }
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> argv;
  for (const auto& a : command.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

}  // namespace

std::vector<ChainResult> run_chains(const std::vector<std::vector<Command>>& chains, int parallel,
                                    const std::function<void(size_t, const ChainResult&)>& on_done, double timeout_s) {
  using Clock = std::chrono::steady_clock;
  std::vector<Clock::time_point> started(chains.size());
  std::vector<bool> killed(chains.size(), false);
  if (parallel < 1) parallel = 1;
  std::vector<ChainResult> results(chains.size());
  std::vector<size_t> next_command(chains.size(), 0);
  std::map<pid_t, size_t> running;  // pid -> chain
  size_t next_chain = 0;

  // Starts the next command of `chain`, or finishes the chain; returns true if a process started.
  auto advance = [&](size_t chain) -> bool {
    while (next_command[chain] < chains[chain].size()) {
      const size_t c = next_command[chain];
      const pid_t pid = spawn(chains[chain][c]);
      if (c == 0) started[chain] = Clock::now();
      if (pid > 0) {
        running[pid] = chain;
        return true;
      }
      results[chain] = {127, static_cast<int>(c)};
      on_done(chain, results[chain]);
      return false;
    }
    on_done(chain, results[chain]);
    return false;
  };

  while (next_chain < chains.size() || !running.empty()) {
    while (static_cast<int>(running.size()) < parallel && next_chain < chains.size()) advance(next_chain++);
    if (running.empty()) continue;
    int status = 0;
    // With a time limit, poll (every 20 ms) so that a chain past it can be killed; without, block.
    const pid_t pid = ::waitpid(-1, &status, timeout_s > 0 ? WNOHANG : 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw Error("simsweep: waitpid failed");
    }
    if (pid == 0) {
      const auto now = Clock::now();
      for (const auto& [child, chain] : running)
        if (!killed[chain] && std::chrono::duration<double>(now - started[chain]).count() > timeout_s) {
          ::kill(child, SIGKILL);
          killed[chain] = true;
        }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const size_t chain = it->second;
    running.erase(it);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    if (code != 0 || killed[chain]) {
      results[chain] = {code != 0 ? code : 128 + SIGKILL, static_cast<int>(next_command[chain]), killed[chain]};
      on_done(chain, results[chain]);
      continue;
    }
    ++next_command[chain];
    advance(chain);
  }
  return results;
}

}  // namespace partsim::sweep
