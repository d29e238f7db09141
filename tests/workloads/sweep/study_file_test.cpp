// A sweep file's top-level keys are rows (study_file.hpp): each documented, with what its absence means, read
// as the rows say (the defaults below by hand), and listed by tpusim sweep --schema --json in their order.
#include "workloads/sweep/study_file.hpp"

#include <catch2/catch.hpp>

#include "tests/topologies/support/input_error_of.hpp"
#include "workloads/sweep/sweep_schema.hpp"
#include "workloads/sweep/collective_study_spec.hpp"

using namespace tpusim::workloads;

namespace {

StudyFile read(const std::string& yaml, const std::vector<StudyFileKey>& rows) {
  return read_study_file(ConfigNode::parse(yaml, "dir/my-study.yaml"), "dir/my-study.yaml", rows);
}

template <class Rows>
std::vector<std::string> names(const Rows& rows) {
  std::vector<std::string> keys;
  for (const auto& row : rows) keys.push_back(row.key);
  return keys;
}

std::vector<std::string> json_keys(const nlohmann::json& list) {
  std::vector<std::string> keys;
  for (const auto& key : list) keys.push_back(key["key"]);
  return keys;
}

}  // namespace

TEST_CASE("study file: every row is documented and says what its absence means") {
  for (const auto* rows : {&training_sweep_keys(), &collective_study_file_keys()}) {
    for (const auto& row : *rows) {
      INFO(row.key);
      CHECK_FALSE(row.type.empty());
      CHECK_FALSE(row.doc.empty());
      CHECK(row.absent != KeyAbsent::unset);
      CHECK(static_cast<bool>(row.read));
    }
  }
  for (const auto& row : collective_study_keys()) {
    INFO(row.key);
    CHECK_FALSE(row.type.empty());
    CHECK(row.absent == KeyAbsent::default_value);
  }
  const nlohmann::json schema = sweep_schema_json();
  CHECK(json_keys(schema["training_keys"]) == names(training_sweep_keys()));
  CHECK(json_keys(schema["collective_study_keys"]) == names(collective_study_file_keys()));
  CHECK(json_keys(schema["collective_point_keys"]) == names(collective_study_keys()));
}

TEST_CASE("study file: a key left out gets its row's default, and a key written is read") {
  const StudyFile plain = read("base: tiny-mlp\nvary: {model.batch: [8, 16]}\n", training_sweep_keys());
  CHECK(plain.header.name == "my-study");
  CHECK(plain.header.output_dir == "results/my-study");
  CHECK(plain.header.description.empty());
  CHECK(plain.kind == "training");
  CHECK(plain.base->scalar() == "tiny-mlp");
  CHECK(plain.vary.has_value());
  CHECK_FALSE(plain.set.has_value());

  const StudyFile named = read("name: other\ndescription: d\nkind: collectives\noutput: out/x\nvary: {}\n",
                               collective_study_file_keys());
  CHECK(named.header.name == "other");
  CHECK(named.header.output_dir == "out/x");
  CHECK(named.header.description == "d");
  CHECK(named.kind == "collectives");

  CHECK(tpusim::test_support::input_error_of([] { read("bsae: tiny-mlp\n", training_sweep_keys()); }) ==
        "dir/my-study.yaml:1: bsae: unknown key (did you mean 'base'?); valid keys are name, description, "
        "kind, "
        "base, set, vary, zip, points, exclude, output");
  CHECK_THAT(tpusim::test_support::input_error_of([] { read("vary: {}\n", collective_study_file_keys()); }),
             Catch::Contains("kind"));
  CHECK_THAT(tpusim::test_support::input_error_of(
                 [] { read("base: x\nkind: collectives\n", training_sweep_keys()); }),
             Catch::EndsWith("a training sweep has kind 'training', not 'collectives'"));
}
