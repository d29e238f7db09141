// The Chrome trace holds one complete event per simulated transfer, in microseconds.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/simulator.hpp"
#include "sim_test_support.hpp"
#include "topologies/presets.hpp"

using namespace tpusim;
using namespace tpusim::sim;

TEST_CASE("the chrome trace has one event per transfer and loads as JSON") {
  const auto topology = topo::preset("torus-4x4");
  SimOptions options;
  options.record_trace = true;
  options.fold_repeated_rounds = false;
  Simulator simulator(topology, options);
  const auto result = simulator.run(testing::request_along(topology, "allreduce", "bucket2d", "1MiB", "x,y"));
  const std::string path = "trace_test_output.json";
  simulator.write_chrome_trace(path);
  std::ifstream in(path);
  const auto trace = nlohmann::json::parse(in);
  std::size_t transfers = 0;
  double last_end_us = 0;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] != "X") continue;
    ++transfers;
    CHECK(event["dur"].get<double>() > 0);
    last_end_us = std::max(last_end_us, event["ts"].get<double>() + event["dur"].get<double>());
  }
  CHECK(transfers == result.messages);
  CHECK(last_end_us == Approx(result.time_s * 1e6).epsilon(1e-9));
  std::remove(path.c_str());
}
