// The command-line form of a seeded random graph (workloads/random_dag.hpp): it builds the graph that
// random_dag() builds from the same options, named by the text so that a plan can name it, and its
// errors name the bad item and the allowed keys.
#include <gtest/gtest.h>

#include "sim/common/error.hpp"
#include "tests/support/input_errors.hpp"
#include "workloads/random_dag.hpp"
#include "workloads/workload_file.hpp"

using namespace partsim::workloads;

TEST(RandomDagSpec, BuildsTheSameGraphNamedByTheText) {
  const RandomDagOptions options{1904, 10, 120, 2};
  const std::string spec = random_dag_spec(options);
  EXPECT_EQ(spec, "random_dag:seed=1904,min_nodes=10,max_nodes=120");
  const Graph direct = random_dag(options);
  const Graph loaded = load_workload(spec, 2);
  EXPECT_EQ(direct.name(), "random_1904");
  EXPECT_EQ(loaded.name(), spec);  // what a plan records and a replay reloads
  ASSERT_EQ(loaded.size(), direct.size());
  for (std::size_t v = 0; v < loaded.size(); ++v) {
    EXPECT_EQ(loaded.layer(v).name, direct.layer(v).name) << v;
    EXPECT_EQ(loaded.layer(v).q.params, direct.layer(v).q.params) << v;
  }
  EXPECT_EQ(loaded.batch(), 2);
  EXPECT_DOUBLE_EQ(loaded.totals().flops.total(), direct.totals().flops.total());
  // Keys left out take RandomDagOptions' defaults (min_nodes 10, max_nodes 300).
  EXPECT_EQ(load_workload("random_dag:seed=5", 1).size(), random_dag({5, 10, 300, 1}).size());
}

TEST(RandomDagSpec, BadItemsNameTheKeyAndWhatIsAllowed) {
  auto message = [](const std::string& spec) { return partsim::test::input_error_of([&] { load_workload(spec, 1); }); };
  EXPECT_EQ(message("random_dag:seed=1,depth=3"),
            "--workload random_dag:seed=1,depth=3: unknown key 'depth' (allowed: seed, min_nodes, max_nodes)");
  EXPECT_EQ(message("random_dag:seed=x"), "--workload random_dag:seed=x: seed must be a whole number (got 'x')");
  EXPECT_EQ(message("random_dag:seed"),
            "--workload random_dag:seed: expected key=value, got 'seed' (keys: seed, min_nodes, max_nodes)");
  EXPECT_EQ(message("random_dag:seed=1,seed=2"), "--workload random_dag:seed=1,seed=2: seed is given twice");
  EXPECT_EQ(message("random_dag:seed=-1"), "--workload random_dag:seed=-1: seed must be in [0, 9223372036854775807] (got -1)");
  EXPECT_EQ(message("random_dag:min_nodes=0"),
            "--workload random_dag:min_nodes=0: min_nodes must be in [1, 100000] (got 0)");
  EXPECT_EQ(message("random_dag:min_nodes=50,max_nodes=20"), "random_dag: need 1 <= min_nodes <= max_nodes, got 50..20");
}
