#include "sweep_fixtures.hpp"

#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

namespace tpusim::test {
namespace {

nlohmann::json context(const std::string& format = "tpusim.sweep.v1") {
  return {{"tpusim_version", "0.1.0"},
          {"simgrid_version", "3.32.0"},
          {"format", format},
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
                        {"config",
                         {{"topology", topologies[t]}, {"cores", cores[t]}, {"mesh_shape", "batch:128"}}},
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
            {"kind", "training"},
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
            {"kind", "training"},
            {"description", ""},
            {"base", "lm-s2"},
            {"vary", vary({{"mesh.shape", shapes}, {"mesh.mapping", mappings}})},
            {"points", 6}}},
          {"runs", runs},
          {"wall_s", 2.0}};
}

nlohmann::json scaling_sweep_fixture() {
  const std::vector<std::string> batches = {"128", "{per: batch, value: 8}"},
                                 topologies = {"tpu-v2-8", "tpu-v2-32", "tpu-v2-128"};
  const int cores[] = {8, 32, 128};
  const double strong_speedups[] = {1, 2.5, 4}, weak_efficiencies[] = {1, 0.95, 0.8};
  nlohmann::json runs = nlohmann::json::array();
  int point = 0;
  for (const auto& batch : batches) {
    const bool strong = batch == "128";
    for (std::size_t t = 0; t < topologies.size(); ++t, ++point) {
      const double ratio = double(cores[t]) / cores[0];
      const double speedup = strong ? strong_speedups[t] : weak_efficiencies[t] * ratio;
      // Strong: the same work in less time; weak: work growing with the cores at falling efficiency.
      const double step = strong ? 0.4 / speedup : 0.4 / weak_efficiencies[t];
      nlohmann::json run = training_run(point, {{"model.batch", batch}, {"hardware.topology", topologies[t]}},
                                        cores[t], "batch:" + std::to_string(cores[t]), step, 0.5, true);
      run["scaling"] = {{"kind", strong ? "strong" : "weak"},
                        {"reference_point", strong ? 0 : 3},
                        {"speedup", speedup},
                        {"efficiency", speedup / ratio}};
      runs.push_back(run);
    }
  }
  return {{"context", context()},
          {"sweep",
           {{"name", "fixture-strong-weak"},
            {"kind", "training"},
            {"description", "a fixture: strong and weak scaling over three slices"},
            {"base", "lm-s0"},
            {"vary", vary({{"model.batch", batches}, {"hardware.topology", topologies}})},
            {"points", 6}}},
          {"runs", runs},
          {"wall_s", 3.0}};
}

nlohmann::json with_values(nlohmann::json document, const std::vector<std::string>& keys,
                           const std::vector<std::vector<std::string>>& values) {
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    std::vector<std::string> distinct;
    for (const auto& row : values) {
      if (std::find(distinct.begin(), distinct.end(), row[k]) == distinct.end()) distinct.push_back(row[k]);
    }
    axes.emplace_back(keys[k], distinct);
  }
  document["sweep"]["vary"] = vary(axes);
  auto& runs = document["runs"];
  runs.erase(runs.begin() + std::ptrdiff_t(values.size()), runs.end());
  for (std::size_t r = 0; r < values.size(); ++r) {
    runs[r]["values"] = nlohmann::json::array();
    for (std::size_t k = 0; k < keys.size(); ++k)
      runs[r]["values"].push_back({{"key", keys[k]}, {"value", values[r][k]}});
  }
  return document;
}

nlohmann::json collective_sweep_fixture() {
  const std::vector<std::string> ops = {"allreduce", "allgather"}, topologies = {"ring-8", "torus-8x8"},
                                 algorithms = {"ring", "bidir_ring"},
                                 sizes = {"1KiB", "4KiB", "16KiB", "64KiB", "256KiB", "1MiB"};
  nlohmann::json rows = nlohmann::json::array();
  int point = 0;
  for (const auto& op : ops) {
    for (const auto& topology : topologies) {
      for (const auto& algorithm : algorithms) {
        double bytes = 1024;
        for (const auto& size : sizes) {
          // bidir_ring pays more latency for twice the bandwidth: it wins from 256 KiB.
          const bool bidir = algorithm == "bidir_ring";
          const double time = (bidir ? 20e-6 : 10e-6) + bytes / (bidir ? 2e10 : 1e10);
          const double bound = bytes / 2e10;
          rows.push_back({{"point", point++},
                          {"values",
                           {{{"key", "collective.op"}, {"value", op}},
                            {{"key", "hardware.topology"}, {"value", topology}},
                            {{"key", "collective.algorithm"}, {"value", algorithm}},
                            {{"key", "collective.bytes"}, {"value", size}}}},
                          {"topology", topology},
                          {"cores", topology == "ring-8" ? 8 : 64},
                          {"op", op},
                          {"network", "ideal"},
                          {"reduce", "sum"},
                          {"status", "ok"},
                          {"algorithms", algorithm},
                          {"group_axes", topology == "ring-8" ? "x" : "x,y"},
                          {"groups", 1},
                          {"group_size", topology == "ring-8" ? 8 : 64},
                          {"bytes", bytes},
                          {"simulated_s", time},
                          {"prediction_s", time * 0.98},
                          {"contention_free", true},
                          {"closed_form_s", nullptr},
                          {"lower_bound_s", bound},
                          {"lower_bound_term", "bandwidth"},
                          {"ratio_to_prediction", 1 / 0.98},
                          {"ratio_to_lower_bound", time / bound},
                          {"algbw_Bps", bytes / time},
                          {"busbw_Bps", 1.75 * bytes / time},
                          {"messages", 14},
                          {"simulated_messages", 14},
                          {"wall_s", 0.01},
                          {"peak_rss_mib", 20}});
          bytes *= 4;
        }
      }
    }
  }
  return {{"context", context("tpusim.collective_sweep.v1")},
          {"sweep",
           {{"name", "fixture-collectives"},
            {"description", "a fixture: two ops, two algorithms, two tori, six sizes"},
            {"source", "fixture.yaml"},
            {"kind", "collectives"},
            {"vary", vary({{"collective.op", ops},
                           {"hardware.topology", topologies},
                           {"collective.algorithm", algorithms},
                           {"collective.bytes", sizes}})},
            {"set", nlohmann::json::array()},
            {"order", "cartesian product, the first key varying slowest"},
            {"points", rows.size()}}},
          {"runs", rows},
          {"wall_s", 1.0}};
}

std::vector<MalformedSweep> malformed_sweeps() {
  using Edit = std::function<void(nlohmann::json&)>;
  std::vector<MalformedSweep> cases;
  const auto training = [&](const std::string& what, const Edit& edit, const std::string& message) {
    nlohmann::json json = training_sweep_fixture();
    edit(json);
    cases.push_back({what, json.dump(2), message});
  };
  const auto collective = [&](const std::string& what, const Edit& edit, const std::string& message) {
    nlohmann::json json = collective_sweep_fixture();
    edit(json);
    cases.push_back({what, json.dump(2), message});
  };
  cases.push_back({"cut off", training_sweep_fixture().dump(2).substr(0, 300), ":", true});
  cases.push_back({"not JSON", "{\"context\": {\n  \"format\": tpusim}}", ":2:14: not valid JSON: ", true});
  cases.push_back({"an array", "[1, 2]", ": expected an object, not an array"});
  training("another format", [](auto& j) { j["context"]["format"] = "tpusim.search.v1"; },
           ": context.format: 'tpusim.search.v1' is not the format of a sweep's sweep.json: expected "
           "'tpusim.sweep.v1' or 'tpusim.collective_sweep.v1'");
  training("fidelity's", [](auto& j) { j["context"]["format"] = "tpusim.fidelity.v1"; },
           ": context.format: this is tpusim fidelity's sweep.json, which tpusim plot does not draw; give "
           "the output folder of a tpusim sweep");
  training("no context", [](auto& j) { j.erase("context"); }, ": context: missing");
  training("a version that is a number", [](auto& j) { j["context"]["tpusim_version"] = 5; },
           ": context.tpusim_version: expected a string, not 5");
  training("a kind against the format", [](auto& j) { j["sweep"]["kind"] = "collectives"; },
           ": sweep.kind: 'collectives' is not the kind of a tpusim.sweep.v1 document: expected 'training'");
  training("fewer points than runs", [](auto& j) { j["sweep"]["points"] = 3; },
           ": runs: has 6 runs, but sweep.points says the sweep has 3");
  training("negative points", [](auto& j) { j["sweep"]["points"] = -1; },
           ": sweep.points: expected a whole number of at least 0, not -1");
  training("a point beyond the sweep", [](auto& j) { j["runs"][5]["point"] = 6; },
           ": runs[5].point: point 6 is beyond the sweep's 6 points (sweep.points)");
  training("a point twice", [](auto& j) { j["runs"][2]["point"] = 1; },
           ": runs[2].point: point 1 comes after point 1: runs are in point order, each once");
  training("a key varied twice", [](auto& j) { j["sweep"]["vary"][1]["key"] = "mesh.mapping"; },
           ": sweep.vary[1].key: 'mesh.mapping' is varied twice");
  training("a value the sweep does not vary", [](auto& j) { j["runs"][0]["values"][1]["value"] = "tpu-v9"; },
           ": runs[0].values[1].value: 'tpu-v9' is not among the values sweep.vary gives hardware.topology");
  training("a value of another key", [](auto& j) { j["runs"][0]["values"][0]["key"] = "hardware.topology"; },
           ": runs[0].values[0].key: 'hardware.topology' is not sweep.vary[0]'s key 'mesh.mapping'");
  training("a value missing", [](auto& j) { j["runs"][0]["values"].erase(1); },
           ": runs[0].values: has 1 values, but sweep.vary has 2 keys");
  // The report of the issue: "2 ran" and "No point ran" in one, from rows that ran without their figures.
  training("a step time that is text", [](auto& j) { j["runs"][0]["step_time"]["step_time_s"] = "fast"; },
           ": runs[0].step_time.step_time_s: expected a number above 0, not \"fast\"");
  training("no memory", [](auto& j) { j["runs"][1].erase("memory_per_core"); },
           ": runs[1].memory_per_core: missing");
  training("no cores", [](auto& j) { j["runs"][3]["config"]["cores"] = 0; },
           ": runs[3].config.cores: expected a whole number of at least 1, not 0");
  training("a negative MFU", [](auto& j) { j["runs"][0]["mfu"] = -0.5; },
           ": runs[0].mfu: expected a number of at least 0, not -0.5");
  training("fits as text", [](auto& j) { j["runs"][0]["memory_per_core"]["fits"] = "yes"; },
           ": runs[0].memory_per_core.fits: expected true or false, not \"yes\"");
  training("an error that is a number", [](auto& j) { j["runs"][5]["error"] = 42; },
           ": runs[5].error: expected a string, not 42");
  training("no runs", [](auto& j) { j.erase("runs"); }, ": runs: missing");
  training("runs as an object", [](auto& j) { j["runs"] = nlohmann::json::object(); },
           ": runs: expected an array, not an object");
  collective("an unknown status", [](auto& j) { j["runs"][0]["status"] = "done"; },
             ": runs[0].status: 'done' is not a status: expected ok, failed, input_error, skipped");
  collective("a bandwidth that is text", [](auto& j) { j["runs"][0]["busbw_Bps"] = "fast"; },
             ": runs[0].busbw_Bps: expected a number of at least 0, or null, not \"fast\"");
  collective("no simulated time", [](auto& j) { j["runs"][1].erase("simulated_s"); },
             ": runs[1].simulated_s: missing");
  collective("a size of a point that ran as text", [](auto& j) { j["runs"][2]["bytes"] = "16KiB"; },
             ": runs[2].bytes: expected a number of at least 0, not \"16KiB\"");
  return cases;
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

std::map<std::string, std::string> files_beside_sweep_json(const std::filesystem::path& folder) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
    const std::string name = std::filesystem::relative(entry.path(), folder).string();
    if (name != "sweep.json" && entry.is_regular_file()) files[name] = read_text(entry.path());
  }
  return files;
}

}  // namespace tpusim::test
