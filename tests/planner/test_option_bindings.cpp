// planner::OptionBindings: an option declared and read in one statement. specs() are the
// declarations in the order bound; read() sets each bound field from resolved values and leaves
// the rest at their start values.

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "sim/planners/option_bindings.hpp"

using namespace partsim;
using planner::OptionType;

namespace {

enum class Colour { red, green };

struct Inner {
  bool fit = true;
  long long tries = 10;
};

struct Base {
  double rate = 0.1;
};

struct Options : Base {
  int count = 1;
  int levels = 0;
  bool on = false;
  Colour colour = Colour::red;
  Colour parsed = Colour::red;
  std::string file;
  Inner inner;
  int twice = 0;     // set by a custom setter
  int unbound = 42;  // no binding: read() leaves it
};

Colour parse_colour(const std::string& text) { return text == "green" ? Colour::green : Colour::red; }

planner::OptionBindings<Options> bindings() {
  planner::OptionBindings<Inner> inner;
  inner.flag("fit", &Inner::fit, "true", "fits").integer("tries", &Inner::tries, "10", "tries", {1, 100});
  planner::OptionBindings<Options> b;
  b.integer("count", &Options::count, "1", "how many", {1, 9})
      .integer("levels", &Options::levels, "all", "levels or all", {0, 64}, {{"all", -1}})
      .number("rate", &Options::rate, "0.1", "a rate", {0, 1, true})  // a field of the base
      .flag("on", &Options::on, "false", "switch")
      .choice("colour", &Options::colour, {{"red", Colour::red}, {"green", Colour::green}}, "red", "a colour")
      .choice("parsed", &Options::parsed, {"red", "green"}, parse_colour, "red", "a parsed colour")
      .text("file", &Options::file, "", "a file")
      .nest(&Options::inner, inner)
      .add({"twice", OptionType::integer, "0", "doubled", {}, {}},
           [](Options& o, const planner::OptionValue& v) { o.twice = static_cast<int>(2 * v.integer()); });
  return b;
}

std::map<std::string, std::string> defaults() {
  std::map<std::string, std::string> values;
  for (const auto& s : bindings().specs()) values[s.key] = s.default_value;
  return values;
}

TEST(OptionBindings, SpecsInBoundOrderWithTypesDefaultsAndRanges) {
  const auto specs = bindings().specs();
  ASSERT_EQ(specs.size(), 10u);
  const char* keys[] = {"count", "levels", "rate", "on", "colour", "parsed", "file", "fit", "tries", "twice"};
  const OptionType types[] = {OptionType::integer, OptionType::integer, OptionType::number, OptionType::boolean,
                              OptionType::choice,  OptionType::choice,  OptionType::text,   OptionType::boolean,
                              OptionType::integer, OptionType::integer};
  for (std::size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(specs[i].key, keys[i]);
    EXPECT_EQ(specs[i].type, types[i]) << keys[i];
  }
  EXPECT_EQ(specs[0].default_value, "1");
  EXPECT_EQ(specs[0].description, "how many");
  EXPECT_EQ(specs[0].range.min, 1);
  EXPECT_EQ(specs[0].range.max, 9);
  EXPECT_TRUE(specs[0].choices.empty());
  EXPECT_EQ(specs[1].default_value, "all");
  EXPECT_EQ(specs[1].choices, std::vector<std::string>{"all"});
  EXPECT_EQ(specs[1].range.max, 64);
  EXPECT_TRUE(specs[2].range.min_open);
  EXPECT_FALSE(specs[2].range.max_open);
  EXPECT_EQ(specs[2].range.max, 1);
  EXPECT_EQ(specs[4].choices, (std::vector<std::string>{"red", "green"}));
  EXPECT_EQ(specs[5].choices, (std::vector<std::string>{"red", "green"}));
  EXPECT_EQ(specs[6].default_value, "");
  EXPECT_EQ(specs[8].range.max, 100);  // nested, with its own range
}

TEST(OptionBindings, ReadSetsEveryBoundFieldFromGivenValues) {
  auto values = defaults();
  values["count"] = "3";
  values["levels"] = "5";
  values["rate"] = "0.5";
  values["on"] = "true";
  values["colour"] = "green";
  values["parsed"] = "green";
  values["file"] = "policy.pt";
  values["fit"] = "false";
  values["tries"] = "7";
  values["twice"] = "4";
  const Options o = bindings().read(planner::StrategyOptions(values));
  EXPECT_EQ(o.count, 3);
  EXPECT_EQ(o.levels, 5);
  EXPECT_DOUBLE_EQ(o.rate, 0.5);
  EXPECT_TRUE(o.on);
  EXPECT_EQ(o.colour, Colour::green);
  EXPECT_EQ(o.parsed, Colour::green);
  EXPECT_EQ(o.file, "policy.pt");
  EXPECT_FALSE(o.inner.fit);
  EXPECT_EQ(o.inner.tries, 7);
  EXPECT_EQ(o.twice, 8);  // the custom setter
  EXPECT_EQ(o.unbound, 42);
}

TEST(OptionBindings, ReadAppliesDefaultsAndWordsAndKeepsUnboundStartValues) {
  Options start;
  start.unbound = 7;
  start.count = 5;
  const Options o = bindings().read(planner::StrategyOptions(defaults()), start);
  EXPECT_EQ(o.count, 1);    // the default "1", over the start value
  EXPECT_EQ(o.levels, -1);  // "all"
  EXPECT_DOUBLE_EQ(o.rate, 0.1);
  EXPECT_FALSE(o.on);
  EXPECT_EQ(o.colour, Colour::red);
  EXPECT_EQ(o.file, "");
  EXPECT_TRUE(o.inner.fit);
  EXPECT_EQ(o.inner.tries, 10);
  EXPECT_EQ(o.twice, 0);
  EXPECT_EQ(o.unbound, 7);  // not bound: the start value
}

TEST(OptionBindings, SpecsOfEmptyBindingsAndReadOfNothing) {
  const planner::OptionBindings<Options> none;
  EXPECT_TRUE(none.specs().empty());
  Options start;
  start.count = 9;
  EXPECT_EQ(none.read(planner::StrategyOptions{}, start).count, 9);
}

}  // namespace
