#include "sim/replay/replay.hpp"

#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/common/text.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/replay/simulation_impl.hpp"
#include "sim/replay/sparse_route_zone.hpp"

namespace partsim::replay {

namespace sg4 = simgrid::s4u;

namespace {

bool g_engine_created = false;  // SimGrid allows one Engine (one simulation) per process

}  // namespace

}  // namespace partsim::replay

void sg_config_init(int* argc, char** argv);  // SimGrid's (exported, not in its public headers)

namespace partsim::replay {

namespace {

// SimGrid 3.32's tracer, when it traces the platform (tracing:yes with tracing/platform,
// /categorized, /uncategorized, /actor or /smpi), registers every split-duplex link (our links with
// two directions) twice and stops with "container ... already present in all_containers_". Refused
// here, before anything is built, with what to use instead.
void refuse_link_tracing() {
  if (!simgrid::config::get_value<bool>("tracing")) return;
  for (const char* key : {"tracing/platform", "tracing/categorized", "tracing/uncategorized", "tracing/actor",
                          "tracing/smpi"})
    if (simgrid::config::get_value<bool>(key))
      throw InputError(std::string("--simgrid-cfg tracing:yes with ") + key +
                       ":yes: not supported (SimGrid 3.32 registers two-way links twice and aborts); use --timeline, "
                       "or tracing:yes alone");
}

// SimGrid 3.32 checks the values of its model and optimisation keys only when it builds the models,
// and then aborts the process (surf_interface.cpp find_model_description: xbt_die). The values that
// build and replay partsim's platforms, checked here instead. Left out: network/model ns-3 (needs
// ns-3's own platform set-up; a replay with it does not finish) and Constant (it has no links and
// refuses partsim's).
void check_model_choice(const std::string& setting, const std::string& key, const std::string& value) {
  static const std::map<std::string, std::vector<std::string>> kChoices = {
      {"network/model", {"LV08", "CM02", "SMPI", "IB"}},
      {"cpu/model", {"Cas01"}},
      {"host/model", {"default", "compound", "ptask_L07"}},
      {"disk/model", {"S19"}},
      {"network/optim", {"Lazy", "Full"}},
      {"cpu/optim", {"Lazy", "TI", "Full"}},
  };
  const auto it = kChoices.find(key);
  if (it == kChoices.end() || std::find(it->second.begin(), it->second.end(), value) != it->second.end()) return;
  throw InputError("--simgrid-cfg '" + setting + "': bad value for SimGrid key '" + key + "' (allowed: " + join(it->second) + ")");
}

// Settings that change how SimGrid solves the sharing, never the rates it gives: with only these,
// a lone flow still gets bytes / its slowest link, so lone transfers may still be timed.
bool changes_only_the_solver(const std::string& setting) {
  const std::string key = setting.substr(0, setting.find(':'));
  return key == "network/optim" || key == "cpu/optim";
}

}  // namespace

void check_simgrid_settings(const std::vector<std::string>& settings) {
  static bool keys_declared = false;
  if (settings.empty()) return;
  if (!keys_declared && !g_engine_created) {
    // Declare SimGrid's keys without an Engine; the Engine built later finds them declared (and
    // would say so at warning level: that notice and the "configuration change" lines are muted).
    xbt_log_control_set("surf_config.thres:error xbt_cfg.thres:warning");
    std::string program = "partsim";
    std::vector<char*> argv = {program.data(), nullptr};
    int argc = 1;
    sg_config_init(&argc, argv.data());
  }
  keys_declared = true;
  const std::string form = "allowed form KEY:VALUE, e.g. network/optim:Full; the keys: --help-cfg of any SimGrid program";
  for (const auto& setting : settings) {
    const auto colon = setting.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == setting.size())
      throw InputError("--simgrid-cfg '" + setting + "': not KEY:VALUE (" + form + ")");
    const std::string key = setting.substr(0, colon);
    try {
      simgrid::config::is_default(key.c_str());
    } catch (const std::out_of_range&) {
      throw InputError("--simgrid-cfg '" + setting + "': SimGrid has no configuration key '" + key + "' (" + form + ")");
    }
    check_model_choice(setting, key, setting.substr(colon + 1));
    try {
      // Setting it now is harmless: the Simulation applies partsim's settings and then these again.
      simgrid::config::set_parse(setting);
    } catch (const std::exception& e) {
      throw InputError("--simgrid-cfg '" + setting + "': bad value for SimGrid key '" + key + "': " + e.what());
    }
  }
  refuse_link_tracing();
}

LoneTransfers choose_lone_transfers(const std::string& option, const std::vector<std::string>& simgrid_config) {
  if (option == "simgrid") return LoneTransfers::simgrid;
  const bool rates_as_partsims =
      std::all_of(simgrid_config.begin(), simgrid_config.end(), changes_only_the_solver);
  if (option == "timed") {
    if (!rates_as_partsims)
      throw InputError("--lone-transfers timed: not with a --simgrid-cfg setting other than network/optim or "
                       "cpu/optim (it may change what a lone flow gets, so every transfer runs in SimGrid's network "
                       "model); drop one of the two");
    return LoneTransfers::timed;
  }
  if (!option.empty())
    throw InputError("--lone-transfers '" + option + "': allowed values timed, simgrid");
  return rates_as_partsims ? LoneTransfers::timed : LoneTransfers::simgrid;
}

std::string simgrid_link_name(const topology::TopologyGraph& graph, int link_id) {
  const auto& l = graph.link(link_id);
  if (l.reverse < 0) return l.physical;
  return l.physical + (link_id < l.reverse ? "_UP" : "_DOWN");
}

// A pair of nodes to route and the links of its route.
struct Simulation::RoutedPair {
  int src = 0, dst = 0;
  topology::Route route;
};

Simulation::Simulation(const topology::TopologyGraph& graph, const std::vector<std::pair<int, int>>& pairs,
                       const std::vector<std::string>& simgrid_config, LinkLatency latency)
    : impl_(std::make_unique<Impl>(graph)) {
  std::vector<RoutedPair> routed;
  for (const auto& [src, dst] : pairs)
    if (src != dst) routed.push_back({src, dst, graph.route(src, dst)});
  build(routed, simgrid_config, latency);
}

Simulation::Simulation(const topology::TopologyGraph& graph, const program::TransferRoutes& routes,
                       const std::vector<std::string>& simgrid_config, LinkLatency latency)
    : impl_(std::make_unique<Impl>(graph)) {
  std::vector<RoutedPair> routed;
  for (std::size_t p = 0; p < routes.pair_count(); ++p)
    if (const auto [src, dst] = routes.pair_nodes(p); src != dst) routed.push_back({src, dst, routes.pair_route(p)});
  // In node order, as communicating_pairs lists them: the same platform, link for link, either way.
  std::sort(routed.begin(), routed.end(),
            [](const RoutedPair& a, const RoutedPair& b) { return std::pair(a.src, a.dst) < std::pair(b.src, b.dst); });
  build(routed, simgrid_config, latency);
}

void Simulation::build(const std::vector<RoutedPair>& routed, const std::vector<std::string>& simgrid_config,
                       LinkLatency latency) {
  const topology::TopologyGraph& graph = impl_->graph;
  if (g_engine_created) throw Error("replay: only one SimGrid simulation can run per process");
  check_simgrid_settings(simgrid_config);
  g_engine_created = true;
  // The Engine reads --cfg=/--log= from argv and answers --help: give it a synthetic command line.
  std::string prog = "partsim";
  std::string log = "--log=root.thres:warning";
  std::vector<char*> argv = {prog.data(), log.data(), nullptr};
  int argc = 2;
  impl_->engine = std::make_unique<sg4::Engine>(&argc, argv.data());
  // Before any zone: changing the model later aborts (notes/simgrid-3.32.md).
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/crosstraffic:0");
  sg4::Engine::set_config("network/TCP-gamma:0");
  // Same rates either way; only the speed differs. At core granularity every step's flows share the
  // on-chip rings, so the sharing system is one connected component: a full re-solve beats the lazy
  // update's bookkeeping (2-D all-reduce on 2048 cores: 15 s instead of 28 s). At chip granularity
  // flows on different links are independent and the lazy update re-solves only what changed (a
  // full re-solve costs O(flows in flight) per completion: 7.4 s instead of 0.25 s for 8000
  // independent flows).
  sg4::Engine::set_config(std::string("network/optim:") +
                          (graph.granularity() == topology::Granularity::core ? "Full" : "Lazy"));
  for (const auto& setting : simgrid_config) sg4::Engine::set_config(setting);

  auto* zone = SparseRouteZone::create("partsim");
  const int n = graph.node_count();
  impl_->hosts.assign(n, nullptr);
  impl_->netpoints.assign(n, nullptr);
  for (int id = 0; id < n; ++id) {
    const auto& node = graph.node(id);
    if (node.is_endpoint()) {
      impl_->hosts[id] = zone->create_host(node.name, 1e9);  // speed unused: compute is timed by timers
      impl_->netpoints[id] = impl_->hosts[id]->get_netpoint();
    } else {
      impl_->netpoints[id] = zone->create_router(node.name);
    }
  }
  auto link_latency = [latency](const topology::TopoLink& l) {
    return latency == LinkLatency::in_links ? l.latency : 0.0;
  };
  impl_->link_in_route.reserve(graph.link_count());
  std::vector<sg4::SplitDuplexLink*> duplex(graph.link_count(), nullptr);
  for (int id = 0; id < graph.link_count(); ++id) {
    const auto& l = graph.link(id);
    if (l.reverse < 0) {
      auto* link = zone->create_link(l.physical, l.bandwidth)->set_latency(link_latency(l))->seal();
      impl_->link_in_route.emplace_back(link);
    } else if (id < l.reverse) {
      const auto& back = graph.link(l.reverse);
      if (back.bandwidth != l.bandwidth || back.latency != l.latency)
        throw Error("replay: the two directions of link " + l.physical + " differ");
      duplex[id] = zone->create_split_duplex_link(l.physical, l.bandwidth);
      duplex[id]->set_latency(link_latency(l))->seal();
      impl_->link_in_route.emplace_back(duplex[id], sg4::LinkInRoute::Direction::UP);
    } else {
      impl_->link_in_route.emplace_back(duplex[l.reverse], sg4::LinkInRoute::Direction::DOWN);
    }
  }
  // Routes for the pairs that communicate only, kept by a zone that stores those alone (SimGrid's
  // full zone allocates n^2 route slots: 134 MB at 4,096 chips).
  std::vector<sg4::LinkInRoute> links;
  for (const RoutedPair& pair : routed) {
    impl_->pairs.emplace_back(pair.src, pair.dst);
    impl_->pair_latency.push_back(graph.route_latency(pair.route));
    links.clear();
    for (int l : pair.route) links.push_back(impl_->link_in_route[l]);
    zone->add_route(impl_->netpoints[pair.src], impl_->netpoints[pair.dst], nullptr, nullptr, links, false);
  }
  zone->seal();
}

Simulation::~Simulation() = default;

int Simulation::host_count() const {
  int count = 0;
  for (auto* h : impl_->hosts) count += h != nullptr;
  return count;
}

std::vector<std::string> Simulation::route_link_names(int src, int dst, double* latency) const {
  std::vector<sg4::Link*> links;
  double lat = 0;
  impl_->hosts.at(src)->route_to(impl_->hosts.at(dst), links, &lat);
  if (latency != nullptr) *latency = lat;
  std::vector<std::string> names;
  for (auto* l : links) names.push_back(l->get_name());
  return names;
}

}  // namespace partsim::replay
