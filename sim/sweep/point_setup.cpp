#include "sim/sweep/point_setup.hpp"

#include <nlohmann/json.hpp>

#include <charconv>

#include "sim/common/error.hpp"

namespace partsim::sweep {

long long parse_batch(const std::string& text) {
  long long batch = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), batch);
  if (ec != std::errc() || ptr != text.data() + text.size() || batch < 1 || batch > 1'000'000'000LL)
    throw InputError("--vary batch=" + text + ": '" + text + "' is not a whole number from 1 to 1000000000");
  return batch;
}

PointInputs point_inputs(const SweepBase& base, const std::vector<SweepAxis>& axes, const SweepPoint& point) {
  PointInputs in{base.workload, base.batch, base.strategy, base.options, base.sets, {}};
  for (size_t a = 0; a < axes.size() && a < point.size(); ++a) {
    const std::string& value = point[a].second;
    const std::string assignment = axes[a].key + "=" + value;
    switch (axes[a].kind) {
      case AxisKind::platform: in.sets.push_back(assignment); continue;  // recorded by simrun from --set
      case AxisKind::batch: in.batch = parse_batch(value); break;
      case AxisKind::workload: in.workload = value; break;
      case AxisKind::strategy: in.strategy = value; break;
      case AxisKind::strategy_option: in.options.push_back(option_name(axes[a].key) + "=" + value); break;
    }
    in.records.push_back(assignment);
  }
  return in;
}

std::vector<Command> point_commands(const SweepBase& base, const PointInputs& in, const std::filesystem::path& bin,
                                    const std::filesystem::path& dir) {
  const std::string log = (dir / "log.txt").string();
  std::vector<std::string> sets;
  for (const auto& s : in.sets) sets.insert(sets.end(), {"--set", s});
  std::vector<Command> commands;
  std::string plan_file = base.fixed_plan;
  if (plan_file.empty()) {
    plan_file = (dir / "plan.json").string();
    std::vector<std::string> argv{(bin / "simplan").string(), "--config", base.config, "--workload", in.workload,
                                  "--batch", std::to_string(in.batch), "--strategy", in.strategy, "-o", plan_file};
    for (const auto& o : in.options) argv.insert(argv.end(), {"--option", o});
    argv.insert(argv.end(), sets.begin(), sets.end());
    argv.insert(argv.end(), base.simplan_args.begin(), base.simplan_args.end());
    commands.push_back({argv, log});
  }
  std::vector<std::string> argv{(bin / "simrun").string(), "--config", base.config, "--plan", plan_file,
                                "--granularity", base.granularity, "--out", (dir / "results.json").string(),
                                "--reproducible"};
  if (!base.fixed_plan.empty()) argv.push_back("--allow-config-change");
  argv.insert(argv.end(), sets.begin(), sets.end());
  for (const auto& r : in.records) argv.insert(argv.end(), {"--record", r});
  commands.push_back({argv, log});
  return commands;
}

std::string point_definition(const std::vector<Command>& commands, const std::vector<std::string>& input_hashes) {
  nlohmann::ordered_json j;
  j["schema"] = 1;
  j["version"] = PARTSIM_VERSION;
  j["commands"] = nlohmann::ordered_json::array();
  for (const auto& command : commands) {
    std::vector<std::string> argv = command.argv;
    if (!argv.empty()) argv[0] = std::filesystem::path(argv[0]).filename().string();  // a moved build still matches
    j["commands"].push_back(argv);
  }
  j["input_hashes"] = input_hashes;
  return j.dump(2) + "\n";
}

}  // namespace partsim::sweep
