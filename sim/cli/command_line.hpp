#pragma once
// What every partsim program shares: the one place exceptions are caught, command-line parsing
// with exit code 2 for bad input, platform options (--config, --set, --dump-config) and output
// files that are never left half-written.

#include <CLI/CLI.hpp>

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "topology/system_spec.hpp"

namespace partsim::cli {

/// Thrown by parse() to end the program early with `code` after CLI11 printed help or an error.
struct ExitRequest {
  int code;
};

/// Runs `body(argc, argv)` and turns every escaping error into one line on stderr,
/// "PROGRAM: error: WHAT", and its exit code: InputError (bad YAML, plan, workload, option) -> 2,
/// any other partsim::Error or std::exception -> 1.
int run_main(std::string_view program, const std::function<int(int, char**)>& body, int argc, char** argv);

/// Parses the command line. --help prints the help and ends the program with 0; a bad option or
/// value prints one line naming it and ends the program with 2.
void parse(CLI::App& app, int argc, char** argv);

/// Writes `content` to a temporary file beside `path`, then renames it into place, so readers never
/// see a half-written file and an error leaves nothing behind. Throws InputError if it cannot.
void write_file_atomically(const std::string& path, const std::string& content);
/// The same for output too large to hold as one string: `write` streams it into the temporary file
/// ("-" streams to stdout). If `write` throws, the temporary file is removed and the error goes on.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

/// The platform given on the command line.
struct PlatformOptions {
  std::string config_file;               // --config
  std::vector<std::string> overrides;    // --set key.path=value, in order
  std::string dump_config_file;          // --dump-config FILE ("-" for stdout)
};

/// Adds --config, --set (repeatable) and --dump-config to `app`.
void add_platform_options(CLI::App& app, PlatformOptions& options);

/// Loads and validates the platform (with its overrides) and, if asked, writes the fully resolved
/// platform to --dump-config.
topology::SystemSpec load_platform(const PlatformOptions& options);

}  // namespace partsim::cli
