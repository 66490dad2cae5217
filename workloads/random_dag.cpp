#include "workloads/random_dag.hpp"

#include <initializer_list>
#include <limits>
#include <random>

#include "sim/common/error.hpp"
#include "workloads/net_builder.hpp"
#include "workloads/workload_spec.hpp"

namespace partsim::workloads {
namespace {

/// Draws without std distributions (their output differs between standard libraries).
class Draw {
 public:
  explicit Draw(std::uint64_t seed) : engine_(seed) {}
  /// Uniform in [lo, hi] (modulo bias is below 2^-40 for our ranges).
  int between(int lo, int hi) { return lo + static_cast<int>(engine_() % static_cast<std::uint64_t>(hi - lo + 1)); }
  bool chance(int percent) { return between(1, 100) <= percent; }
  std::int64_t pick(std::initializer_list<std::int64_t> values) {
    return values.begin()[between(0, static_cast<int>(values.size()) - 1)];
  }

 private:
  std::mt19937_64 engine_;
};

std::string cnn(NetBuilder& b, Draw& r) {
  const std::int64_t R = r.pick({32, 64, 128, 224});
  std::int64_t width = r.pick({16, 32, 64});
  std::string x = b.conv_bn_relu("stem", b.input("image", {3, R, R}), width, 3, R >= 128 ? 2 : 1, 1);
  const int stages = r.between(2, 4);
  for (int s = 0; s < stages; ++s) {
    const int blocks = r.between(1, 4);
    for (int k = 0; k < blocks; ++k) {
      const std::string p = "s" + std::to_string(s) + "b" + std::to_string(k) + "_";
      const std::int64_t stride = (s > 0 && k == 0) ? 2 : 1;
      const std::int64_t out = stride == 2 ? width * 2 : width;
      const int style = r.between(0, 2);
      if (style == 0) {
        x = b.conv_bn_relu(p + "conv", x, out, 3, stride, 1);
      } else if (style == 1) {
        std::string y = b.conv_bn_relu(p + "conv1", x, out, 3, stride, 1);
        y = b.batch_norm(p + "conv2_bn", b.conv(p + "conv2", y, out, 3, 1, 1, false));
        std::string shortcut = x;
        if (stride != 1 || out != width)
          shortcut = b.batch_norm(p + "down_bn", b.conv(p + "down", x, out, 1, stride, 0, false));
        x = b.activation(p + "relu", b.add(p + "add", {y, shortcut}));
      } else {
        const int branches = r.between(2, 3);
        std::vector<std::string> outs;
        std::int64_t left = out;
        for (int br = 0; br < branches; ++br) {
          const std::int64_t c = br + 1 == branches ? left : out / branches;
          left -= c;
          const std::string q = p + "br" + std::to_string(br);
          const std::int64_t kernel = br == 0 ? 1 : 3;
          std::string y = b.conv_bn_relu(q, x, c, kernel, stride, kernel / 2);
          if (br == 2) y = b.conv_bn_relu(q + "_2", y, c, 3, 1, 1);
          outs.push_back(y);
        }
        x = b.concat(p + "concat", outs);
      }
      width = out;
    }
  }
  x = b.flatten("flatten", b.global_pool("avgpool", x, PoolOp::avg));
  return b.softmax("prob", b.fc("classifier", x, r.pick({10, 100, 1000})));
}

std::string mlp(NetBuilder& b, Draw& r) {
  const std::int64_t width = r.pick({256, 512, 1024, 2048});
  std::string x = b.fc("proj", b.input("features", {r.pick({128, 784, 1024}), 1, 1}), width);
  const int blocks = r.between(3, 12);
  for (int k = 0; k < blocks; ++k) {
    const std::string p = "block" + std::to_string(k) + "_";
    std::string y = b.activation(p + "act", b.fc(p + "fc", x, width), r.chance(50) ? ActivationFn::relu : ActivationFn::gelu);
    if (r.chance(50)) y = b.add(p + "res", {y, x});
    if (r.chance(30)) y = b.layer_norm(p + "norm", y);
    x = y;
  }
  return b.softmax("prob", b.fc("classifier", x, r.pick({10, 100, 1000})));
}

std::string rnn(NetBuilder& b, Draw& r) {
  const std::int64_t T = r.pick({16, 32, 64, 128});
  const std::int64_t H = r.pick({256, 512, 1024});
  const std::int64_t vocab = r.pick({8000, 16000, 32000});
  std::string x = b.embedding("embed", b.input("tokens", {1, T, 1}), vocab, H);
  const int layers = r.between(1, 4);
  for (int l = 0; l < layers; ++l) {
    const std::string n = "lstm" + std::to_string(l);
    std::string y = b.lstm(n, x, H, r.chance(30));
    if (r.chance(40)) y = b.fc(n + "_proj", y, H);
    x = y;
  }
  return b.softmax("prob", b.fc("classifier", x, vocab));
}

}  // namespace

Graph random_dag(const RandomDagOptions& options, const std::string& graph_name) {
  if (options.min_nodes < 1 || options.max_nodes < options.min_nodes)
    throw InputError("random_dag: need 1 <= min_nodes <= max_nodes, got " + std::to_string(options.min_nodes) + ".." +
                     std::to_string(options.max_nodes));
  Draw r(options.seed);
  const std::string name = graph_name.empty() ? "random_" + std::to_string(options.seed) : graph_name;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const int family = r.between(0, 5);  // cnn half the time, as in the paper's mostly-vision set
    const char* family_name = family <= 2 ? "cnn" : family <= 4 ? "mlp" : "rnn";
    NetBuilder b(name, std::string("random ") + family_name + " graph, seed " + std::to_string(options.seed));
    if (family <= 2)
      cnn(b, r);
    else if (family <= 4)
      mlp(b, r);
    else
      rnn(b, r);
    Graph g = b.build(options.batch);
    const auto n = static_cast<int>(g.size());
    if (n >= options.min_nodes && n <= options.max_nodes) {
      g.set_description(std::string("random ") + family_name + " graph, seed " + std::to_string(options.seed));
      return g;
    }
  }
  throw InputError("random_dag: no graph of " + std::to_string(options.min_nodes) + ".." +
                   std::to_string(options.max_nodes) + " nodes in 1000 draws (seed " + std::to_string(options.seed) + ")");
}

namespace {
constexpr std::string_view kSpecModel = "random_dag";
constexpr const char* kSpecKeys = "seed, min_nodes, max_nodes";
}  // namespace

std::string random_dag_spec(const RandomDagOptions& options) {
  return std::string(kSpecModel) + ":seed=" + std::to_string(options.seed) +
         ",min_nodes=" + std::to_string(options.min_nodes) + ",max_nodes=" + std::to_string(options.max_nodes);
}

bool is_random_dag_spec(std::string_view text) {
  return text.find(':') != std::string_view::npos && spec_model(text) == kSpecModel;
}

Graph build_random_dag_spec(std::string_view text, std::int64_t batch) {
  RandomDagOptions o;
  for (const auto& item : parse_spec_values(text, kSpecKeys)) {
    // (not a structured binding: clang 14, which builds the fuzzers, cannot capture one in a lambda)
    const std::string& key = item.first;
    const std::int64_t value = item.second;
    const auto in_range = [&](std::int64_t lo, std::int64_t hi) {
      if (value < lo || value > hi)
        throw InputError("--workload " + std::string(text) + ": " + key + " must be in [" + std::to_string(lo) + ", " +
                         std::to_string(hi) + "] (got " + std::to_string(value) + ")");
      return value;
    };
    if (key == "seed")
      o.seed = static_cast<std::uint64_t>(in_range(0, std::numeric_limits<std::int64_t>::max()));
    else if (key == "min_nodes")
      o.min_nodes = static_cast<int>(in_range(1, 100000));
    else if (key == "max_nodes")
      o.max_nodes = static_cast<int>(in_range(1, 100000));
    else
      throw InputError("--workload " + std::string(text) + ": unknown key '" + key + "' (allowed: " + kSpecKeys + ")");
  }
  o.batch = batch;
  return random_dag(o, std::string(text));  // workload_spec.hpp: a plan records the name, a replay rebuilds the graph
}

}  // namespace partsim::workloads
