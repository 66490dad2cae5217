#pragma once
// Reads a Chakra trace back the way ASTRA-sim's feeder does: a length-delimited protobuf stream,
// the GlobalMetadata first, then the Nodes (protobuf's util/delimited_message_util.h).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "chakra_et.pb.h"

namespace partsim::test {

struct ChakraTrace {
  ChakraProtoMsg::GlobalMetadata metadata;
  std::vector<ChakraProtoMsg::Node> nodes;
};

/// Parses `bytes`; a malformed stream fails the calling test (the result is then incomplete).
ChakraTrace read_chakra(const std::string& bytes);

/// A node's attributes by name (the value as the feeder reads it: int64, int32, uint64, bool or double).
struct ChakraAttributes {
  std::map<std::string, ChakraProtoMsg::AttributeProto> by_name;
  std::int64_t i64(const std::string& name) const { return by_name.at(name).int64_val(); }
  std::int32_t i32(const std::string& name) const { return by_name.at(name).int32_val(); }
  bool flag(const std::string& name) const { return by_name.at(name).bool_val(); }
  double real(const std::string& name) const { return by_name.at(name).double_val(); }
};
ChakraAttributes attributes(const ChakraProtoMsg::Node& node);

/// The node ids a node depends on, ascending.
std::vector<std::uint64_t> deps(const ChakraProtoMsg::Node& node);

}  // namespace partsim::test
