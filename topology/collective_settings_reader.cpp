#include "topology/collective_settings_reader.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "sim/common/text.hpp"
#include "sim/common/yaml_reader.hpp"
#include "topology/field_reader.hpp"

namespace partsim::topology {
namespace {

using field_reader::read_fields;
using yaml::ConfigNode;
using yaml::MapReader;

/// The collectives a platform may name a default algorithm for (sim/collectives).
const std::vector<std::string> kCollectives{"p2p",        "reduce_scatter", "all_gather",        "all_reduce",
                                            "broadcast",  "all_to_all",     "all_to_all_direct", "rotate"};

}  // namespace

CollectiveSettings read_collective_settings(const ConfigNode& node) {
  MapReader r(node);
  CollectiveSettings settings;
  if (auto algorithms = r.optional("algorithm")) {
    if (!algorithms->is_map()) algorithms->fail("expected a map from collective names to algorithm names");
    for (const auto& kv : algorithms->node()) {
      const std::string key = ConfigNode(kv.first, algorithms->path(), node.source_ptr()).as_string();
      const ConfigNode at_key(kv.first, yaml::join_path(algorithms->path(), key), node.source_ptr());
      // "all_reduce" or "all_reduce.x": a collective, and optionally the torus axis it runs along.
      const size_t dot = key.find('.');
      const std::string collective = key.substr(0, dot);
      if (std::find(kCollectives.begin(), kCollectives.end(), collective) == kCollectives.end())
        at_key.fail("unknown collective '" + collective + "' (valid: " + join(kCollectives) +
                    "; a key is a collective or collective.axis)");
      if (dot != std::string::npos && dot + 1 == key.size()) at_key.fail("the axis after '.' must not be empty");
      const ConfigNode value(kv.second, at_key.path(), node.source_ptr());
      const std::string algorithm = value.as_string();
      if (algorithm.empty()) value.fail("an algorithm name must not be empty");
      settings.algorithm[key] = algorithm;
    }
  }
  if (auto protocols = r.optional("protocols")) {
    if (!protocols->is_map()) protocols->fail("expected a map from protocol names to {base_latency, step_latency, efficiency}");
    for (const auto& kv : protocols->node()) {
      CollectiveProtocol protocol;
      protocol.name = ConfigNode(kv.first, protocols->path(), node.source_ptr()).as_string();
      const ConfigNode value(kv.second, yaml::join_path(protocols->path(), protocol.name), node.source_ptr());
      if (protocol.name.empty()) value.fail("a protocol name must not be empty");
      MapReader pr(value);
      read_fields(pr, protocol, kProtocolFields, false);  // base_latency, step_latency, efficiency
      pr.finish();
      settings.protocols.push_back(protocol);
    }
  }
  // channels, chunk, endpoint_overhead, protocol_efficiency, in_switch_efficiency
  read_fields(r, settings, kCollectiveFields, false);
  r.finish();
  return settings;
}

}  // namespace partsim::topology
