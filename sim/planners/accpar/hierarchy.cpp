#include "sim/planners/accpar/hierarchy.hpp"

#include <algorithm>
#include <functional>

#include "sim/common/error.hpp"
#include "topology/link_bandwidth.hpp"

namespace partsim::accpar {

double Hierarchy::cut_bandwidth(const Group& g) const {
  return std::min(groups.at(g.a).bandwidth, groups.at(g.b).bandwidth);
}

double Hierarchy::side_bandwidth(const Group& g, Side side) const {
  if (reading == BandwidthReading::cut) return cut_bandwidth(g);
  return groups.at(side == Side::a ? g.a : g.b).slowest_device_bandwidth;  // eq. 7's b_i
}

BandwidthReading bandwidth_reading_from_name(const std::string& name) {
  if (name == "cut") return BandwidthReading::cut;
  if (name == "device") return BandwidthReading::device;
  throw UnknownNameError("AccPar bandwidth reading", name, "cut, device");
}

double Hierarchy::device_share(const Group& g) const {
  return static_cast<double>(groups.at(g.a).devices.size()) / static_cast<double>(g.devices.size());
}

double device_bandwidth(const topology::SystemSpec& spec, int device) {
  // The platform's links, as the replay reads them (topology/link_bandwidth.hpp): a star's links
  // are its devices' network_bandwidth, a torus's or graph's their own bandwidths.
  const double total = topology::device_link_bandwidth(spec, device);
  if (total <= 0)
    throw InputError("device '" + spec.device_names.at(static_cast<size_t>(device)) +
                     "' has no network bandwidth (AccPar needs b_i > 0)");
  return total;
}

namespace {

Hierarchy build(const std::vector<double>& flops, const std::vector<double>& bandwidth,
                const std::vector<std::string>& type_of, const std::vector<std::vector<int>>& group_sets,
                BandwidthReading reading) {
  Hierarchy h;
  h.reading = reading;
  std::function<int(std::vector<int>, int)> make = [&](std::vector<int> devices, int depth) -> int {
    Group g;
    g.devices = devices;
    g.depth = depth;
    g.slowest_device_bandwidth = bandwidth.at(static_cast<size_t>(devices.at(0)));
    for (int d : devices) {
      g.flops += flops.at(static_cast<size_t>(d));
      g.bandwidth += bandwidth.at(static_cast<size_t>(d));
      g.slowest_device_bandwidth = std::min(g.slowest_device_bandwidth, bandwidth.at(static_cast<size_t>(d)));
    }
    const int index = static_cast<int>(h.groups.size());
    h.groups.push_back(g);
    if (devices.size() < 2) {
      h.depth = std::max(h.depth, depth);
      return index;
    }
    std::vector<int> side_a, side_b;
    bool heterogeneous = false;
    for (int d : devices) heterogeneous |= type_of.at(static_cast<size_t>(d)) != type_of.at(static_cast<size_t>(devices[0]));
    if (heterogeneous) {
      // First split by device group (seed 000 §6.2: TPU-v2 | TPU-v3): the first group in the
      // platform's list that cuts this set; if none does, by the type of the first device.
      for (const auto& set : group_sets) {
        side_a.clear();
        side_b.clear();
        for (int d : devices) (std::binary_search(set.begin(), set.end(), d) ? side_a : side_b).push_back(d);
        if (!side_a.empty() && !side_b.empty()) break;
      }
      if (side_a.empty() || side_b.empty()) {
        side_a.clear();
        side_b.clear();
        for (int d : devices)
          (type_of.at(static_cast<size_t>(d)) == type_of.at(static_cast<size_t>(devices[0])) ? side_a : side_b).push_back(d);
      }
    } else {
      const size_t half = (devices.size() + 1) / 2;
      side_a.assign(devices.begin(), devices.begin() + static_cast<long>(half));
      side_b.assign(devices.begin() + static_cast<long>(half), devices.end());
    }
    bool mirrored = side_a.size() == side_b.size();
    if (mirrored) {
      std::vector<std::string> ta, tb;
      for (int d : side_a) ta.push_back(type_of.at(static_cast<size_t>(d)));
      for (int d : side_b) tb.push_back(type_of.at(static_cast<size_t>(d)));
      std::sort(ta.begin(), ta.end());
      std::sort(tb.begin(), tb.end());
      mirrored = ta == tb;
    }
    const int a = make(side_a, depth + 1);
    const int b = make(side_b, depth + 1);
    h.groups[static_cast<size_t>(index)].a = a;
    h.groups[static_cast<size_t>(index)].b = b;
    h.groups[static_cast<size_t>(index)].mirrored = mirrored;
    return index;
  };
  std::vector<int> all(flops.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  if (all.empty()) throw InputError("the platform has no devices");
  make(all, 0);
  return h;
}

}  // namespace

Hierarchy build_hierarchy(const topology::SystemSpec& spec, BandwidthReading reading) {
  std::vector<double> flops, bandwidth;
  for (int i = 0; i < spec.device_count(); ++i) {
    flops.push_back(spec.device_type(i).peak_flops(spec.precision));
    bandwidth.push_back(device_bandwidth(spec, i));
  }
  std::vector<std::vector<int>> sets;
  for (const auto& g : spec.groups) {
    auto s = g.devices;
    std::sort(s.begin(), s.end());
    sets.push_back(s);
  }
  return build(flops, bandwidth, spec.device_type_of, sets, reading);
}

Hierarchy build_hierarchy(const std::vector<double>& flops, const std::vector<double>& bandwidth,
                          const std::vector<std::string>& group_of, BandwidthReading reading) {
  std::vector<std::vector<int>> sets;
  std::vector<std::string> seen;
  for (size_t i = 0; i < group_of.size(); ++i) {
    auto it = std::find(seen.begin(), seen.end(), group_of[i]);
    if (it == seen.end()) {
      seen.push_back(group_of[i]);
      sets.emplace_back();
      it = seen.end() - 1;
    }
    sets[static_cast<size_t>(it - seen.begin())].push_back(static_cast<int>(i));
  }
  return build(flops, bandwidth, group_of, sets, reading);
}

}  // namespace partsim::accpar
