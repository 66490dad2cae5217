#pragma once
// A SimGrid netzone that keeps only the routes it is given.
//
// SimGrid 3.32's full zone (sg4::create_full_zone) allocates an n x n table of route pointers at
// its first route, whether or not a pair ever communicates: 134 MB for the 4,096 chips of a 64 x 64
// torus, a fifth of that replay's peak. A replay routes only the pairs its program's transfers use
// (a few per device), so this zone keeps those in a hash map: same links, same order, same latency,
// O(routes) memory. Routes are explicit (the topology graph's), as in the full zone. Only
// partsim_replay sees SimGrid; this header is private to it.

#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Link.hpp>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace partsim::replay {

class SparseRouteZone final : public simgrid::kernel::routing::NetZoneImpl {
 public:
  /// A new zone (the root zone when it is the first): SimGrid owns it, as its own create_*_zone.
  static simgrid::s4u::NetZone* create(const std::string& name);

  /// Stores the route src -> dst. The replay adds each direction itself, and this zone has no
  /// sub-zones: throws Error on a symmetrical route, a gateway, or a second route for a pair.
  void add_route(simgrid::kernel::routing::NetPoint* src, simgrid::kernel::routing::NetPoint* dst,
                 simgrid::kernel::routing::NetPoint* gw_src, simgrid::kernel::routing::NetPoint* gw_dst,
                 const std::vector<simgrid::s4u::LinkInRoute>& link_list, bool symmetrical) override;

 private:
  explicit SparseRouteZone(const std::string& name) : NetZoneImpl(name) {}

  /// Appends the stored route's links to `into` and adds its latency (s) to `*latency`. A pair
  /// without a route is a bug of the replay (it routes every pair its transfers use): throws Error.
  void get_local_route(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override;

  struct StoredRoute {
    std::vector<simgrid::kernel::resource::StandardLinkImpl*> links;
    double latency = 0;  // s, the sum of the links' latencies
  };
  static std::uint64_t key(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst);
  std::unordered_map<std::uint64_t, StoredRoute> routes_;
};

}  // namespace partsim::replay
