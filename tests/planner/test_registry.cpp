// The strategy registry and check_plan (a loaded plan against its platform and workload).

#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include "sim/planners/accpar/accpar_planner.hpp"
#include "sim/planners/accpar/plan_fields.hpp"
#include "sim/common/error.hpp"
#include "sim/plan/plan_io.hpp"
#include "sim/planners/builtin_strategies.hpp"
#include "topology/system_parser.hpp"
#include "workloads/zoo.hpp"

using namespace partsim;

namespace {

const topology::SystemSpec& spec() {
  static const auto s = topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/tpu_v3_128.yaml");
  return s;
}
const workloads::Graph& lenet() {
  static const auto g = workloads::build_zoo("lenet", 64);
  return g;
}
plan::Plan make(const std::string& strategy, std::vector<std::string> options = {}) {
  return planner::builtin_strategies().make_plan(strategy, {spec(), lenet(), "lenet", plan::Mode::training, options});
}
std::string check_error(const plan::Plan& p) {
  try {
    planner::check_plan(p, spec(), lenet(), "plan.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Registry, ListsTheAccParFamily) {
  const auto& r = planner::builtin_strategies();
  EXPECT_EQ(r.names().substr(0, 22), "dp, owt, hypar, accpar");
  // The name column is as wide as the longest name (mcm_greedy): "accpar" then spaces, then its line.
  const std::string table = r.list_table();
  const std::size_t at = table.find("\naccpar ");
  ASSERT_NE(at, std::string::npos) << table;
  EXPECT_NE(table.substr(at, table.find('\n', at + 1) - at).find("AccPar"), std::string::npos) << table;
}

TEST(Registry, UnknownNameListsTheValidOnes) {
  try {
    planner::builtin_strategies().find("acpar");
    FAIL() << "no throw";
  } catch (const UnknownNameError& e) {
    EXPECT_NE(std::string(e.what()).find("acpar"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("dp, owt, hypar, accpar"), std::string::npos);
  }
}

TEST(Registry, DuplicateAndEmptyAreErrors) {
  planner::StrategyRegistry r;
  planner::StrategyInfo x;
  x.name = "x";
  x.description = "one";
  x.plan = [](const planner::PlanInputs&) { return plan::Plan{}; };
  r.add(x);
  EXPECT_THROW(r.add(x), Error);
  planner::StrategyInfo y = x;
  y.name = "y";
  y.plan = {};
  EXPECT_THROW(r.add(y), Error);
  planner::StrategyInfo z = x;
  z.name = "z";
  z.options = {{"k", planner::OptionType::choice, "c", "a bad default", {"a", "b"}}};
  EXPECT_THROW(r.add(z), Error);  // a default outside the declared values is a programming error
}

// The papers' notation views are registered by their families (accpar, dsm, deepa), in that order.
TEST(Registry, FamiliesRegisterTheirNotationViews) {
  std::vector<std::string> names;
  for (const auto& view : planner::builtin_strategies().notations()) names.push_back(view.name);
  EXPECT_EQ(names, (std::vector<std::string>{"accpar", "dsm", "deepa"}));
  planner::StrategyRegistry r;
  const workloads::NotationView view{"v", [](const workloads::Layer&) -> nlohmann::json { return {}; }};
  r.add_notation(view);
  EXPECT_THROW(r.add_notation(view), Error);       // the same name twice
  EXPECT_THROW(r.add_notation({"w", {}}), Error);  // no function
}

TEST(Registry, OptionsAreCheckedByTheStrategy) {
  EXPECT_THROW(make("accpar", {"depth=3"}), InputError);
  EXPECT_THROW(make("accpar", {"levels"}), InputError);
  EXPECT_THROW(make("accpar", {"levels=-1"}), InputError);
  EXPECT_THROW(make("accpar", {"levels=8"}), InputError);  // 128 devices: 7 levels
  EXPECT_THROW(make("accpar", {"ratio=group"}), InputError);
  EXPECT_THROW(make("dp", {"ratio=layer"}), InputError);  // only accpar has a ratio to choose
  using Options = std::map<std::string, std::string>;
  EXPECT_EQ(make("accpar", {"levels=3"}).options,
            (Options{{"bandwidth", "cut"}, {"compute", "peak"}, {"levels", "3"}, {"ratio", "level"}}));
  EXPECT_EQ(make("accpar", {"ratio=layer"}).options,
            (Options{{"bandwidth", "cut"}, {"compute", "peak"}, {"levels", "all"}, {"ratio", "layer"}}));
  EXPECT_EQ(make("hypar", {"levels=2", "bandwidth=device", "compute=device"}).options,
            (Options{{"bandwidth", "device"}, {"compute", "device"}, {"levels", "2"}}));
  EXPECT_THROW(make("dp", {"compute=roofline"}), InputError);
}

TEST(Registry, MessagesNameTheAllowedKeysAndValues) {
  const auto& r = planner::builtin_strategies();
  auto error = [&](const std::string& s, const std::vector<std::string>& kv) {
    try {
      r.resolve_options(s, kv);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  EXPECT_EQ(error("accpar", {"depth=3"}), "strategy accpar: unknown option 'depth' (allowed: levels, ratio, bandwidth, compute)");
  EXPECT_EQ(error("accpar", {"ratio=group"}),
            "strategy accpar: option ratio='group' is not allowed (allowed: level | layer)");
  EXPECT_EQ(error("dsm", {"opt=hybrid,warp"}),
            "strategy dsm: option opt='hybrid,warp' is not allowed (allowed: comma-separated hybrid,memreuse,dysm,tpipe, "
            "or all, or none)");
  EXPECT_EQ(error("dp", {"levels=x"}), "strategy dp: option levels='x' is not allowed (allowed: a whole number >= 0 or all)");
  // Words come back in declaration order; every word is "all".
  EXPECT_EQ(r.resolve_options("dsm", {"opt=tpipe,hybrid"}).text("opt"), "hybrid,tpipe");
  EXPECT_EQ(r.resolve_options("dsm", {"opt=tpipe,hybrid,dysm,memreuse"}).text("opt"), "all");
  // --list-strategies prints each option with its type, default and meaning.
  EXPECT_NE(r.list_table().find("--option ratio=<level | layer> (default level)"), std::string::npos);
}

TEST(Registry, DeclaredRangesAreCheckedAndListed) {
  planner::StrategyRegistry r;
  planner::StrategyInfo info;
  info.name = "toy";
  info.description = "ranges only";
  info.options = {{"count", planner::OptionType::integer, "2", "a count", {}, {1, 10}},
                  {"rate", planner::OptionType::number, "0.5", "a rate", {}, {0, 1, true}},
                  {"any", planner::OptionType::number, "3", "default range", {}}};
  info.plan = [](const planner::PlanInputs&) { return plan::Plan{}; };
  r.add(info);
  const auto error = [&](const std::string& kv) {
    try {
      r.resolve_options("toy", {kv});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  // Both ends of a closed whole-number range are allowed, one past them is not.
  EXPECT_EQ(error("count=1"), "<no error>");
  EXPECT_EQ(error("count=10"), "<no error>");
  EXPECT_EQ(error("count=0"), "strategy toy: option count='0' is not allowed (allowed: a whole number in 1..10)");
  EXPECT_EQ(error("count=11"), "strategy toy: option count='11' is not allowed (allowed: a whole number in 1..10)");
  // (0, 1]: 0 is out, 1 and 1e-9 are in.
  EXPECT_EQ(error("rate=0"), "strategy toy: option rate='0' is not allowed (allowed: a number in (0, 1])");
  EXPECT_EQ(error("rate=1"), "<no error>");
  EXPECT_EQ(error("rate=1e-9"), "<no error>");
  EXPECT_EQ(error("any=-0.5"), "strategy toy: option any='-0.5' is not allowed (allowed: a number >= 0)");
  EXPECT_NE(r.list_table().find("--option count=<a whole number in 1..10> (default 2)"), std::string::npos);
  // The shipped strategies declare theirs: MARS populations start at 1.
  EXPECT_NE(planner::builtin_strategies().list_table().find("population=<a whole number in 1..100000>"), std::string::npos);
}

TEST(MakePlan, HeaderAndLayers) {
  const auto p = make("accpar");
  EXPECT_EQ(p.schema, plan::kSchemaVersion);
  EXPECT_EQ(p.strategy, "accpar");
  EXPECT_EQ(p.config.name, "tpu_v3_128");
  EXPECT_EQ(p.config.hash, topology::content_hash(spec()));
  EXPECT_EQ(p.workload.name, "lenet");
  EXPECT_EQ(p.workload.batch, 64);
  ASSERT_EQ(p.layers.size(), lenet().size());
  double sum = 0;
  for (size_t i = 0; i < p.layers.size(); ++i) {
    EXPECT_EQ(p.layers[i].name, lenet().layer(i).name);
    EXPECT_EQ((*p.layers[i].family)["levels"].size(), 7u);  // 128 = 2^7
    EXPECT_EQ(p.layers[i].sharding.splits.size(), 7u);
    EXPECT_NEAR(p.layers[i].predicted.total_s, p.layers[i].predicted.compute_s + p.layers[i].predicted.comm_s,
                1e-12 + 1e-9 * p.layers[i].predicted.total_s);
    sum += p.layers[i].predicted.total_s;
  }
  EXPECT_NEAR(p.predicted_iteration_s, sum, 1e-9 * sum);
}

TEST(CheckPlan, AcceptsFreshAndReloadedPlans) {
  for (const char* s : {"dp", "owt", "hypar", "accpar"}) {
    const auto p = make(s);
    EXPECT_EQ(check_error(p), "") << s;
    EXPECT_EQ(check_error(plan::plan_from_json(plan::plan_to_json(p), "plan.json")), "") << s;
  }
}

TEST(CheckPlan, PlatformMismatch) {
  auto p = make("dp");
  p.config.name = "tpu_v2v3_256";
  EXPECT_NE(check_error(p).find("made for platform 'tpu_v2v3_256'"), std::string::npos);
  p = make("dp");
  p.config.hash = "0000000000000000";
  EXPECT_NE(check_error(p).find("different version of platform"), std::string::npos);
}

TEST(CheckPlan, WorkloadMismatch) {
  auto p = make("dp");
  p.workload.batch = 32;
  EXPECT_NE(check_error(p).find("batch 32"), std::string::npos);
  p = make("dp");
  p.workload.name = "alexnet";
  EXPECT_NE(check_error(p).find("workload 'alexnet'"), std::string::npos);
  p = make("dp");
  const std::string last = p.layers.back().name;
  p.layers.pop_back();
  EXPECT_NE(check_error(p).find("layer '" + last + "' of workload 'lenet' is missing"), std::string::npos);
  p = make("dp");
  p.layers.push_back(p.layers.back());
  p.layers.back().name = "extra";
  EXPECT_NE(check_error(p).find("'extra' is not in workload"), std::string::npos);
  p = make("dp");
  std::swap(p.layers[1], p.layers[2]);
  EXPECT_NE(check_error(p).find("/layers/1: expected layer"), std::string::npos);
}

TEST(CheckPlan, AccParLevels) {
  auto p = make("owt");
  (*p.layers[1].family)["levels"].erase(6);
  EXPECT_NE(check_error(p).find("/layers/1/family/levels: has 6 levels but the platform's device hierarchy has 7"),
            std::string::npos)
      << check_error(p);
  p = make("accpar");
  (*p.layers[1].family)["levels"][0]["ratio"] = 0.0;
  EXPECT_NE(check_error(p).find("/layers/1/family/levels/0/ratio: must be strictly between 0 and 1"), std::string::npos);
  p = make("accpar");
  (*p.layers[1].family)["levels"][0]["kind"] = "x";
  EXPECT_NE(check_error(p).find("/layers/1/family/levels/0/kind: unknown key (allowed: type, ratio)"), std::string::npos);
  // A Type-III level is outside HyPar's space.
  p = make("hypar");
  for (size_t i = 0; i < p.layers.size(); ++i)
    if (lenet().layer(i).kind == workloads::LayerKind::fc) (*p.layers[i].family)["levels"][0]["type"] = "III";
  EXPECT_NE(check_error(p).find("is not in strategy hypar's space"), std::string::npos) << check_error(p);
  // The sharding must say what the levels say (the lowering reads the sharding).
  p = make("dp");
  p.layers[2].sharding.splits[0].dim = plan::ShardDim::out_channels;
  EXPECT_NE(check_error(p).find("/layers/2/sharding: does not match the layer's AccPar levels"), std::string::npos);
  p = make("accpar");
  p.strategy = "magic";
  EXPECT_NE(check_error(p).find("unknown strategy 'magic'"), std::string::npos);
}

TEST(CheckPlan, ShardingsOptionsAndSeed) {
  auto p = make("dp");
  p.layers[3].sharding.devices = {0, 1, 1};
  EXPECT_NE(check_error(p).find("/layers/3/sharding: device 1 is listed twice"), std::string::npos) << check_error(p);
  p = make("dp");
  p.layers[3].sharding.devices = {};
  p.layers[3].sharding.splits.pop_back();
  EXPECT_NE(check_error(p).find("/layers/3/sharding: the splits leave 2 devices on one box"), std::string::npos);
  p = make("dp");
  p.options["ratio"] = "layer";
  EXPECT_NE(check_error(p).find("/options: strategy dp: unknown option 'ratio'"), std::string::npos);
  p = make("dp");
  p.seed = 3;
  EXPECT_NE(check_error(p).find("/seed: strategy dp is deterministic"), std::string::npos);
}

TEST(MakePlan, LevelsReplayThroughTheTimeModel) {
  // A plan's family levels fed back into the AccPar time model give the plan's own prediction.
  const auto p = make("accpar");
  const auto problem = accpar::make_problem(lenet(), accpar::Mode::training, 2);
  const auto h = accpar::build_hierarchy(spec());
  const auto r = accpar::evaluate_typing(problem, h, accpar::typing_from_plan(p, h, "plan.json"));
  EXPECT_NEAR(r.iteration_s, p.predicted_iteration_s, 1e-9 * p.predicted_iteration_s);
  auto broken = p;
  (*broken.layers[2].family)["levels"].erase(0);
  EXPECT_THROW(accpar::typing_from_plan(broken, h, "plan.json"), InputError);
}
