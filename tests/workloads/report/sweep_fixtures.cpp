#include "sweep_fixtures.hpp"

#include <stdlib.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tpusim::test {
namespace {

nlohmann::json context() {
  return {{"tpusim_version", "0.1.0"},
          {"simgrid_version", "3.32.0"},
          {"format", "tpusim.sweep.v1"},
          {"command", "sweep"},
          {"inputs", {{"sweep", "fixture.yaml"}, {"preset", nullptr}}}};
}

nlohmann::json vary(const std::vector<std::pair<std::string, std::vector<std::string>>>& axes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [key, values] : axes) out.push_back({{"key", key}, {"values", values}});
  return out;
}

// A run as tpusim sweep writes it; the step splits 70% compute, 20% exposed communication, 10% idle.
nlohmann::json training_run(int point, const std::vector<std::pair<std::string, std::string>>& values,
                            int cores, const std::string& mesh, double step_s, double mfu, bool fits) {
  nlohmann::json value_list = nlohmann::json::array();
  for (const auto& [key, value] : values) value_list.push_back({{"key", key}, {"value", value}});
  const double peak = 22.5e12;
  return {{"point", point},
          {"values", value_list},
          {"config",
           {{"topology", "fixture"}, {"cores", cores}, {"mesh_shape", mesh}, {"layout", "batch:batch"}}},
          {"parameters", 1000000},
          {"step_time",
           {{"step_time_s", step_s},
            {"compute_s", 0.7 * step_s},
            {"communication_s", 0.3 * step_s},
            {"exposed_communication_s", 0.2 * step_s},
            {"exposed_communication_fraction", 0.2},
            {"idle_s", 0.1 * step_s}}},
          {"model_flops_per_step", mfu * peak * cores * step_s},
          {"mfu", mfu},
          {"memory_per_core",
           {{"total_bytes", fits ? 1LL << 30 : 9LL << 30}, {"hbm_bytes", 8LL << 30}, {"fits", fits}}},
          {"collective_calls_per_step", 12},
          {"wall_s", 0.5}};
}

}  // namespace

nlohmann::json training_sweep_fixture() {
  const std::vector<std::string> mappings = {"rings", "linear"},
                                 topologies = {"tpu-v2-8", "tpu-v2-32", "tpu-v2-128"};
  const int cores[] = {8, 32, 128};
  nlohmann::json runs = nlohmann::json::array();
  int point = 0;
  for (const auto& mapping : mappings) {
    for (std::size_t t = 0; t < topologies.size(); ++t, ++point) {
      const std::vector<std::pair<std::string, std::string>> values = {{"mesh.mapping", mapping},
                                                                       {"hardware.topology", topologies[t]}};
      if (point == 5) {
        runs.push_back({{"point", point},
                        {"values",
                         {{{"key", "mesh.mapping"}, {"value", mapping}},
                          {{"key", "hardware.topology"}, {"value", topologies[t]}}}},
                        {"config", {{"cores", cores[t]}, {"mesh_shape", "batch:128"}}},
                        {"error", "the fixture's point 5 failed"},
                        {"input_error", false}});
        continue;
      }
      const double step = 0.25 * (1 + 0.1 * double(t)) * (mapping == "linear" ? 1.3 : 1.0);
      const double mfu = 0.6 / (1 + 0.1 * double(t)) / (mapping == "linear" ? 1.3 : 1.0);
      runs.push_back(
          training_run(point, values, cores[t], "batch:" + std::to_string(cores[t]), step, mfu, point != 4));
    }
  }
  return {{"context", context()},
          {"sweep",
           {{"name", "fixture-scaling"},
            {"description", "a fixture: two mappings over three slices"},
            {"source", "fixture.yaml"},
            {"base", "lm-s0"},
            {"base_source", "preset"},
            {"vary", vary({{"mesh.mapping", mappings}, {"hardware.topology", topologies}})},
            {"points", 6}}},
          {"runs", runs},
          {"wall_s", 3.0}};
}

nlohmann::json same_cores_sweep_fixture() {
  const std::vector<std::string> shapes = {"batch:16;model:2", "batch:8;model:4", "batch:4;model:8"},
                                 mappings = {"rings", "linear"};
  nlohmann::json runs = nlohmann::json::array();
  int point = 0;
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    for (const auto& mapping : mappings) {
      runs.push_back(training_run(point++, {{"mesh.shape", shapes[s]}, {"mesh.mapping", mapping}}, 32,
                                  shapes[s], 0.1 + 0.01 * double(s), 0.5 - 0.05 * double(s), true));
    }
  }
  return {{"context", context()},
          {"sweep",
           {{"name", "fixture-layout"},
            {"base", "lm-s2"},
            {"vary", vary({{"mesh.shape", shapes}, {"mesh.mapping", mappings}})},
            {"points", 6}}},
          {"runs", runs},
          {"wall_s", 2.0}};
}

nlohmann::json collective_sweep_fixture() {
  nlohmann::json rows = nlohmann::json::array();
  int point = 0;
  for (const std::string op : {"allreduce", "allgather"}) {
    for (const std::string topology : {"ring-8", "torus-8x8"}) {
      for (const std::string algorithm : {"ring", "bidir_ring"}) {
        for (double bytes = 1024; bytes <= 1024 * 1024; bytes *= 4) {
          // bidir_ring pays more latency for twice the bandwidth: it wins from 256 KiB.
          const bool bidir = algorithm == "bidir_ring";
          const double time = (bidir ? 20e-6 : 10e-6) + bytes / (bidir ? 2e10 : 1e10);
          const double bound = bytes / 2e10;
          rows.push_back({{"point", point++},
                          {"op", op},
                          {"algorithm", algorithm},
                          {"topology", topology},
                          {"group_axes", topology == "ring-8" ? "x" : "x,y"},
                          {"bytes", bytes},
                          {"time_s", time},
                          {"algbw_Bps", bytes / time},
                          {"busbw_Bps", 1.75 * bytes / time},
                          {"prediction_s", time * 0.98},
                          {"ratio_to_lower_bound", time / bound}});
        }
      }
    }
  }
  return {{"context", context()},
          {"sweep",
           {{"name", "fixture-collectives"},
            {"kind", "collectives"},
            {"vary", vary({{"op", {"allreduce", "allgather"}}, {"algorithm", {"ring", "bidir_ring"}}})},
            {"points", rows.size()}}},
          {"runs", rows}};
}

TempFolder::TempFolder() {
  std::string pattern = (std::filesystem::temp_directory_path() / "tpusim-plots-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp " + pattern);
  path_ = pattern;
}

TempFolder::~TempFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempFolder::sweep_folder(const std::string& name, const nlohmann::json& document) const {
  const auto folder = path_ / name;
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "sweep.json") << document.dump(2) << "\n";
  return folder.string();
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace tpusim::test
