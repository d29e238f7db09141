// mesh.mapping: where the mesh processors run on the pod. The three forms parse, bad ones are located at
// their line, and the mapping changes the simulated step time where a linear placement breaks the rings.
#include <catch2/catch.hpp>
#include <string>
#include <utility>

#include "mesh_tf/execution.hpp"
#include "mesh_tf/optimizer.hpp"
#include "sim/simulator.hpp"
#include "tests/topologies/support/input_error_of.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/models/model_builder.hpp"

using namespace tpusim;
using namespace tpusim::workloads;

namespace {

// A small LM on the 512-core pod, timing only; line 4 holds the mapping.
std::string config_with(const std::string& mapping_line) {
  return "hardware: {topology: tpu-v2-pod}\n"                                                        // 1
         "mesh:\n"                                                                                   // 2
         "  shape: batch:16;model:32\n"                                                              // 3
         + mapping_line +                                                                            // 4
         "model: {kind: transformer_lm, layers: 1, d_model: 256, d_ff: 2048, heads: 32, d_kv: 32, "  // 5
         "vocab: 2048, batch: 64, length: 64}\n"
         "training: {optimizer: sgd}\n";
}

std::string mapping_error_of(const std::string& yaml) {
  return tpusim::test_support::input_error_of([&] { parse_run_config(yaml, "configs/map.yaml"); });
}

}  // namespace

TEST_CASE("mesh.mapping accepts rings, linear and an explicit assignment, default rings") {
  CHECK(parse_run_config(config_with(""), "a.yaml").mesh.mapping.kind() == mtf::MappingSpec::Kind::rings);
  const auto rings = parse_run_config(config_with("  mapping: rings\n"), "a.yaml");
  CHECK(rings.mesh.mapping.kind() == mtf::MappingSpec::Kind::rings);
  CHECK(rings.mesh.mapping.to_string() == "rings");
  const auto linear = parse_run_config(config_with("  mapping: linear\n"), "a.yaml");
  CHECK(linear.mesh.mapping.kind() == mtf::MappingSpec::Kind::linear);
  CHECK(linear.mesh.mapping.to_string() == "linear");
  const auto axes = parse_run_config(config_with("  mapping: model=core+x;batch=y\n"), "a.yaml");
  CHECK(axes.mesh.mapping.kind() == mtf::MappingSpec::Kind::axes);
  CHECK(axes.mesh.mapping.to_string() == "model=core+x;batch=y");
  REQUIRE(axes.mesh.mapping.assignment().size() == 2);
  CHECK(axes.mesh.mapping.assignment()[0].second == std::vector<std::string>{"core", "x"});
}

TEST_CASE("a bad mesh.mapping is reported at its line with the valid forms") {
  const std::string unknown = mapping_error_of(config_with("  mapping: ring\n"));
  CHECK(unknown.rfind(
            "configs/map.yaml:4: mesh.mapping: 'ring' is not a mesh mapping (did you mean 'rings'?)", 0) ==
        0);
  CHECK(unknown.find("linear") != std::string::npos);
  CHECK(unknown.find("model=core+x;batch=y") != std::string::npos);

  const std::string size = mapping_error_of(config_with("  mapping: model=core;batch=x+y\n"));
  INFO(size);
  CHECK(size.rfind("configs/map.yaml:4: mesh.mapping: mesh mapping 'model=core;batch=x+y': rule 'model=core' "
                   "gives mesh dimension 'model' of size 32 physical axes of 2 cores",
                   0) == 0);

  const std::string missing = mapping_error_of(config_with("  mapping: model=core+x+y\n"));
  CHECK(missing.rfind("configs/map.yaml:4: mesh.mapping: ", 0) == 0);
  CHECK(missing.find("rule 'model=core+x+y' gives mesh dimension 'model' of size 32") != std::string::npos);

  const std::string unassigned = mapping_error_of(config_with("  mapping: model=core+x\n"));
  CHECK(unassigned.rfind("configs/map.yaml:4: mesh.mapping: mesh mapping 'model=core+x': mesh dimension "
                         "'batch' (size 16) is not assigned",
                         0) == 0);

  const std::string axis = mapping_error_of(config_with("  mapping: model=core+z;batch=y\n"));
  CHECK(axis.rfind(
            "configs/map.yaml:4: mesh.mapping: mesh mapping 'model=core+z;batch=y': rule 'model=core+z': "
            "unknown axis 'z'",
            0) == 0);

  const std::string twice = mapping_error_of(config_with("  mapping: model=core+x;batch=x\n"));
  CHECK(twice.find("physical axis 'x' is used twice") != std::string::npos);

  const std::string dim = mapping_error_of(config_with("  mapping: modle=core+x;batch=y\n"));
  CHECK(dim.find("names mesh dimension 'modle', but mesh batch:16;model:32 has no such dimension (did you "
                 "mean 'model'?)") != std::string::npos);
}

TEST_CASE("the linear mapping breaks the physical rings and takes longer than rings") {
  // batch:16;model:32 is the default LM mesh. Its linear placement (processor i on core i, last mesh dim
  // fastest) already walks model over core then x and batch over y: the rings' axes without the snake
  // walk, so the same links carry the same traffic. Listing the dims the other way round, model:32;batch:16,
  // the linear placement puts batch on core and half of x (a line of 8 chips closed over 7 hops) and model on
  // the other half of x and y, while rings still give each mesh dim whole physical rings.
  const RunConfig rings = parse_run_config(config_with(""), "rings.yaml");
  const RunConfig linear = parse_run_config(config_with("  mapping: linear\n"), "linear.yaml");
  const RunConfig axes = parse_run_config(config_with("  mapping: model=core+x;batch=y\n"), "axes.yaml");
  auto swapped = [](RunConfig config) {
    const mtf::MeshShape& mesh = config.mesh.shape;
    config.mesh.shape = mtf::MeshShape(mtf::Shape({mesh.shape()[1], mesh.shape()[0]}));
    return config;
  };
  mtf::Graph graph(1);
  const BuiltModel model = build_model(graph, rings.model);
  mtf::Optimizer::sgd(0.1).minimize(graph, model.loss);
  sim::Simulator simulator(rings.hardware.topology);  // one per process, shared by the executors
  auto step_time = [&](const RunConfig& config, std::string& note) {
    mtf::ExecutionOptions options;
    options.numerics = false;
    options.device = config.hardware.device;
    options.mapping = config.mesh.mapping;
    mtf::Executor executor(graph, config.mesh.shape, config.mesh.layout, &simulator, options);
    note = executor.mapping().note();
    return executor.run().timeline.step_time_s;
  };
  std::string rings_note, linear_note, axes_note, swapped_rings_note, swapped_linear_note;
  const double rings_s = step_time(rings, rings_note);
  const double linear_s = step_time(linear, linear_note);
  const double axes_s = step_time(axes, axes_note);
  const double swapped_rings_s = step_time(swapped(rings), swapped_rings_note);
  const double swapped_linear_s = step_time(swapped(linear), swapped_linear_note);
  INFO("batch:16;model:32: rings " << rings_s << " s (" << rings_note << "), linear " << linear_s
                                   << " s; model:32;batch:16: rings " << swapped_rings_s << " s ("
                                   << swapped_rings_note << "), linear " << swapped_linear_s << " s");
  CHECK(rings_note == "model = core+x, batch = y");
  CHECK(linear_note.rfind("linear:", 0) == 0);
  CHECK(rings_s > 0);
  // Collectives simulated later on the shared clock may round differently in the last bits.
  CHECK(linear_s == Approx(rings_s).epsilon(1e-9));
  CHECK(swapped_linear_note.rfind("linear:", 0) == 0);
  CHECK(swapped_rings_s == Approx(rings_s).epsilon(0.1));  // the same rings, only renumbered
  CHECK(swapped_linear_s > 1.5 * swapped_rings_s);
  // The explicit assignment of the rings' axes is the same placement: the same simulated time, exactly.
  CHECK(axes_note == rings_note);
  CHECK(axes_s == rings_s);
}
