// kernel_check: the device model's time for each measured kernel of a validation set (the operators
// of one GPT-3 175B layer, docs/data/h100_gpt3_block.yaml, measured by scripts/gpu_microbench.py)
// beside the measurement: calibrated (the platform's efficiency table) and datasheet roofline.
// The validation set is never a table row (the calibration rule, DESIGN.md).
//   kernel_check --config configs/dgx_h100.yaml --measured docs/data/h100_gpt3_block.yaml [--markdown]
// Without --measured it prints the model's times for the same operators (e.g. on dgx_a100.yaml).

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "sim/devices/device_model.hpp"
#include "sim/common/yaml_reader.hpp"
#include "topology/spec_fields.hpp"
#include "topology/system_parser.hpp"

using namespace partsim;

namespace {

int usage() {
  std::printf("usage: kernel_check --config PLATFORM.yaml --measured VALIDATION.yaml [--set key=value ...] [--markdown]\n"
              "  the calibrated device model's time for every measured kernel of the validation set, beside the\n"
              "  measurement and the datasheet roofline (the platform's first device type must be calibrated);\n"
              "  --model-only: the model's times for those kernels on this platform, without the comparison\n");
  return 0;
}

/// The operator class of a name, as the platform file writes it (spec_fields.hpp).
topology::OperatorClass op_of(const std::string& name) {
  const auto& names = topology::ChoiceNames<topology::OperatorClass>::names;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (name == names[i]) return static_cast<topology::OperatorClass>(i);
  throw std::runtime_error("unknown operator class '" + name + "'");
}

}  // namespace

int main(int argc, char** argv) {
  std::string config, measured;
  std::vector<std::string> overrides;  // --set key=value, as simrun's
  bool markdown = false;
  bool model_only = false;  // --model-only: the model's times for the validation set's kernels, no comparison
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) return usage();
    if (!std::strcmp(argv[i], "--config") && i + 1 < argc) config = argv[++i];
    else if (!std::strcmp(argv[i], "--measured") && i + 1 < argc) measured = argv[++i];
    else if (!std::strcmp(argv[i], "--set") && i + 1 < argc) overrides.push_back(argv[++i]);
    else if (!std::strcmp(argv[i], "--markdown")) markdown = true;
    else if (!std::strcmp(argv[i], "--model-only")) model_only = true;
    else {
      std::fprintf(stderr, "kernel_check: unknown argument '%s' (--help)\n", argv[i]);
      return 2;
    }
  }
  if (config.empty() || measured.empty()) {
    std::fprintf(stderr, "kernel_check: give --config and --measured (--help)\n");
    return 2;
  }
  try {
    const topology::SystemSpec spec = topology::load_system(config, overrides);
    const auto* gpu = std::get_if<topology::CalibratedDevice>(&spec.device_type(0).model);
    if (!gpu) throw std::runtime_error(config + ": the first device is not a calibrated device");
    const YAML::Node set = YAML::LoadFile(measured);
    const char* row = markdown ? "| %-20s | %2s | %-3s | %-15s | %9.1f | %9.1f | %+7.1f %% | %4.2f | %9.1f | %+7.1f %% |\n"
                               : "%-20s %2s %-3s %-15s %9.1f %9.1f %+7.1f%% %5.2f %9.1f %+7.1f%%\n";
    if (model_only)
      std::printf(markdown ? "| operator | tp | pass | class | calibrated us | efficiency | roofline us |\n|---|---|---|---|---|---|---|\n"
                           : "%-20s %2s %-3s %-15s %9s %5s %9s\n", "operator", "tp", "pas", "class", "calib_us", "eff", "roof_us");
    else if (markdown)
      std::printf("| operator | tp | pass | class | measured us | calibrated us | error | efficiency | roofline us | error |\n"
                  "|---|---|---|---|---|---|---|---|---|---|\n");
    else
      std::printf("%-20s %2s %-3s %-15s %9s %9s %8s %5s %9s %8s\n", "operator", "tp", "pas", "class", "meas_us", "calib_us",
                  "error", "eff", "roof_us", "error");
    double sum_measured[2] = {0, 0}, sum_calibrated[2] = {0, 0}, sum_roofline[2] = {0, 0};
    for (const auto& op : set["ops"]) {
      devices::Kernel k;
      k.op = op_of(op["op"].as<std::string>());
      k.pass = op["pass"].as<std::string>() == "fwd" ? topology::KernelPass::fwd : topology::KernelPass::bwd;
      k.flops = op["flop"].as<double>();
      k.bytes = op["bytes"].as<double>();
      const double t = op["time_s"].as<double>();
      const devices::KernelTime c = devices::calibrated_time(*gpu, spec.precision, k);
      // The datasheet roofline: the same kernel at peak FLOP/s and peak bandwidth.
      const double roofline = std::max(k.flops / gpu->peak_flops(spec.precision), k.bytes / gpu->memory_bandwidth);
      const int tp8 = op["tp"].as<int>() == 8 ? 1 : 0;
      if (op["name"].as<std::string>() != "rmsnorm_reference") {  // a second normalisation, not in the layer
        sum_measured[tp8] += t;
        sum_calibrated[tp8] += c.seconds;
        sum_roofline[tp8] += roofline;
      }
      if (model_only) {
        std::printf(markdown ? "| %-20s | %2s | %-3s | %-15s | %9.1f | %4.2f | %9.1f |\n" : "%-20s %2s %-3s %-15s %9.1f %5.2f %9.1f\n",
                    op["name"].as<std::string>().c_str(), op["tp"].as<std::string>().c_str(),
                    op["pass"].as<std::string>().c_str(), op["op"].as<std::string>().c_str(), c.seconds * 1e6,
                    c.efficiency, roofline * 1e6);
        continue;
      }
      std::printf(row, op["name"].as<std::string>().c_str(), op["tp"].as<std::string>().c_str(),
                  op["pass"].as<std::string>().c_str(), op["op"].as<std::string>().c_str(), t * 1e6, c.seconds * 1e6,
                  100 * (c.seconds / t - 1), c.efficiency, roofline * 1e6, 100 * (roofline / t - 1));
    }
    for (int tp8 = 0; tp8 < 2; ++tp8)
      if (model_only && sum_calibrated[tp8] > 0)
        std::printf(markdown ? "| **layer, tp %d** | | fwd+bwd | | %.1f | | %.1f |\n" : "layer tp %d fwd+bwd: calibrated %.1f us, roofline %.1f us\n",
                    tp8 ? 8 : 1, sum_calibrated[tp8] * 1e6, sum_roofline[tp8] * 1e6);
      else if (sum_measured[tp8] > 0)
        std::printf(markdown ? "| **layer, tp %d** | | fwd+bwd | | %.1f | %.1f | %+.1f %% | | %.1f | %+.1f %% |\n"
                             : "layer tp %d fwd+bwd: measured %.1f us, calibrated %.1f us (%+.1f %%), roofline %.1f us (%+.1f %%)\n",
                    tp8 ? 8 : 1, sum_measured[tp8] * 1e6, sum_calibrated[tp8] * 1e6,
                    100 * (sum_calibrated[tp8] / sum_measured[tp8] - 1), sum_roofline[tp8] * 1e6,
                    100 * (sum_roofline[tp8] / sum_measured[tp8] - 1));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kernel_check: %s\n", e.what());
    return 2;
  }
  return 0;
}
