#include "tests/export/chakra_reader.hpp"

#include <gtest/gtest.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <algorithm>

namespace partsim::test {

ChakraTrace read_chakra(const std::string& bytes) {
  ChakraTrace trace;
  google::protobuf::io::ArrayInputStream input(bytes.data(), static_cast<int>(bytes.size()));
  bool clean_eof = false;
  EXPECT_TRUE(google::protobuf::util::ParseDelimitedFromZeroCopyStream(&trace.metadata, &input, &clean_eof))
      << "no GlobalMetadata";
  while (true) {
    ChakraProtoMsg::Node node;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&node, &input, &clean_eof)) {
      EXPECT_TRUE(clean_eof) << "a node is cut short after " << trace.nodes.size() << " nodes";
      break;
    }
    trace.nodes.push_back(std::move(node));
  }
  return trace;
}

ChakraAttributes attributes(const ChakraProtoMsg::Node& node) {
  ChakraAttributes a;
  for (const auto& attr : node.attr()) a.by_name[attr.name()] = attr;
  return a;
}

std::vector<std::uint64_t> deps(const ChakraProtoMsg::Node& node) {
  std::vector<std::uint64_t> d(node.data_deps().begin(), node.data_deps().end());
  std::sort(d.begin(), d.end());
  return d;
}

}  // namespace partsim::test
