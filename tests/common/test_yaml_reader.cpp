#include <gtest/gtest.h>

#include "sim/common/yaml_reader.hpp"

using namespace partsim;
using partsim::units::Dimension;

namespace {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ParseError& e) {
    return e.what();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}
}  // namespace

TEST(YamlReader, LocatesBadValuesByFileLineColumnAndPath) {
  const std::string text =
      "system:\n"
      "  torus:\n"
      "    bandwidth: [80GB/s, 0GB/s]\n";
  auto root = yaml::load_string(text, "x.yaml");
  auto msg = error_of([&] {
    yaml::MapReader top(root);
    yaml::MapReader system(top.required("system"));
    yaml::MapReader torus(system.required("torus"));
    auto bws = torus.required("bandwidth").elements();
    for (auto& b : bws) b.as_quantity(Dimension::bandwidth);
  });
  EXPECT_EQ(msg, "x.yaml:3:25: system.torus.bandwidth[1]: must be > 0 (got 0GB/s)");
}

TEST(YamlReader, UnknownKeysListTheAllowedOnes) {
  auto root = yaml::load_string("a: 1\nbandwith: 2\n", "y.yaml");
  auto msg = error_of([&] {
    yaml::MapReader top(root);
    top.required("a");
    top.optional("bandwidth");
    top.finish();
  });
  EXPECT_EQ(msg, "y.yaml:2:1: bandwith: unknown key (allowed: a, bandwidth)");
}

TEST(YamlReader, MissingKeyAndSyntaxError) {
  auto root = yaml::load_string("a:\n  b: 1\n", "z.yaml");
  EXPECT_EQ(error_of([&] {
              yaml::MapReader top(root);
              yaml::MapReader a(top.required("a"));
              a.required("c");
            }),
            "z.yaml:2:3: a.c: missing required key");
  EXPECT_NE(error_of([] { yaml::load_string("a: [1, 2\n", "s.yaml"); }).find("s.yaml:"), std::string::npos);
}

TEST(YamlReader, OverridesReplaceValuesAndAreNamedInErrors) {
  auto root = yaml::load_string("system:\n  torus:\n    bandwidth: [80GB/s, 80GB/s]\n", "o.yaml",
                                {"system.torus.bandwidth[1]=40GB/s", "system.torus.latency=[1us, 2us]"});
  EXPECT_EQ(root.node()["system"]["torus"]["bandwidth"][1].as<std::string>(), "40GB/s");
  EXPECT_EQ(root.node()["system"]["torus"]["latency"].size(), 2u);

  auto bad = yaml::load_string("t:\n  bw: 1GB/s\n", "o.yaml", {"t.bw=-3GB/s"});
  EXPECT_EQ(error_of([&] {
              yaml::MapReader top(bad);
              yaml::MapReader t(top.required("t"));
              t.required("bw").as_quantity(Dimension::bandwidth);
            }),
            "--set t.bw=-3GB/s: t.bw: must be > 0 (got -3GB/s)");

  EXPECT_NE(error_of([] { yaml::load_string("a: [1]\n", "o.yaml", {"a[3]=2"}); }).find("past the end"),
            std::string::npos);
  EXPECT_NE(error_of([] { yaml::load_string("a: 1\n", "o.yaml", {"a"}); }).find("expected key.path=value"),
            std::string::npos);
  // New nested keys are created.
  auto created = yaml::load_string("a: 1\n", "o.yaml", {"b.c.d=5"});
  EXPECT_EQ(created.node()["b"]["c"]["d"].as<int>(), 5);
}

TEST(YamlReader, DuplicateKeysAreErrorsInEveryDocument) {
  EXPECT_EQ(error_of([] { yaml::load_string("a:\n  b: 1\n  c: 2\n  b: 3\n", "d.yaml"); }),
            "d.yaml:4:3: a.b: duplicate key (first at line 2)");
  EXPECT_EQ(error_of([] { yaml::load_string("l:\n  - {x: 1, x: 2}\n", "d.yaml"); }),
            "d.yaml:2:12: l[0].x: duplicate key (first at line 2)");
}
