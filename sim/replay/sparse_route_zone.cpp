#include "sim/replay/sparse_route_zone.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>

#include "sim/common/error.hpp"

namespace partsim::replay {

namespace routing = simgrid::kernel::routing;
namespace sg4 = simgrid::s4u;

sg4::NetZone* SparseRouteZone::create(const std::string& name) { return (new SparseRouteZone(name))->get_iface(); }

std::uint64_t SparseRouteZone::key(const routing::NetPoint* src, const routing::NetPoint* dst) {
  return (static_cast<std::uint64_t>(src->id()) << 32) | static_cast<std::uint64_t>(dst->id());
}

namespace {

// The latency (s) of one link of a route, in the direction the route takes it.
double latency_of(const sg4::LinkInRoute& l) {
  switch (l.get_direction()) {
    case sg4::LinkInRoute::Direction::UP:
      return static_cast<const sg4::SplitDuplexLink*>(l.get_link())->get_link_up()->get_latency();
    case sg4::LinkInRoute::Direction::DOWN:
      return static_cast<const sg4::SplitDuplexLink*>(l.get_link())->get_link_down()->get_latency();
    case sg4::LinkInRoute::Direction::NONE:
      break;
  }
  return l.get_link()->get_latency();
}

}  // namespace

void SparseRouteZone::add_route(routing::NetPoint* src, routing::NetPoint* dst, routing::NetPoint* gw_src,
                                routing::NetPoint* gw_dst, const std::vector<sg4::LinkInRoute>& link_list,
                                bool symmetrical) {
  const std::string pair = src->get_name() + " -> " + dst->get_name();
  if (symmetrical || gw_src != nullptr || gw_dst != nullptr)
    throw Error("replay: route " + pair + ": the sparse route zone takes one direction at a time, without gateways");
  StoredRoute route;
  route.links = get_link_list_impl(link_list, false);
  for (const auto& l : link_list) route.latency += latency_of(l);
  if (!routes_.emplace(key(src, dst), std::move(route)).second)
    throw Error("replay: route " + pair + " added twice");
}

void SparseRouteZone::get_local_route(const routing::NetPoint* src, const routing::NetPoint* dst,
                                      routing::Route* into, double* latency) {
  const auto it = routes_.find(key(src, dst));
  if (it == routes_.end())
    throw Error("replay: no route " + src->get_name() + " -> " + dst->get_name() +
                " (the platform routes only the pairs the program's transfers use)");
  into->link_list_.insert(into->link_list_.end(), it->second.links.begin(), it->second.links.end());
  if (latency != nullptr) *latency += it->second.latency;
}

}  // namespace partsim::replay
