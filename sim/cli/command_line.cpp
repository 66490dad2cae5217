#include "sim/cli/command_line.hpp"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <system_error>
#include <unistd.h>

#include "sim/common/error.hpp"
#include "topology/system_parser.hpp"
#include "topology/system_writer.hpp"

namespace partsim::cli {

namespace {
std::string running_program = "partsim";  // set by run_main
}  // namespace

int run_main(std::string_view program, const std::function<int(int, char**)>& body, int argc, char** argv) {
  running_program = std::string(program);
  try {
    return body(argc, argv);
  } catch (const ExitRequest& request) {
    return request.code;
  } catch (const partsim::Error& e) {
    print_error(program, e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << program << ": internal error: " << e.what() << "\n";
    return 1;
  }
}

void print_error(std::string_view program, std::string_view what) {
  std::cerr << program << ": error: " << what << std::endl;
}

void print_warning(std::string_view what) { std::cerr << running_program << ": warning: " << what << "\n"; }

std::string version_string() {
  std::string version = PARTSIM_VERSION;
  const std::string describe = PARTSIM_GIT_DESCRIBE;  // set at configure time (sim/cli/CMakeLists.txt)
  if (!describe.empty()) version += " (git " + describe + ")";
  return version;
}

void add_quiet_flag(CLI::App& app, bool& quiet) {
  app.add_flag("-q,--quiet", quiet, "No progress or summary lines on stdout/stderr (warnings and errors are still printed)");
}

void parse(CLI::App& app, int argc, char** argv) {
  if (!app.get_option_no_throw("--version"))
    app.set_version_flag("--version", app.get_name() + " " + version_string(), "Print the partsim version and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForVersion& version) {
    std::cout << version.what() << "\n";
    throw ExitRequest{0};
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

namespace {

namespace fs = std::filesystem;

std::string system_message(int error) { return std::error_code(error, std::generic_category()).message(); }

// The file a path names once symbolic links are followed (also a dangling link's target, which
// writing creates), so an output written "onto" a link writes what it points to.
fs::path follow_links(const std::string& path) {
  fs::path p(path);
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (fs::symlink_status(p, ec).type() != fs::file_type::symlink) return p;
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) throw InputError(path + ": cannot read the symbolic link: " + ec.message());
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  throw InputError(path + ": cannot write: too many levels of symbolic links");
}

std::string identity(const fs::path& target) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(fs::absolute(target, ec), ec);
  return ec ? target.lexically_normal().string() : canonical.string();
}

}  // namespace

OutputSet::~OutputSet() { discard(); }

OutputSet::Output OutputSet::prepare(const std::string& path, const std::vector<Output>& others) const {
  if (path.empty()) throw InputError("an output file name is empty");
  Output out{path, "", true, "", ""};
  if (path == "-") return out;
  const fs::path target = follow_links(path);
  out.target = target.string();
  std::error_code ec;
  const fs::file_status status = fs::status(target, ec);
  if (fs::is_directory(status)) throw InputError(path + ": cannot write: it is a directory (give a file name)");
  out.direct = fs::exists(status) && !fs::is_regular_file(status);  // device, FIFO, socket
  if (!out.direct) {
    const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    if (!fs::is_directory(dir, ec))
      throw InputError(path + ": cannot write: directory '" + dir.string() + "' does not exist");
    out.temp = (dir / ("." + target.filename().string() + ".partsim-tmp" + std::to_string(::getpid()) + "-" +
                       std::to_string(staged_.size())))
                   .string();
    const std::string id = identity(target);
    for (const Output& other : others)
      if (!other.direct && identity(other.target) == id)
        throw InputError(path + ": the same file is given for two outputs of this run ('" + other.path + "' and '" +
                         path + "')");
  }
  return out;
}

void OutputSet::check(const std::vector<std::string>& paths) const {
  std::vector<Output> seen = staged_;
  for (const auto& path : paths) seen.push_back(prepare(path, seen));
}

void OutputSet::add(const std::string& path, std::string content) {
  Output out = prepare(path, staged_);
  if (out.direct) {
    out.content = std::move(content);
    staged_.push_back(std::move(out));
    return;
  }
  add(path, [&content](std::ostream& stream) { stream << content; });
}

void OutputSet::add(const std::string& path, const std::function<void(std::ostream&)>& write) {
  Output out = prepare(path, staged_);
  try {
    if (out.direct) {
      std::ostringstream buffer;
      write(buffer);
      out.content = std::move(buffer).str();
    } else {
      std::ofstream file(out.temp, std::ios::binary | std::ios::trunc);
      if (!file) throw InputError(path + ": cannot write file: " + system_message(errno));
      staged_.push_back(out);  // from here on discard() removes the temporary file
      write(file);
      file.close();
      if (!file) throw InputError(path + ": write failed (disk full?)");
      return;
    }
  } catch (...) {
    discard();
    throw;
  }
  staged_.push_back(std::move(out));
}

void OutputSet::commit() {
  // Open the devices and FIFOs first (the step most likely to fail: permissions), then put the
  // regular files in place, then write what was opened and standard output.
  std::vector<std::unique_ptr<std::ofstream>> specials;
  for (const Output& out : staged_) {
    if (!out.direct || out.target.empty()) continue;
    specials.push_back(std::make_unique<std::ofstream>(out.target, std::ios::binary));
    if (!*specials.back()) {
      const int error = errno;
      discard();
      throw InputError(out.path + ": cannot write: " + system_message(error));
    }
  }
  for (Output& out : staged_) {
    if (out.direct) continue;
    std::error_code ec;
    fs::rename(out.temp, out.target, ec);
    if (ec) {
      discard();
      throw InputError(out.path + ": cannot write file: " + ec.message());
    }
    out.temp.clear();
  }
  size_t special = 0;
  for (const Output& out : staged_) {
    if (!out.direct) continue;
    std::ostream& stream = out.target.empty() ? std::cout : *specials[special++];
    stream << out.content;
    stream.flush();
    if (!stream) throw InputError(out.path + ": write failed");
  }
  staged_.clear();
}

void OutputSet::discard() noexcept {
  for (const Output& out : staged_) {
    if (out.temp.empty()) continue;
    std::error_code ignored;
    fs::remove(out.temp, ignored);
  }
  staged_.clear();
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

topology::SystemSpec load_platform(const PlatformOptions& options, OutputSet& outputs) {
  if (options.config_file.empty()) throw InputError("--config FILE is required (platform YAML, see configs/)");
  topology::SystemSpec spec = topology::load_system(options.config_file, options.overrides);
  if (!options.dump_config_file.empty()) outputs.add(options.dump_config_file, topology::system_to_yaml(spec));
  return spec;
}

void print_platform_warnings(const topology::SystemSpec& spec) {
  for (const std::string& w : spec.warnings) print_warning(w);
}

}  // namespace partsim::cli
