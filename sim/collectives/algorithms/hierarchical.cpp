// Hierarchical collectives over locality domains (n nodes of q members; NCCL's and Horovod's
// hierarchical all-reduce, ASTRA-sim's multi-dimensional collectives): all-reduce = ring
// reduce-scatter inside every node at once (each member ends with S / q), ring all-reduce of that
// shard between the same member of every node (one ring per member index: on a rail-optimised cluster
// each ring runs on its own rail), ring all-gather inside every node. Reduce-scatter is the first two
// phases (the second a reduce-scatter), all-gather the reverse. Needs domains of equal size.

#include "sim/collectives/algorithms/algorithms.hpp"
#include "sim/common/error.hpp"

namespace partsim::collectives::algorithms {
namespace {

/// Ring k of the second phase: member k of every domain.
std::vector<std::vector<int>> across_domains(const std::vector<std::vector<int>>& domains) {
  std::vector<std::vector<int>> rings(domains.front().size());
  for (const auto& d : domains)
    for (std::size_t k = 0; k < d.size(); ++k) rings[k].push_back(d[k]);
  return rings;
}

Schedule hierarchical_schedule(const BuildInput& in) {
  const auto domains = in.who.domains.empty() ? locality_domains(in.who.devices, in.graph) : in.who.domains;
  Schedule s;
  if (domains.empty()) return s;
  for (const auto& d : domains)
    if (d.size() != domains.front().size())
      throw InputError("algorithm 'hierarchical' needs nodes of equal size; the participants fall into " +
                       std::to_string(domains.size()) + " nodes of " + std::to_string(domains.front().size()) +
                       " and " + std::to_string(d.size()) + " members: use ring");
  const double q = static_cast<double>(domains.front().size());
  const auto rails = across_domains(domains);
  const std::string& c = in.collective;
  int step = 0;
  if (c == "all_gather") {
    step += ring_pass(s, rails, in.bytes / q, false, step);
    ring_pass(s, domains, in.bytes, false, step);
    return s;
  }
  step += ring_pass(s, domains, in.bytes, false, step);  // reduce-scatter inside every node
  step += ring_pass(s, rails, in.bytes / q, false, step);  // across nodes: reduce-scatter ...
  if (c == "all_reduce") {
    step += ring_pass(s, rails, in.bytes / q, false, step);  // ... and all-gather: an all-reduce
    ring_pass(s, domains, in.bytes, false, step);            // all-gather inside every node
  }
  return s;
}

double hierarchical_formula(const std::string& collective, double bytes, const Fabric& f) {
  const int q = f.domain_size, n = f.domains;
  const AxisRing intra{q, f.intra.alpha, f.intra.bandwidth, false};
  const AxisRing inter{n, f.inter.alpha, f.inter.bandwidth, false};
  const double inside = ring_reduce_scatter_time(intra, bytes);
  const double across = ring_reduce_scatter_time(inter, bytes / q);
  if (collective == "all_reduce") return 2 * inside + 2 * across;
  return inside + across;  // reduce-scatter, and all-gather the same steps backwards
}

}  // namespace

Algorithm hierarchical() {
  return {"hierarchical",
          reducing_collectives(),
          "rings inside each node, then between the same member of every node, then inside again",
          "all_reduce: 2(q-1)(a_in + S/(q B_in)) + 2(n-1)(a_out + S/(q n B_out)); reduce_scatter, all_gather: half",
          hierarchical_schedule, hierarchical_formula};
}

}  // namespace partsim::collectives::algorithms
