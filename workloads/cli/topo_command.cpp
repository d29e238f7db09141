// tpusim topo list: every preset with its shape, links, cores and device; tpusim topo describe
// <preset|spec>: the figures of a topology.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "mesh_tf/device_model.hpp"
#include "topologies/chip_graph.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/units.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/report/report_context.hpp"

namespace tpusim::cli {
namespace {

// The device is the one a run config on the preset gets when it names none (hardware.device), so the list
// says what `hardware.topology: <preset>` alone simulates.
nlohmann::json preset_row(const std::string& name) {
  const auto topology = topo::preset(name);
  return {{"topology", name},
          {"description", topo::preset_description(name)},
          {"kind", topology.kind()},
          {"shape", topology.shape()},
          {"chip_dims", topology.chip_dims()},
          {"cores_per_chip", topology.cores_per_chip()},
          {"cores", topology.num_cores()},
          {"inter_chip_bandwidth_Bps", topology.inter_chip().bandwidth_Bps()},
          {"inter_chip_latency_s", topology.inter_chip().latency_s()},
          {"intra_chip_bandwidth_Bps", topology.intra_chip().bandwidth_Bps()},
          {"intra_chip_latency_s", topology.intra_chip().latency_s()},
          {"device", mtf::DeviceModel::for_topology(name).name()}};
}

void list_presets(bool json) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& name : topo::preset_names()) rows.push_back(preset_row(name));
  if (json) {
    std::cout << workloads::dump_report(workloads::with_report_context(
                     {{"presets", rows}}, workloads::format::kTopologyList, "topo list"))
              << "\n";
    return;
  }
  // The description repeats the shape in words; it is in the JSON, and the text stays one screen wide.
  std::vector<std::vector<std::string>> table = {
      {"preset", "kind", "shape", "cores", "link each way", "device"}};
  for (const auto& row : rows) {
    table.push_back({row.at("topology"), row.at("kind"), row.at("shape"), row.at("cores").dump(),
                     fmt::format("{}, {}", format_bandwidth(row.at("inter_chip_bandwidth_Bps")),
                                 format_duration(row.at("inter_chip_latency_s"))),
                     row.at("device")});
  }
  std::vector<std::size_t> widths(table.front().size(), 0);
  for (const auto& line : table) {
    for (std::size_t c = 0; c < line.size(); ++c) widths[c] = std::max(widths[c], line[c].size());
  }
  for (const auto& line : table) {
    std::string text;
    for (std::size_t c = 0; c < line.size(); ++c)
      text += c + 1 == line.size() ? line[c] : fmt::format("{:<{}}  ", line[c], widths[c]);
    std::cout << text << "\n";
  }
  std::cout << "Specs give other pods: torus:8x8,cores=2,bw=62GBps,lat=1us (tpusim topo describe SPEC).\n";
}

}  // namespace

void add_topo_command(CLI::App& app) {
  auto* topo = app.add_subcommand("topo", "Topologies: presets and their figures");
  topo->require_subcommand(1);
  auto* list = topo->add_subcommand(
      "list",
      "List every topology preset: its kind, shape, cores, inter-chip link and the device a run config on it "
      "gets when it names none (hardware.device)");
  static bool list_json = false;
  list->add_flag("--json", list_json, "Print one JSON object");
  list->callback([] { list_presets(list_json); });
  auto* describe = topo->add_subcommand("describe", "Print diameter, bisection, hop counts of a topology");
  static std::string spec;
  static std::string faults;
  static bool json = false;
  describe->add_option("topology", spec, "Preset name or spec (torus:8x8,cores=2,bw=62GBps,lat=1us)")
      ->required();
  describe->add_option(
      "--faults", faults,
      "Links down or slow, ';'-separated (down:3.4+x, slow:3.4+x:0.5, random:4:7): the figures "
      "of the faulty pod");
  describe->add_flag("--json", json, "Print one JSON object");
  describe->callback([] {
    const auto topology = topo::topology_from_spec(spec).with_faults(faults);
    const auto figures = topo::graph_figures(topology);
    if (json) {
      nlohmann::json out = {{"topology", topology.name()},
                            {"kind", topology.kind()},
                            {"chip_dims", topology.chip_dims()},
                            {"cores_per_chip", topology.cores_per_chip()},
                            {"cores", topology.num_cores()},
                            {"chips", figures.chips},
                            {"links", figures.links},
                            {"diameter_hops", figures.diameter_hops},
                            {"average_hops", figures.average_hops},
                            {"bisection_links", figures.bisection_links},
                            {"bisection_Bps", figures.bisection_Bps},
                            {"inter_chip_bandwidth_Bps", topology.inter_chip().bandwidth_Bps()},
                            {"inter_chip_latency_s", topology.inter_chip().latency_s()},
                            {"intra_chip_bandwidth_Bps", topology.intra_chip().bandwidth_Bps()},
                            {"intra_chip_latency_s", topology.intra_chip().latency_s()},
                            {"faults", topology.faults().text()}};
      nlohmann::json inputs = {{"topology", spec}};
      if (!faults.empty()) inputs["faults"] = faults;
      std::cout << workloads::dump_report(workloads::with_report_context(out, workloads::format::kTopology,
                                                                         "topo describe", inputs))
                << "\n";
      return;
    }
    std::cout << fmt::format("topology        {} ({})\n", topology.name(), topology.kind());
    std::cout << fmt::format("shape           {} = {} cores\n", topology.shape(), topology.num_cores());
    std::cout << fmt::format("inter-chip link {}\n", topology.inter_chip().describe());
    std::cout << fmt::format("intra-chip link {}\n", topology.intra_chip().describe());
    if (!topology.faults().empty())
      std::cout << fmt::format("faults          {}\n", topology.faults().text());
    std::cout << fmt::format("links           {} full-duplex inter-chip links\n", figures.links);
    std::cout << fmt::format("diameter        {} hops\n", figures.diameter_hops);
    std::cout << fmt::format("average hops    {:.4f}\n", figures.average_hops);
    std::cout << fmt::format("bisection       {} links, {} both directions\n", figures.bisection_links,
                             format_bandwidth(figures.bisection_Bps));
  });
}

}  // namespace tpusim::cli
