#include "sim/cli/command_line.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <system_error>
#include <unistd.h>

#include "sim/common/error.hpp"
#include "topology/system_parser.hpp"
#include "topology/system_writer.hpp"

namespace partsim::cli {

int run_main(std::string_view program, const std::function<int(int, char**)>& body, int argc, char** argv) {
  try {
    return body(argc, argv);
  } catch (const ExitRequest& request) {
    return request.code;
  } catch (const partsim::Error& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << program << ": internal error: " << e.what() << "\n";
    return 1;
  }
}

void parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    throw ExitRequest{0};
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    throw ExitRequest{0};
  } catch (const CLI::ParseError& e) {
    std::cerr << app.get_name() << ": error: " << e.what() << " (see --help)\n";
    throw ExitRequest{2};
  }
}

void write_file_atomically(const std::string& path, const std::string& content) {
  write_file_atomically(path, [&content](std::ostream& out) { out << content; });
}

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path == "-") {
    write(std::cout);
    std::cout.flush();
    return;
  }
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path temp = target.parent_path() / ("." + target.filename().string() + ".tmp" + std::to_string(::getpid()));
  const auto remove_temp = [&temp] {
    std::error_code ignored;
    fs::remove(temp, ignored);
  };
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path + ": cannot write file (does its directory exist?)");
    try {
      write(out);
    } catch (...) {
      out.close();
      remove_temp();
      throw;
    }
    out.close();
    if (!out) {
      remove_temp();
      throw InputError(path + ": write failed");
    }
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    remove_temp();
    throw InputError(path + ": cannot write file: " + ec.message());
  }
}

void add_platform_options(CLI::App& app, PlatformOptions& options) {
  app.add_option("--config", options.config_file, "Platform YAML file (see configs/README.md)")
      ->check(CLI::ExistingFile);
  app.add_option("--set", options.overrides,
                 "Override a platform key, e.g. --set system.torus.bandwidth[0]=120GB/s (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--dump-config", options.dump_config_file,
                 "Write the fully resolved platform as YAML to this file ('-' for stdout)");
}

topology::SystemSpec load_platform(const PlatformOptions& options) {
  if (options.config_file.empty()) throw InputError("--config FILE is required (platform YAML, see configs/)");
  topology::SystemSpec spec = topology::load_system(options.config_file, options.overrides);
  if (!options.dump_config_file.empty()) write_file_atomically(options.dump_config_file, topology::system_to_yaml(spec));
  return spec;
}

}  // namespace partsim::cli
