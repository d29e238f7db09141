// The sweep file beyond a plain product: set (a value for every point), zip groups (lists that advance
// together), listed points, and exclude filters; each of their problems one line at its place in the file.
#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "tests/topologies/support/input_error_of.hpp"
#include "workloads/sweep/sweep_spec.hpp"

using namespace tpusim::workloads;

namespace {

Sweep parse(const std::string& yaml) { return parse_sweep(yaml, "sweeps/f.yaml"); }

std::string forms_error_of(const std::string& yaml) {
  return tpusim::test_support::input_error_of([&] { parse(yaml); });
}

std::vector<std::string> shapes(const Sweep& sweep) {
  std::vector<std::string> out;
  for (const auto& point : sweep.points) out.push_back(point.config.mesh.shape_text());
  return out;
}

}  // namespace

TEST_CASE("sweep forms: a mesh that follows the topology needs no mesh per point") {
  // Without it, lm-s2's mesh does not fit the second topology.
  const std::string topologies = "vary:\n  hardware.topology: [tpu-v2-32, tpu-v2-128, tpu-v2-pod]\n";
  CHECK(forms_error_of("base: lm-s2\n" + topologies) ==
        "sweeps/f.yaml:3: vary.hardware.topology[1]: workloads/presets/lm-s2.yaml:9: mesh.shape: "
        "batch:8;model:4 has 32 cores but the topology tpu-v2-128 has 128");
  const Sweep sweep = parse("base: lm-s2\nset:\n  mesh.shape: batch:*;model:4\n" + topologies);
  CHECK(shapes(sweep) ==
        std::vector<std::string>{"batch:8;model:4", "batch:32;model:4", "batch:128;model:4"});
  REQUIRE(sweep.settings.size() == 1);
  CHECK(sweep.settings[0].key == "mesh.shape");
  CHECK(sweep.settings[0].value == "batch:*;model:4");
  CHECK(sweep.axes.size() == 1);
  CHECK(sweep.order() == "cartesian product, the first key varying slowest");
}

TEST_CASE("sweep forms: a zip group advances its lists together, where its first key stands") {
  const Sweep sweep = parse(
      "base: tiny-mlp\n"
      "vary:\n"
      "  mesh.shape: [batch:4;model:2, batch:8;model:1]\n"
      "  training.steps: [1, 2]\n"
      "  training.seed: [5, 6]\n"
      "zip: [[mesh.shape, training.seed]]\n");
  REQUIRE(sweep.points.size() == 4);
  const std::vector<std::vector<std::string>> expected = {{"batch:4;model:2", "1", "5"},
                                                          {"batch:4;model:2", "2", "5"},
                                                          {"batch:8;model:1", "1", "6"},
                                                          {"batch:8;model:1", "2", "6"}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO(i);
    CHECK(sweep.points[i].values == expected[i]);
    CHECK(sweep.points[i].config.mesh.shape_text() == expected[i][0]);
    CHECK(sweep.points[i].config.training.steps == std::stoi(expected[i][1]));
    CHECK(sweep.points[i].config.training.seed == std::stoul(expected[i][2]));
  }
  CHECK(sweep.zip_groups == std::vector<std::vector<std::string>>{{"mesh.shape", "training.seed"}});
  CHECK(sweep.order() ==
        "cartesian product, the first key varying slowest; zipped, advancing together: mesh.shape, "
        "training.seed");
  // Zipped lists may repeat a value; the group's positions may not repeat.
  CHECK(parse("base: tiny-mlp\nvary:\n  training.seed: [1, 2, 3]\n  training.steps: [1, 1, 2]\n"
              "zip: [[training.seed, training.steps]]\n")
            .points.size() == 3);
}

TEST_CASE("sweep forms: zip points are the product of its factors, in odometer order") {
  std::mt19937 random(3);
  for (int trial = 0; trial < 25; ++trial) {
    // Four keys with lists of random lengths; keys 1 and 3 zipped when their lengths allow.
    const std::vector<std::string> keys = {"training.seed", "training.steps", "training.learning_rate",
                                           "model.d_ff"};
    std::vector<int> lengths = {1 + int(random() % 3), 1 + int(random() % 3), 1 + int(random() % 3), 0};
    const bool zipped = random() % 2 == 0;
    lengths[3] = zipped ? lengths[1] : 1 + int(random() % 2);
    const auto value = [](std::size_t key, int i) {
      return key == 0   ? std::to_string(10 + i)
             : key == 1 ? std::to_string(1 + i)
             : key == 2 ? "0.0" + std::to_string(1 + i)
                        : std::to_string(64 << i);
    };
    std::string yaml = "base: tiny-mlp\nvary:\n";
    for (std::size_t k = 0; k < keys.size(); ++k) {
      yaml += "  " + keys[k] + ": [";
      for (int i = 0; i < lengths[k]; ++i) yaml += (i ? ", " : "") + value(k, i);
      yaml += "]\n";
    }
    if (zipped) yaml += "zip:\n  - [model.d_ff, training.steps]\n";
    INFO(yaml);
    const Sweep sweep = parse(yaml);
    // Factors slowest first: key 0, key 1 (with key 3 when zipped), key 2, then key 3 when not zipped.
    std::size_t expected_count = 1;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (!(zipped && k == 3)) expected_count *= lengths[k];
    }
    REQUIRE(sweep.points.size() == expected_count);
    for (std::size_t p = 0; p < expected_count; ++p) {
      std::size_t rest = p;
      std::vector<int> index(4);
      if (!zipped) {
        index[3] = rest % lengths[3];
        rest /= lengths[3];
      }
      index[2] = rest % lengths[2];
      rest /= lengths[2];
      index[1] = rest % lengths[1];
      rest /= lengths[1];
      index[0] = static_cast<int>(rest);
      if (zipped) index[3] = index[1];
      for (std::size_t k = 0; k < keys.size(); ++k) CHECK(sweep.points[p].values[k] == value(k, index[k]));
      CHECK(sweep.points[p].config.model.d_ff == 64 << index[3]);
    }
  }
}

TEST_CASE("sweep forms: listed points follow the product, keeping the base's value of what they leave out") {
  const Sweep sweep = parse(
      "base: tiny-mlp\n"
      "vary:\n"
      "  training.steps: [1, 2]\n"
      "points:\n"
      "  - {training.steps: 3, mesh.shape: batch:8;model:1}\n"
      "  - {hardware.device: tpu-v3-core}\n");
  REQUIRE(sweep.points.size() == 4);
  REQUIRE(sweep.axes.size() == 3);
  CHECK(sweep.axes[0].key == "training.steps");
  CHECK(sweep.axes[1].key == "mesh.shape");
  CHECK(sweep.axes[2].key == "hardware.device");
  // tiny-mlp writes its mesh and steps but not its device: that cell is empty.
  CHECK(sweep.points[0].values == std::vector<std::string>{"1", "batch:4;model:2", ""});
  CHECK(sweep.points[2].values == std::vector<std::string>{"3", "batch:8;model:1", ""});
  CHECK(sweep.points[3].values == std::vector<std::string>{"12", "batch:4;model:2", "tpu-v3-core"});
  CHECK(sweep.points[3].config.hardware.device.name() == "tpu-v3-core");
  CHECK(sweep.points[3].config.training.steps == 12);
  CHECK(sweep.points[1].config.hardware.device.name() == "tpu-v2-core");
  CHECK(sweep.points[2].describe(sweep.axes) == "training.steps=3, mesh.shape=batch:8;model:1");
  CHECK(sweep.axes[0].values == std::vector<std::string>{"1", "2", "3", "12"});
  CHECK(sweep.axes[2].values == std::vector<std::string>{"", "tpu-v3-core"});
  CHECK(sweep.listed_points == 2);
  CHECK(sweep.order() == "cartesian product, the first key varying slowest; then 2 listed points");
  // Listed points alone.
  const Sweep listed =
      parse("base: tiny-mlp\npoints:\n  - {mesh.shape: batch:8;model:1}\n  - {training.steps: 2}\n");
  CHECK(shapes(listed) == std::vector<std::string>{"batch:8;model:1", "batch:4;model:2"});
  CHECK(listed.order() == "2 listed points");
}

TEST_CASE("sweep forms: exclude drops the points that have all of a filter's values") {
  const Sweep sweep = parse(
      "base: tiny-mlp\n"
      "vary:\n"
      "  mesh.shape: [batch:4;model:2, batch:8;model:1, batch:2;model:4]\n"
      "  training.steps: [1, 2]\n"
      "exclude:\n"
      "  - {mesh.shape: batch:8;model:1, training.steps: 2}\n"
      "  - {mesh.shape: batch:2;model:4}\n");
  REQUIRE(sweep.points.size() == 3);
  CHECK(sweep.points[0].values == std::vector<std::string>{"batch:4;model:2", "1"});
  CHECK(sweep.points[1].values == std::vector<std::string>{"batch:4;model:2", "2"});
  CHECK(sweep.points[2].values == std::vector<std::string>{"batch:8;model:1", "1"});
  for (int i = 0; i < 3; ++i) CHECK(sweep.points[i].index == i);
  CHECK(sweep.product_points == 6);
  CHECK(sweep.excluded_points == 3);
  // An excluded combination is not resolved: it may be invalid.
  CHECK(parse("base: tiny-mlp\nvary:\n  hardware.topology: [ring-8, torus-4x4]\n"
              "  mesh.shape: [batch:4;model:2, batch:4;model:4]\n"
              "exclude:\n  - {hardware.topology: ring-8, mesh.shape: batch:4;model:4}\n"
              "  - {hardware.topology: torus-4x4, mesh.shape: batch:4;model:2}\n")
            .points.size() == 2);
}

TEST_CASE("sweep forms: each problem of the new sections is one line at its place") {
  CHECK(forms_error_of("base: tiny-mlp\nvary: {training.steps: [1]}\nzipp: []\n") ==
        "sweeps/f.yaml:3: zipp: unknown key (did you mean 'zip'?); valid keys are name, description, kind, "
        "base, set, vary, zip, points, exclude, output");
  CHECK(forms_error_of("base: tiny-mlp\n") ==
        "sweeps/f.yaml:1: a sweep needs vary (config keys and their lists of values, crossed) or points (a "
        "list "
        "of points), or both");
  const std::string vary = "base: tiny-mlp\nvary:\n  training.steps: [1, 2]\n  training.seed: [1, 2, 3]\n";
  CHECK(forms_error_of(vary + "zip: [[training.steps, training.sede]]\n") ==
        "sweeps/f.yaml:5: zip[0][1]: 'training.sede' is not a key of vary (did you mean 'training.seed'?); a "
        "zip group advances lists of vary together, and vary has training.steps, training.seed");
  CHECK(
      forms_error_of(vary + "zip:\n  - [training.steps, training.seed]\n") ==
      "sweeps/f.yaml:6: zip[0]: vary.training.steps has 2 values but vary.training.seed has 3; the lists of "
      "a zip group advance together, so they must be as long");
  CHECK(forms_error_of(vary + "zip: [[training.steps]]\n") ==
        "sweeps/f.yaml:5: zip[0]: expected a list of two or more keys of vary, such as [hardware.topology, "
        "model.batch]");
  CHECK(forms_error_of("base: tiny-mlp\nvary:\n  training.steps: [1, 2]\n  training.seed: [1, 1]\n"
                       "zip:\n  - [training.steps, training.seed]\n  - [training.seed, training.steps]\n") ==
        "sweeps/f.yaml:7: zip[1][0]: training.seed is in zip[0] already");
  CHECK(forms_error_of("base: tiny-mlp\nvary:\n  training.steps: [1, 1]\n  training.seed: [4, 4]\n"
                       "zip: [[training.steps, training.seed]]\n") ==
        "sweeps/f.yaml:5: zip[0]: the values [1] of its lists (training.steps=1, training.seed=4) repeat the "
        "values [0]");
  CHECK(forms_error_of(vary + "exclude:\n  - {training.stpes: 2}\n") ==
        "sweeps/f.yaml:6: exclude[0].training.stpes: training.stpes is not varied (did you mean "
        "'training.steps'?); a filter names keys of vary or points, here training.steps, training.seed");
  CHECK(forms_error_of(vary + "exclude:\n  - {training.steps: 2}\n  - {training.steps: 7}\n") ==
        "sweeps/f.yaml:7: exclude[1]: matches no point (training.steps=7); values are compared as written");
  CHECK(forms_error_of(vary + "exclude:\n  - {training.steps: 1}\n  - {training.steps: 2}\n") ==
        "sweeps/f.yaml:5: exclude: excludes every point (6 of 6): nothing would run");
  CHECK(forms_error_of(vary + "points:\n  - {training.steps: 2, training.seed: 3}\n") ==
        "sweeps/f.yaml:6: points[0]: the same point as one of vary's (training.steps=2, training.seed=3)");
  CHECK(forms_error_of("base: tiny-mlp\npoints:\n  - {training.seed: 3}\n  - {training.seed: 3}\n") ==
        "sweeps/f.yaml:4: points[1]: the same point as points[0] (training.seed=3)");
  CHECK(forms_error_of(vary + "set: {training.seed: 4}\n") ==
        "sweeps/f.yaml:4: vary.training.seed: training.seed is also set by set.training.seed: a key is set "
        "for every point or varied, not both");
  CHECK(forms_error_of(
            "base: tiny-mlp\nvary:\n  model: [{kind: mlp, layers: 1, d_model: 8, d_ff: 16, batch: 8}]\n"
            "points:\n  - {model.d_ff: 32}\n") ==
        "sweeps/f.yaml:5: points[0].model.d_ff: overlaps vary.model: vary a section or keys inside it, not "
        "both");
  CHECK_THAT(
      forms_error_of("base: tiny-mlp\npoints:\n  - {mesh.shap: batch:8}\n"),
      Catch::StartsWith("sweeps/f.yaml:3: points[0].mesh.shap: 'mesh.shap' is not a config key (did you "
                        "mean 'mesh.shape'?)"));
  CHECK(
      forms_error_of("base: tiny-mlp\npoints: []\n") ==
      "sweeps/f.yaml:2: points: expected a non-empty list of points, each a map from config keys to values, "
      "such as [{hardware.topology: tpu-v2-32, mesh.shape: batch:8;model:4}]");
  CHECK(forms_error_of("base: tiny-mlp\npoints: [3]\n") ==
        "sweeps/f.yaml:2: points[0]: expected a map from config keys to values, such as "
        "{mesh.shape: batch:8;model:4}");
  CHECK(forms_error_of("base: tiny-mlp\nvary: {training.steps: [1, 2]}\nexclude:\n  - {}\n") ==
        "sweeps/f.yaml:4: exclude[0]: expected a map from varied keys to values, such as "
        "{mesh.shape: batch:4;model:128}");
  CHECK(forms_error_of("base: tiny-mlp\nvary: {training.steps: [1, 2]}\nset: [mesh.shape]\n") ==
        "sweeps/f.yaml:3: set: expected a map from config keys (such as mesh.shape) to the value every point "
        "gets");
  // A listed point's bad value is located at it.
  CHECK(forms_error_of(
            "base: tiny-mlp\npoints:\n  - {training.steps: 2}\n  - {mesh.shape: batch:4;model:4}\n") ==
        "sweeps/f.yaml:4: points[1].mesh.shape: batch:4;model:4 has 16 cores but the topology ring-8 has 8");
  CHECK(
      forms_error_of("base: tiny-mlp\nset: {mesh.shape: batch:*;model:3}\nvary: {training.steps: [1]}\n") ==
      "sweeps/f.yaml:2: set.mesh.shape: mesh 'batch:*;model:3': the 8 cores of ring-8 are not a multiple of "
      "3 (the other sizes), so '*' has no whole size");
}
