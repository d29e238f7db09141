// tpusim collective: simulate one collective and set it against the alpha-beta prediction and the lower bound
// of sim/README.md (The collective cost model); --list-algorithms prints the algorithm registry.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "sim/algorithm_registry.hpp"
#include "topologies/presets.hpp"
#include "topologies/simulation_memory.hpp"
#include "topologies/support/atomic_file.hpp"
#include "topologies/support/child_process.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/units.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/collectives/collective_record.hpp"
#include "workloads/report/progress.hpp"
#include "workloads/report/report_context.hpp"

namespace tpusim::cli {
namespace {

using workloads::ratio;

struct CollectiveOptions {
  std::string topology = workloads::default_collective_topology();
  workloads::CollectiveSpec spec;
  std::string network = workloads::default_collective_network();
  bool check_data = false;
  bool no_fold = false;
  std::string trace;
  bool json = false;
  bool list_algorithms = false;
  std::string faults;
  std::string progress;
};

// The same collective on the pod without its faults, in a child process (one simulation per process).
double healthy_time_s(const topo::Topology& topology, const CollectiveOptions& options,
                      sim::SimOptions sim_options) {
  sim_options.record_trace = false;
  const auto child = run_in_child([&] {
    const auto healthy = topology.with_faults("");
    sim::Simulator simulator(healthy, sim_options);
    const auto built = workloads::resolve_auto(simulator, workloads::build_request(healthy, options.spec));
    return fmt::format("{:.17g}", simulator.run(built.request).time_s);
  });
  return std::stod(child.output);
}

nlohmann::json to_json(const CollectiveOptions& options, const topo::Topology& topology,
                       const workloads::BuiltRequest& built, const workloads::Measurement& m,
                       double healthy_s) {
  const auto& r = m.result;
  nlohmann::json links = nlohmann::json::array();
  for (std::size_t i = 0; i < m.links.size() && i < 8; ++i) {
    const auto& l = m.links[i];
    links.push_back({{"link", l.link},
                     {"bytes", l.bytes},
                     {"busy_s", l.busy_s},
                     {"utilisation", ratio(l.busy_s, r.time_s)}});
  }
  nlohmann::json out =
      workloads::record_json(workloads::collective_record(built, m), workloads::collective_record_fields());
  out["algorithms"] = built.algorithm_names();  // a list here, one per group dimension
  out["topology"] = topology.name();
  out["shape"] = topology.shape();
  out["op"] = options.spec.op;
  out["chosen_by_auto"] = built.chosen_by_auto;
  out["network"] = options.network;
  out["closed_form"] = m.prediction.closed_form;
  out["links_used"] = m.links.size();
  out["busiest_links"] = links;
  if (!topology.faults().empty()) {
    out["faults"] = topology.faults().text();
    out["healthy_simulated_s"] = healthy_s;
    out["slowdown"] = ratio(r.time_s, healthy_s);
  }
  if (m.data_checked) {
    out["data_max_abs_error"] = m.data.max_abs_error;
    out["data_tolerance"] = m.data_tolerance;
    out["data_ok"] = m.data_ok;
  }
  // The options as given ("" = the op's default, null here); --trace only adds a file.
  const nlohmann::json inputs = {{"topology", options.topology},
                                 {"op", options.spec.op},
                                 {"algo", workloads::input_or_null(options.spec.algorithms)},
                                 {"bytes", options.spec.bytes},
                                 {"group_axes", workloads::input_or_null(options.spec.group_axes)},
                                 {"reduce", options.spec.reduce},
                                 {"network", options.network},
                                 {"check_data", options.check_data},
                                 {"no_fold", options.no_fold},
                                 {"faults", workloads::input_or_null(options.faults)}};
  return workloads::with_report_context(std::move(out), workloads::format::kCollective, "collective", inputs);
}

void print_text(const CollectiveOptions& options, const topo::Topology& topology,
                const workloads::BuiltRequest& built, const workloads::Measurement& m, double healthy_s) {
  const auto& r = m.result;
  const auto& request = built.request;
  std::vector<std::string> dims;
  for (const int d : request.groups.front().dims) dims.push_back(std::to_string(d));
  std::cout << fmt::format("collective       {} {}{} on {} ({}), {} network\n", options.spec.op,
                           sim::algorithm_list(request.algorithms),
                           built.chosen_by_auto ? " (chosen by auto)" : "", topology.name(), topology.shape(),
                           options.network);
  std::cout << fmt::format("groups           {} group{} of {} cores along {} ({})\n", request.groups.size(),
                           request.groups.size() == 1 ? "" : "s", request.groups.front().size(),
                           built.group_axes, join(dims, "x"));
  std::cout << fmt::format("message          {} per member ({} fp32 elements)\n",
                           format_bytes(r.bytes_per_member), request.elements);
  std::cout << fmt::format("simulated time   {}\n", format_duration(r.time_s));
  if (!topology.faults().empty()) {
    std::cout << fmt::format("faults           {}; on the healthy pod {}, {:.3f}x slower here\n",
                             topology.faults().text(), format_duration(healthy_s),
                             ratio(r.time_s, healthy_s));
  }
  std::cout << fmt::format("algbw            {}\n", format_bandwidth(r.algbw_Bps));
  std::cout << fmt::format("busbw            {}\n", format_bandwidth(r.busbw_Bps));
  std::cout << fmt::format("prediction       {} (alpha-beta critical path; {})\n",
                           format_duration(m.prediction.time_s),
                           options.network == "lv08"          ? "for the ideal network, lv08 adds TCP effects"
                           : !m.prediction.contention_checked ? "contention not checked"
                           : m.prediction.contention_free     ? "contention free"
                                                              : "links shared: the prediction is optimistic");
  std::cout << fmt::format("ratio            simulated / prediction = {:.6f}\n",
                           ratio(r.time_s, m.prediction.time_s));
  if (m.prediction.closed_form_s >= 0) {
    std::cout << fmt::format("closed form      {}  {}\n", format_duration(m.prediction.closed_form_s),
                             m.prediction.closed_form);
  } else {
    std::cout
        << "closed form      none (hops of different kinds or lengths, or no formula for this algorithm)\n";
  }
  std::string term = m.bound.binding;  // "chip_injection" reads as "chip injection"
  std::replace(term.begin(), term.end(), '_', ' ');
  std::cout << fmt::format("lower bound      {} ({} term), simulated / bound = {:.3f}\n",
                           format_duration(m.bound.time_s), term, ratio(r.time_s, m.bound.time_s));
  std::cout << fmt::format("messages         {} ({} simulated, {} repeated rounds folded)\n", r.messages,
                           r.simulated_messages, r.folded_rounds);
  if (!m.links.empty()) {
    const auto& busiest = m.links.front();
    std::cout << fmt::format("links            {} carried data; busiest {} with {}, utilisation {:.1f}%\n",
                             m.links.size(), busiest.link, format_bytes(busiest.bytes),
                             100.0 * ratio(busiest.busy_s, r.time_s));
  }
  if (m.data_checked) {
    std::cout << fmt::format(
        "data check       max abs error {:.3g} (tolerance {:.3g}) over {} elements: {}\n",
        m.data.max_abs_error, m.data_tolerance, m.data.compared, m.data_ok ? "ok" : "FAILED");
  }
}

// Every row of the registry, grouped by collective: what --algo accepts.
void print_algorithms(bool json) {
  if (json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : sim::algorithm_table()) {
      rows.push_back({{"collective", sim::to_string(row.kind)},
                      {"name", row.name},
                      {"default", row.is_default},
                      {"auto_may_choose", row.auto_may_choose()},
                      {"group_shape", sim::to_string(row.shape)},
                      {"closed_form", row.closed_form != nullptr},
                      {"description", row.description}});
    }
    std::cout << workloads::dump_report(
                     workloads::with_report_context({{"algorithms", rows}}, workloads::format::kAlgorithms,
                                                    "collective", {{"list_algorithms", true}}))
              << "\n";
    return;
  }
  // Columns as wide as their widest entry, so that a new row never breaks the alignment.
  std::size_t kind_width = std::string("collective").size(), name_width = std::string("algorithm").size(),
              shape_width = std::string("group shape").size();
  for (const auto& row : sim::algorithm_table()) {
    kind_width = std::max(kind_width, std::string(sim::to_string(row.kind)).size());
    name_width = std::max(name_width, std::string(row.name).size());
    shape_width = std::max(shape_width, std::string(sim::to_string(row.shape)).size());
  }
  const auto line = [&](const std::string& kind, const std::string& name, const std::string& is_default,
                        const std::string& by_auto, const std::string& shape, const std::string& closed_form,
                        const std::string& description) {
    std::cout << fmt::format("{:<{}} {:<{}} {:<8} {:<5} {:<{}} {:<12} {}\n", kind, kind_width, name,
                             name_width, is_default, by_auto, shape, shape_width, closed_form, description);
  };
  line("collective", "algorithm", "default", "auto", "group shape", "closed form", "description");
  for (const auto& row : sim::algorithm_table()) {
    line(sim::to_string(row.kind), row.name, row.is_default ? "yes" : "",
         row.auto_may_choose() ? "yes" : "no", sim::to_string(row.shape),
         row.closed_form != nullptr ? "yes" : "no", row.description);
  }
}

}  // namespace

void add_collective_command(CLI::App& app) {
  static CollectiveOptions options;
  auto* command =
      app.add_subcommand("collective", "Simulate one collective and compare it with alpha-beta and bounds");
  command
      ->add_option("--topology", options.topology,
                   "Preset name or spec (torus:8x8,cores=2,bw=62GBps,lat=1us)")
      ->capture_default_str();
  command
      ->add_option("--op", options.spec.op,
                   "allreduce, reduce_scatter, allgather, alltoall, broadcast, permute")
      ->capture_default_str();
  command->add_option(
      "--algo", options.spec.algorithms,
      "Algorithm, or one per group dimension separated by commas (default: the op's default; see "
      "--list-algorithms); auto: the fastest by simulation at this size, each algorithm on its default group "
      "axes unless --group-axes is given");
  command->add_option("--bytes", options.spec.bytes, "Bytes per member, a multiple of 4 (64MiB, 1GiB, 4096)")
      ->capture_default_str();
  command->add_option(
      "--group-axes", options.spec.group_axes,
      "Group dimensions, e.g. core+x,y or all (default: core+x,y for two-dimensional algorithms, "
      "else all)");
  command->add_option("--reduce", options.spec.reduce, "sum or max")->capture_default_str();
  command->add_option("--network", options.network, "ideal (alpha-beta) or lv08 (SimGrid's default)")
      ->capture_default_str();
  command->add_option("--faults", options.faults,
                      "Links down or slow and random faults, ';'-separated: down:3.4+x, slow:3.4+x:0.5, "
                      "random:4:7 (4 links down, seed 7); the healthy pod's time is reported beside");
  command->add_flag("--check-data", options.check_data,
                    "Move real fp32 data and compare with a reference reduction");
  command->add_flag("--no-fold", options.no_fold, "Simulate every round, even those that repeat exactly");
  command->add_option("--trace", options.trace,
                      "Write a Chrome trace (JSON, loads in Perfetto) of every transfer");
  command->add_flag("--json", options.json, "Print one JSON object");
  command->add_option("--progress", options.progress,
                      "bar, plain or none: how far the simulation is, on stderr, once a collective has run "
                      "for 2 s (default: bar on a terminal, plain otherwise, none with --json)");
  command->add_flag("--list-algorithms", options.list_algorithms,
                    "Print every algorithm of every collective (default, group shape, closed form) and exit");
  command->callback([] {
    if (options.list_algorithms) return print_algorithms(options.json);
    const auto network = sim::network_models().parse(options.network);
    const auto topology = topo::topology_from_spec(options.topology).with_faults(options.faults);
    // Before building anything: refuse what would exhaust memory, and a trace that cannot be written.
    topo::require_simulation_fits(topology);
    if (!options.trace.empty())
      require_writable_file(options.trace);
    auto built = workloads::build_request(topology, options.spec);
    sim::SimOptions sim_options;
    sim_options.network = network;
    sim_options.record_trace = !options.trace.empty();
    sim_options.fold_repeated_rounds = !options.no_fold;
    const auto progress_mode = options.json && options.progress.empty()
                                   ? workloads::ProgressMode::none
                                   : workloads::parse_progress_mode(options.progress);
    // A collective on a large pod simulates up to billions of transfers: after 2 s, a line says how far it is
    // (each collective simulated, the healthy pod's and every candidate of auto included, gets its own).
    std::unique_ptr<workloads::Progress> progress;
    std::size_t rounds_before = 0;
    const std::string label = fmt::format("{} of {} on {}", options.spec.op, options.spec.bytes, options.topology);
    if (progress_mode != workloads::ProgressMode::none) {
      sim_options.on_rounds = [&, progress_mode](std::size_t taken, std::size_t rounds) {
        if (!progress || taken < rounds_before) {
          if (progress) progress->finish();
          progress = std::make_unique<workloads::Progress>(
              progress_mode, label, static_cast<std::int64_t>(rounds), 0,
              workloads::ProgressStyle{"rounds", false, 2.0, 10.0});
        }
        rounds_before = taken;
        progress->advance_to(static_cast<std::int64_t>(taken));
      };
    }
    // Before this process's simulation: the baseline runs in a child.
    const double healthy_s = topology.faults().empty() ? 0.0 : healthy_time_s(topology, options, sim_options);
    sim::Simulator simulator(topology, sim_options);
    built = workloads::resolve_auto(simulator, std::move(built));
    const auto m = workloads::measure(simulator, built, options.check_data);
    if (progress) progress->finish();
    if (!options.trace.empty()) simulator.write_chrome_trace(options.trace);
    if (options.json) {
      std::cout << workloads::dump_report(to_json(options, topology, built, m, healthy_s)) << "\n";
    } else {
      print_text(options, topology, built, m, healthy_s);
    }
    if (m.data_checked && !m.data_ok)
      throw std::runtime_error("data check failed: the result differs from the reference");
  });
}

}  // namespace tpusim::cli
