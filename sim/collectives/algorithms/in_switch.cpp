// Reduction in the switch (NVLink SHARP on NVSwitch gen 3, NCCL's NVLS algorithm): every member sends
// its data into the switch once, the switch reduces it and multicasts the result. A member's port
// then carries, per direction: reduce-scatter S up and S/p down, all-gather S/p up and S down, and
// all-reduce (both at once, pipelined) S (p+1)/p each way.
// The replay has no reducing switch, so the schedule moves the same bytes over every member's port
// with transfers between the members through the switch: one step in which every member sends every
// other x bytes, with (p - 1) x = the busier direction's bytes above. Each port then carries exactly
// what NVLS puts on it in its busier direction: a + S/B (reduce-scatter, all-gather) and
// a + S (p+1) / (p B) (all-reduce). The switch's reduction runs at system.collectives.
// in_switch_efficiency of the port bandwidth (NCCL's nvlsEfficiency, tuning.cc: 0.85 on Hopper): the
// transfers carry bytes / efficiency. Needs every member on one switch that declares in_switch_reduction.

#include "sim/collectives/algorithms/algorithms.hpp"
#include "sim/common/error.hpp"

namespace partsim::collectives::algorithms {
namespace {

std::string in_switch_cannot_run(const Participants& who, const topology::TopologyGraph& graph) {
  if (who.devices.size() < 2 || on_reducing_switch(who.devices, graph)) return "";
  return "algorithm 'in_switch' needs every participant on one switch with in_switch_reduction: true (platform '" +
         graph.spec().name + "'): use hierarchical or ring";
}

Schedule in_switch_schedule(const BuildInput& in) {
  const auto& m = in.who.devices;
  Schedule s;
  if (m.size() < 2) return s;
  if (auto why = in_switch_cannot_run(in.who, in.graph); !why.empty()) throw InputError(why);
  const double p = static_cast<double>(m.size());
  const double busier = (in.collective == "all_reduce" ? in.bytes * (p + 1) / p : in.bytes) /
                        in.settings.in_switch_efficiency;
  for (int a : m)
    for (int b : m)
      if (a != b) s.add(a, b, busier / (p - 1), 0);
  return s;
}

double in_switch_formula(const std::string& collective, double bytes, const Fabric& f) {
  if (f.p < 2) return 0;
  const double p = f.p;
  return f.link.alpha +
         (collective == "all_reduce" ? bytes * (p + 1) / p : bytes) / (f.link.bandwidth * f.in_switch_efficiency);
}

}  // namespace

Algorithm in_switch() {
  return {"in_switch",
          reducing_collectives(),
          "the switch reduces and multicasts (NVLink SHARP): each port carries the data about once",
          "reduce_scatter, all_gather: a + S/(eB); all_reduce: a + S(p+1)/(peB), e = in_switch_efficiency",
          in_switch_schedule, in_switch_formula, in_switch_cannot_run, false};
}

}  // namespace partsim::collectives::algorithms
