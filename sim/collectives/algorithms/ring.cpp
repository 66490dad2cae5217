// Ring reduce-scatter / all-gather / all-reduce (Patarasuk & Yuan 2009; NCCL's ring): p - 1 steps per
// phase, each member sending S / p to the next. Over a platform with locality domains (nodes) the
// payload is split over `channels` rings, as NCCL's channels are: channel c enters every node at its
// member c q / channels, so the channels cross between nodes on different members (and so different
// NICs of a rail-optimised cluster), as NCCL's rings do.

#include <algorithm>

#include "sim/collectives/algorithms/algorithms.hpp"

namespace partsim::collectives::algorithms {
namespace {

/// One ring per channel: the domains in order, each rotated to start at the channel's member.
std::vector<std::vector<int>> channel_rings(const BuildInput& in) {
  const int channels = std::max(1, in.settings.channels);
  if (channels == 1) return {in.who.devices};
  const auto domains = in.who.domains.empty() ? locality_domains(in.who.devices, in.graph) : in.who.domains;
  std::vector<std::vector<int>> rings;
  for (int c = 0; c < channels; ++c) {
    std::vector<int> ring;
    for (const auto& domain : domains) {
      const auto q = static_cast<int>(domain.size());
      const int first = q > 0 ? (c * q / channels) % q : 0;
      for (int i = 0; i < q; ++i) ring.push_back(domain[static_cast<std::size_t>((first + i) % q)]);
    }
    rings.push_back(std::move(ring));
  }
  return rings;
}

Schedule ring_schedule(const BuildInput& in, bool bidirectional) {
  Schedule s;
  const auto rings = channel_rings(in);
  const double per_ring = in.bytes / static_cast<double>(rings.size());
  int step = 0;
  if (in.collective != "all_gather") step += ring_pass(s, rings, per_ring, bidirectional, step);
  if (in.collective != "reduce_scatter") ring_pass(s, rings, per_ring, bidirectional, step);
  return s;
}

double ring_formula(const std::string& collective, double bytes, const Fabric& f, bool bidirectional) {
  // Two rings through one port (a switch) carry what one ring does: no gain from the second direction.
  const AxisRing r{f.p, f.link.alpha, f.link.bandwidth, bidirectional && !f.ring_shares_port};
  if (collective == "all_reduce") return ring_all_reduce_time(r, bytes);
  return ring_reduce_scatter_time(r, bytes);  // reduce-scatter and all-gather take the same steps
}

}  // namespace

Algorithm ring() {
  return {"ring",
          reducing_collectives(),
          "uni-directional ring: (p-1) steps of S/p per phase; over nodes split into `channels` rings",
          "reduce_scatter, all_gather: (p-1)(a + S/(pB)); all_reduce: 2(p-1)(a + S/(pB))",
          [](const BuildInput& in) { return ring_schedule(in, false); },
          [](const std::string& c, double bytes, const Fabric& f) { return ring_formula(c, bytes, f, false); },
          nullptr, false};
}

Algorithm ring_bidirectional() {
  return {"ring_bidirectional",
          reducing_collectives(),
          "two rings, + and -, each with half the payload (p > 2)",
          "reduce_scatter, all_gather: (p-1)(a + S/(2pB)); all_reduce: 2(p-1)(a + S/(2pB))",
          [](const BuildInput& in) { return ring_schedule(in, true); },
          [](const std::string& c, double bytes, const Fabric& f) { return ring_formula(c, bytes, f, true); },
          nullptr, false};
}

}  // namespace partsim::collectives::algorithms
