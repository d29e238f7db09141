// The reader of plain key rows (workloads/config/key_rows_reader.hpp), on a section of four made-up keys, one
// of each kind of absence: what is written, the default read as if written, the fallback, nothing, and the
// messages of an unknown key and a missing one.
#include "workloads/config/key_rows_reader.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "topologies/support/input_error.hpp"
#include "workloads/config/config_node.hpp"

namespace {

using tpusim::workloads::ConfigNode;

struct ToyReading {
  std::map<std::string, std::string> values;  // by key name: what the row read
};
using ToyRow = tpusim::workloads::PlainKeyRow<ToyReading>;

std::vector<ToyRow> toy_rows() {
  auto keep = [](const ConfigNode& value, ToyReading& r) { r.values[value.key_path()] = value.scalar(); };
  return {
      ToyRow("toy.size", "whole number", "Required.").required().reads(keep),
      ToyRow("toy.colour", "text", "Has a default.").defaults_to("red").reads(keep),
      ToyRow("toy.weight", "text", "Computed.")
          .computed("heavy", [](ToyReading& r) { r.values["toy.weight"] = "computed"; })
          .reads(keep),
      ToyRow("toy.label", "text", "Nothing when absent.").absent_means("none").reads(keep),
  };
}

}  // namespace

TEST_CASE("key rows: each row gets what is written, else its default, else its fallback, else nothing") {
  const ConfigNode root = ConfigNode::parse("toy:\n  size: 3\n  label: hi\n", "t.yaml");
  ToyReading reading;
  const auto locations = tpusim::workloads::read_key_rows(root.child("toy"), toy_rows(), reading);
  CHECK(reading.values ==
        std::map<std::string, std::string>{
            {"toy.size", "3"}, {"toy.colour", "red"}, {"toy.weight", "computed"}, {"toy.label", "hi"}});
  CHECK(locations ==
        std::map<std::string, std::string>{{"size", "t.yaml:2: toy.size"}, {"label", "t.yaml:3: toy.label"}});
}

TEST_CASE("key rows: only the keys written, over what was read before") {
  const ConfigNode root = ConfigNode::parse("toy:\n  colour: blue\n", "t.yaml");
  ToyReading reading{{{"toy.size", "3"}}};
  const auto locations = tpusim::workloads::read_key_rows(root.child("toy"), toy_rows(), reading,
                                                          {tpusim::workloads::RowsToRead::written});
  CHECK(reading.values == std::map<std::string, std::string>{{"toy.size", "3"}, {"toy.colour", "blue"}});
  CHECK(locations == std::map<std::string, std::string>{{"colour", "t.yaml:2: toy.colour"}});
}

TEST_CASE("key rows: an unknown key is named with a suggestion, a required one left out is missing") {
  ToyReading reading;
  const ConfigNode unknown = ConfigNode::parse("toy:\n  size: 3\n  colur: blue\n", "t.yaml");
  CHECK_THROWS_WITH(
      tpusim::workloads::read_key_rows(unknown.child("toy"), toy_rows(), reading),
      "t.yaml:3: toy.colur: unknown key (did you mean 'colour'?); valid keys are size, colour, weight, "
      "label");
  const ConfigNode missing = ConfigNode::parse("toy:\n  colour: blue\n", "t.yaml");
  CHECK_THROWS_WITH(tpusim::workloads::read_key_rows(missing.child("toy"), toy_rows(), reading),
                    "t.yaml:1: toy: missing key 'toy.size'");
  // An absent section is missing from the parent given.
  const ConfigNode other = ConfigNode::parse("other: 1\n", "t.yaml");
  CHECK_THROWS_WITH(tpusim::workloads::read_key_rows(std::nullopt, toy_rows(), reading, {{}, &other}),
                    "t.yaml:1: missing key 'toy'");
}
