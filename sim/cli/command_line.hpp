#pragma once
// What every partsim program shares: the one place exceptions are caught, command-line parsing
// with exit code 2 for bad input, platform options (--config, --set, --dump-config) and output
// files that are never left half-written.


#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "topology/system_spec.hpp"

namespace CLI {
class App;  // <CLI/CLI.hpp>: included by the files that define command lines
}  // namespace CLI

namespace partsim::cli {

/// Thrown by parse() to end the program early with `code` after CLI11 printed help or an error.
struct ExitRequest {
  int code;
};

/// Runs `body(argc, argv)` and turns every escaping error into one line on stderr,
/// "PROGRAM: error: WHAT", and its exit code: InputError (bad YAML, plan, workload, option) -> 2,
/// any other partsim::Error or std::exception -> 1.
int run_main(std::string_view program, const std::function<int(int, char**)>& body, int argc, char** argv);

/// The line run_main() prints for an error, "PROGRAM: error: WHAT", written and flushed now (for a
/// program that must print it before it can end, such as one rank of an MPI job).
void print_error(std::string_view program, std::string_view what);
/// Prints "<program>: warning: <what>" on stderr, the program being the one run_main() runs.
void print_warning(std::string_view what);

/// Parses the command line. --help prints the help and ends the program with 0; --version (added
/// here, so every program has it) prints "<program> <version_string()>" and ends with 0; a bad
/// option or value prints one line naming it and ends the program with 2.
void parse(CLI::App& app, int argc, char** argv);

/// partsim's version: the CMake project version, with `git describe` of the source tree when git
/// was there at configure time, e.g. "0.1.0 (git v0.1.0-12-gf6e5018-dirty)".
std::string version_string();

/// Adds -q/--quiet to `app`: no progress or summary lines on stdout and stderr; warnings, errors
/// and the output files ("-" included) are unaffected (a sweep still records the warnings).
void add_quiet_flag(CLI::App& app, bool& quiet);

/// Every file one run writes (results.json, --csv, --timeline, --dump-config, -o plan.json): the
/// single place partsim writes output files. Nothing reaches its path until every output of the set
/// has been written in full, so a failure (bad input found late, a full disk, an unwritable
/// directory) leaves no file behind and no file half-written.
///  - a regular file (or a new one) is written to a temporary file beside it, then renamed into place;
///  - a symbolic link is followed: its target is written, the link stays;
///  - a device, FIFO or socket (/dev/null, /dev/stdout, a named pipe) is written directly, never replaced;
///  - "-" is standard output.
/// Throws InputError naming the path when a path cannot be written (missing directory, a directory,
/// the same file twice in one run).
class OutputSet {
 public:
  OutputSet() = default;
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  ~OutputSet();

  /// Checks that `path` can be an output (its directory exists, it is not a directory, no other
  /// output of the set names the same file) without writing anything: call it for every output
  /// before the long work, so a typo fails in a second, not after the replay.
  void check(const std::vector<std::string>& paths) const;

  /// Stages `content` for `path` (written out by commit()).
  void add(const std::string& path, std::string content);
  /// The same for output too large to hold as one string: `write` streams it. If `write` throws,
  /// everything staged so far is dropped and the error goes on.
  void add(const std::string& path, const std::function<void(std::ostream&)>& write);

  /// Puts every staged output in place, in the order added. On an error nothing is left behind.
  void commit();

 private:
  struct Output {
    std::string path;           // as given
    std::string target;         // the file written: symlinks followed; empty for "-"
    bool direct = false;        // "-", a device, FIFO or socket: written directly at commit
    std::string temp;           // regular files: the temporary file beside target until renamed
    std::string content;        // direct outputs: the bytes
  };
  Output prepare(const std::string& path, const std::vector<Output>& others) const;
  void discard() noexcept;
  std::vector<Output> staged_;
};

/// The platform given on the command line.
struct PlatformOptions {
  std::string config_file;               // --config
  std::vector<std::string> overrides;    // --set key.path=value, in order
  std::string dump_config_file;          // --dump-config FILE ("-" for stdout)
};

/// Adds --config, --set (repeatable) and --dump-config to `app`.
void add_platform_options(CLI::App& app, PlatformOptions& options);

/// Loads and validates the platform (with its overrides) and, if --dump-config was given, stages the
/// fully resolved platform in `outputs` (written when the run's other outputs are).
topology::SystemSpec load_platform(const PlatformOptions& options, OutputSet& outputs);
/// Prints the platform file's warnings (SystemSpec::warnings: a size in bits, ...), one line each.
void print_platform_warnings(const topology::SystemSpec& spec);

}  // namespace partsim::cli
