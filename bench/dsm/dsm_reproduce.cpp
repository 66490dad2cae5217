// dsm_reproduce: the figures of seed 003 §V from partsim's DeepSpatialMatrix model, as Markdown
// (scripts/reproduce_dsm.sh writes docs/reproductions/dsm.md with it). Also a per-layer table for
// one run: dsm_reproduce layers CONFIG WORKLOAD BATCH OPTS.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "sim/dsm/search.hpp"
#include "topology/system_parser.hpp"
#include "workloads/zoo.hpp"

using namespace partsim;

namespace {

dsm::DsmResult run(const dsm::DsmSystem& sys, const std::string& workload, long long batch,
                   const std::string& opts, plan::Mode mode, dsm::DsmNetwork* net_out = nullptr) {
  const workloads::Graph g = workloads::build_zoo(workload, batch);
  dsm::DsmNetwork net = dsm::build_network(g);
  dsm::DsmOptions o = dsm::parse_dsm_options({opts});
  o.mode = mode;
  dsm::DsmResult r = dsm::search_network(net, sys, o);
  if (net_out) *net_out = std::move(net);
  return r;
}

std::string core_split_text(const plan::Split5& f) {
  std::string s;
  auto add = [&](const char* n, long long v) {
    if (v > 1) s += std::string(s.empty() ? "" : " ") + n + "=" + std::to_string(v);
  };
  add("in", f.in);
  add("out", f.out);
  add("ij", f.ij);
  add("kij", f.kij);
  add("mb", f.mb);
  return s.empty() ? "-" : s;
}

void print_layers(const dsm::DsmSystem& sys, const std::string& w, long long batch, const std::string& opts,
                  plan::Mode mode) {
  dsm::DsmNetwork net;
  const dsm::DsmResult r = run(sys, w, batch, opts, mode, &net);
  std::printf("| layer | ChipD | CoreD (FWD) | DySM | reuse | FWD ms | BWD ms | UPD ms | util |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& lc : r.layers) {
    double t[3] = {0, 0, 0};
    for (const auto& pc : lc.passes) t[static_cast<int>(pc.pass)] = pc.total_s * 1e3;
    const double util = lc.total_s > 0 ? lc.useful_macs / (sys.peak_macs_per_s() * lc.total_s) : 0;
    std::printf("| %s | %s | %s | %d | %s | %.4f | %.4f | %.4f | %.2f |\n", lc.name.c_str(),
                dsm::to_string(lc.split), lc.passes.empty() ? "-" : core_split_text(lc.passes[0].config.core).c_str(),
                lc.dysm_factor, lc.reuse_in ? "Y" : "N", t[0], t[1], t[2], util);
  }
  std::printf("\niteration %.4f ms, utilization %.3f\n", r.iteration_s * 1e3, r.utilization);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() >= 5 && args[0] == "layers") {
      const dsm::DsmSystem sys = dsm::make_dsm_system(topology::load_system(args[1]));
      const plan::Mode mode = args.size() > 5 && args[5] == "inference" ? plan::Mode::inference : plan::Mode::training;
      print_layers(mode == plan::Mode::inference ? dsm::single_chip(sys) : sys, args[2], std::stoll(args[3]), args[4], mode);
      return 0;
    }
    std::fprintf(stderr, "usage: dsm_reproduce layers CONFIG WORKLOAD BATCH OPTS [inference]\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dsm_reproduce: error: %s\n", e.what());
    return 2;
  }
}
