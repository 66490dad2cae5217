// Lowering of DeepSpatialMatrix plans (seed 003) on a tiny platform written here.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "sim/common/error.hpp"
#include "sim/lowering/lowering.hpp"
#include "sim/planner/strategies.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/platform_binding.hpp"
#include "topology/system_parser.hpp"
#include "workloads/net_builder.hpp"
#include "workloads/workload_file.hpp"

using namespace partsim;

namespace {

std::string tiny_yaml(const std::string& c2c_latency = "0ns", const std::string& link_latency = "0ns") {
  return "system:\n"
         "  name: tiny_dsm\n"
         "  precision: fp16\n"
         "  device_types:\n"
         "    chip:\n"
         "      kind: template\n"
         "      pe: {simd_lanes: 1, register_file: 64B}\n"
         "      pe_array: {rows: 4, cols: 4}\n"
         "      core: {pe_arrays: 1, sfus: 1, sfu_lanes: 4, scratchpad: 1KiB, scratchpad_bandwidth: 32GB/s, "
         "frequency: 1GHz}\n"
         "      chip: {cores: 2, interconnect: ring, core_to_core_bandwidth: 8GB/s, on_chip_latency: " +
         c2c_latency +
         ", memory: 1GB, memory_bandwidth: 10GB/s, memory_efficiency: 0.8, memory_latency: 0ns}\n"
         "  devices:\n"
         "    - {type: chip, count: 4}\n"
         "  torus:\n"
         "    dims: [2, 2]\n"
         "    bandwidth: [4GB/s, 1GB/s]\n"
         "    latency: [" + link_latency + ", " + link_latency + "]\n"
         "    bidirectional: false\n";
}

topology::SystemSpec load_platform(const std::string& yaml) {
  const auto path = std::filesystem::temp_directory_path() / ("partsim_lowering_dsm_" + std::to_string(::getpid()) + ".yaml");
  {
    std::ofstream out(path);
    out << yaml;
  }
  topology::SystemSpec spec = topology::load_system(path.string());
  std::filesystem::remove(path);
  return spec;
}

[[maybe_unused]] workloads::Graph two_fc(std::int64_t batch) {
  workloads::NetBuilder b("two_fc", "");
  std::string x = b.input("x", {16, 1, 1});
  x = b.fc("fc1", x, 16, false);
  b.fc("fc2", x, 8, false);
  return b.build(batch);
}

}  // namespace

TEST(LoweringDsm, Probe) {
  const auto spec = load_platform(tiny_yaml());
  workloads::NetBuilder b("conv_fc", "");
  std::string x = b.input("x", {std::atoi(std::getenv("H1_C")), std::atoi(std::getenv("H1_H")), std::atoi(std::getenv("H1_H"))});
  x = b.conv("conv", x, std::atoi(std::getenv("H1_K")), 3, 1, 1, false);
  x = b.flatten("flat", x);
  b.fc("fc", x, std::atoi(std::getenv("H1_F")), false);
  const auto g = b.build(std::atoi(std::getenv("H1_B")));
  const plan::Plan p = planner::builtin_strategies().make_plan("dsm", {spec, g, "two_fc", plan::Mode::training, {std::getenv("H1_OPT")}});
  const topology::TopologyGraph topo(spec);
  const program::Program prog = lowering::lower_dsm({p, spec, g, topo});
  program::ClosedFormEvaluator closed(program::uncontended_transfer_time(topo));
  const auto ev = closed.evaluate(prog);
  for (const auto& l : p.layers)
    for (const auto& pp : l.passes)
      std::printf("%s %s %s core{%lld %lld %lld %lld %lld} dysm %d reuse %d pred %.6g\n", l.name.c_str(),
                  plan::to_string(pp.pass).c_str(), pp.chip_split.c_str(), pp.core_split.in, pp.core_split.out,
                  pp.core_split.ij, pp.core_split.kij, pp.core_split.mb, pp.dysm_factor, pp.memory_reuse,
                  pp.predicted.total_s);
  for (const auto& s : program::layer_pass_spans(prog, ev))
    std::printf("%s %s span %.6g\n", prog.layer_names()[static_cast<size_t>(s.layer)].c_str(),
                plan::to_string(s.pass).c_str(), s.span());
  for (const auto& t : prog.tasks())
    std::printf("  %s %s %s %g %g\n", prog.layer_names()[static_cast<size_t>(t.layer)].c_str(), plan::to_string(t.pass).c_str(), t.label.c_str(), t.seconds, t.bytes);
}

// Figures for the report (not a check): vgg16 b512 dsm on torus_8pf, per layer and pass, closed form
// vs the planner, and the Program's size at both granularities. Run with
// --gtest_also_run_disabled_tests --gtest_filter='*Vgg16*'.
TEST(LoweringDsm, DISABLED_Vgg16Figures) {
  const topology::SystemSpec spec = topology::load_system(PARTSIM_SOURCE_DIR "/configs/torus_8pf.yaml");
  const workloads::Graph g = workloads::load_workload("vgg16", 512);
  const plan::Plan p = planner::builtin_strategies().make_plan("dsm", {spec, g, "vgg16", plan::Mode::training, {}});
  for (auto gran : {topology::Granularity::chip, topology::Granularity::core}) {
    const topology::TopologyGraph topo(spec, gran);
    const program::Program prog = lowering::lower_dsm({p, spec, g, topo});
    std::map<program::TaskKind, long long> kinds;
    for (const auto& t : prog.tasks()) ++kinds[t.kind];
    std::printf("%s granularity: %zu tasks (compute %lld, transfer %lld, delay %lld)\n",
                topology::to_string(gran).c_str(), prog.size(), kinds[program::TaskKind::compute],
                kinds[program::TaskKind::transfer], kinds[program::TaskKind::delay]);
    program::ClosedFormEvaluator closed(program::uncontended_transfer_time(topo));
    const auto ev = closed.evaluate(prog);
    double pred_total = 0;
    for (const auto& s : program::layer_pass_spans(prog, ev)) {
      const auto& lp = p.layers[static_cast<size_t>(s.layer)];
      double pred = 0;
      for (const auto& pp : lp.passes)
        if (pp.pass == s.pass) pred = pp.predicted.total_s;
      pred_total += pred;
      std::printf("  %-8s %-3s predicted %9.2f us closed %9.2f us  %+6.2f %%\n", lp.name.c_str(),
                  plan::to_string(s.pass).c_str(), pred * 1e6, s.span() * 1e6, (s.span() / pred - 1) * 100);
    }
    if (std::getenv("H1_DUMP"))
      for (size_t i = 0; i < prog.size(); ++i) {
        const auto& t = prog.tasks()[i];
        if (prog.layer_names()[static_cast<size_t>(t.layer)] != std::getenv("H1_DUMP") || t.pass != (std::getenv("H1_PASS") ? plan::Pass::bwd : plan::Pass::upd)) continue;
        std::printf("    %zu %s dev %d/%d->%d  s=%g b=%g  [%g, %g]\n", i, t.label.c_str(), t.at.device, t.src.device, t.dst.device, t.seconds, t.bytes,
                    ev.tasks[i].start * 1e6, ev.tasks[i].finish * 1e6);
      }
    std::printf("  total predicted %.2f us (plan %.2f) closed form %.2f us %+6.2f %%\n", pred_total * 1e6,
                p.predicted_iteration_s * 1e6, ev.makespan_s * 1e6, (ev.makespan_s / p.predicted_iteration_s - 1) * 100);
  }
}
