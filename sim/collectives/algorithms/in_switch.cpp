// Reduction in the switch (NVLink SHARP on NVSwitch gen 3, NCCL's NVLS algorithm): every member sends
// its data into the switch once, the switch reduces it and multicasts the result. A member's port
// then carries, per direction: reduce-scatter S up and S/p down, all-gather S/p up and S down, and
// all-reduce (both at once, pipelined) S (p+1)/p each way.
// The replay has no reducing switch, so the schedule moves the same bytes over every member's port
// with transfers between the members through the switch: one step in which every member sends every
// other x bytes, with (p - 1) x = the busier direction's bytes above. Each port then carries exactly
// what NVLS puts on it in its busier direction: a + S/B (reduce-scatter, all-gather) and
// a + S (p+1) / (p B) (all-reduce). Needs every member on one switch that declares in_switch_reduction.

#include <algorithm>
#include <set>

#include "sim/collectives/algorithms/algorithms.hpp"
#include "sim/common/error.hpp"

namespace partsim::collectives::algorithms {
namespace {

/// True when one switch with in_switch_reduction links every member directly.
bool on_reducing_switch(const std::vector<int>& members, const topology::TopologyGraph& graph) {
  const auto& spec = graph.spec();
  if (spec.is_torus()) return false;
  for (const auto& node : spec.graph().nodes) {
    if (node.kind != topology::NodeKind::switch_node || !node.in_switch_reduction) continue;
    std::set<int> linked;
    for (const auto& link : spec.graph().links) {
      if (link.a == node.name) linked.insert(spec.device_index(link.b));
      if (link.b == node.name) linked.insert(spec.device_index(link.a));
    }
    if (std::all_of(members.begin(), members.end(), [&](int d) { return linked.contains(d); })) return true;
  }
  return false;
}

Schedule in_switch_schedule(const BuildInput& in) {
  const auto& m = in.who.devices;
  Schedule s;
  if (m.size() < 2) return s;
  if (!on_reducing_switch(m, in.graph))
    throw InputError("algorithm 'in_switch' needs every participant on one switch with in_switch_reduction: true "
                     "(platform '" + in.graph.spec().name + "'): use hierarchical or ring");
  const double p = static_cast<double>(m.size());
  const double busier = in.collective == "all_reduce" ? in.bytes * (p + 1) / p : in.bytes;
  for (int a : m)
    for (int b : m)
      if (a != b) s.add(a, b, busier / (p - 1), 0);
  return s;
}

double in_switch_formula(const std::string& collective, double bytes, const Fabric& f) {
  if (f.p < 2) return 0;
  const double p = f.p;
  return f.link.alpha + (collective == "all_reduce" ? bytes * (p + 1) / p : bytes) / f.link.bandwidth;
}

}  // namespace

Algorithm in_switch() {
  return {"in_switch",
          reducing_collectives(),
          "the switch reduces and multicasts (NVLink SHARP): each port carries the data about once",
          "reduce_scatter, all_gather: a + S/B; all_reduce: a + S(p+1)/(pB)",
          in_switch_schedule, in_switch_formula};
}

}  // namespace partsim::collectives::algorithms
