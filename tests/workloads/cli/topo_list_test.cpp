// tpusim topo list: every preset, as text and as JSON, held to the names `topo describe` accepts, to each
// preset's own figures there, and to the published TPU figures (Jouppi et al., CACM 2020; Google Cloud's v5e,
// v5p and v6e pages).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "cli_runner.hpp"

using tpusim::cli_test::Scratch;

namespace {

// The valid names as `topo describe` lists them for a name it does not know.
std::vector<std::string> preset_names(const Scratch& scratch) {
  const auto run = scratch.run({"topo", "describe", "no-such-pod"});
  REQUIRE(run.exit_status == 2);
  // Plain string search, not std::regex: libstdc++ matches a repetition by recursing once per character,
  // which overflows the stack of a sanitizer build on a list this long.
  const std::string lead = "valid presets are ";
  const auto begin = run.err.find(lead);
  REQUIRE(begin != std::string::npos);
  const auto end = run.err.find(" (", begin);
  REQUIRE(end != std::string::npos);
  std::vector<std::string> names;
  std::istringstream list(run.err.substr(begin + lead.size(), end - begin - lead.size()));
  for (std::string name; std::getline(list, name, ',');)
    names.push_back(name.substr(name.find_first_not_of(' ')));
  return names;
}

}  // namespace

TEST_CASE("cli: topo list prints a line per preset with its shape, cores, link and device") {
  const Scratch scratch;
  const auto run = scratch.run({"topo", "list"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  CHECK(run.err.empty());
  const auto names = preset_names(scratch);
  REQUIRE(names.size() >= 10);
  for (const auto& name : names) CHECK_THAT(run.out, Catch::Contains("\n" + name + " "));
  // TPU v2 pod: 16x16 chips, 2 cores each, 496 Gbit/s = 62 GB/s per link direction.
  // regex_search rather than Catch::Matches over the whole text: std::regex recurses once per character a
  // repetition takes, which overflows the stack of a sanitizer build.
  CHECK(std::regex_search(
      run.out, std::regex("\ntpu-v2-pod +torus +16x16 chips x 2 cores +512 +62 GB/s, 1 us +tpu-v2-core\n")));
  // TPU v3 pod: 32x32 chips, 2 cores each, 656 Gbit/s = 82 GB/s.
  CHECK(std::regex_search(
      run.out, std::regex("\ntpu-v3-pod +torus +32x32 chips x 2 cores +2048 +82 GB/s, 1 us +tpu-v3-core\n")));
  // Google Cloud's pages, per link each way = ICI per chip (both ways) / links / 2. TPU v5e pod: 16x16 chips,
  // one core each, 400 GB/s over 4 links = 50 GB/s.
  CHECK(std::regex_search(
      run.out, std::regex("\ntpu-v5e-256 +torus +16x16 chips x 1 core +256 +50 GB/s, 1 us +tpu-v5e-core\n")));
  // TPU v5p cube: 4x4x4 chips, one megacore each, 1200 GB/s over 6 links = 100 GB/s.
  CHECK(std::regex_search(
      run.out,
      std::regex("\ntpu-v5p-cube +torus +4x4x4 chips x 1 core +64 +100 GB/s, 1 us +tpu-v5p-core\n")));
  // TPU v6e slice: 4x4 chips without wraparound, 800 GB/s over 4 links = 100 GB/s.
  CHECK(std::regex_search(
      run.out, std::regex("\ntpu-v6e-16 +mesh +4x4 chips x 1 core +16 +100 GB/s, 1 us +tpu-v6e-core\n")));
  CHECK(scratch.entries().empty());
}

TEST_CASE("cli: topo list --json gives every preset the figures topo describe gives it, and its device") {
  const Scratch scratch;
  const auto run = scratch.run({"topo", "list", "--json"});
  INFO(run.describe());
  REQUIRE(run.exit_status == 0);
  const auto presets = nlohmann::json::parse(run.out).at("presets");
  std::vector<std::string> listed;
  for (const auto& preset : presets) {
    const std::string name = preset.at("topology");
    listed.push_back(name);
    INFO(name);
    int chips = 1;
    for (const int size : preset.at("chip_dims")) chips *= size;
    CHECK(preset.at("cores") == chips * preset.at("cores_per_chip").get<int>());
    CHECK_FALSE(preset.at("description").get<std::string>().empty());
    const auto described = scratch.run({"topo", "describe", name, "--json"});
    REQUIRE(described.exit_status == 0);
    const auto figures = nlohmann::json::parse(described.out);
    for (const char* field : {"kind", "chip_dims", "cores_per_chip", "cores", "inter_chip_bandwidth_Bps",
                              "inter_chip_latency_s", "intra_chip_bandwidth_Bps", "intra_chip_latency_s"}) {
      CHECK(preset.at(field) == figures.at(field));
    }
    // hardware.device's documented default: the core of the TPU generation a tpu-v* preset names
    // (tpu-v5e-256: tpu-v5e-core), else tpu-v2-core.
    const std::string device =
        name.rfind("tpu-v", 0) == 0 ? name.substr(0, name.find('-', 4)) + "-core" : "tpu-v2-core";
    CHECK(preset.at("device") == device);
  }
  CHECK(listed == preset_names(scratch));
}
