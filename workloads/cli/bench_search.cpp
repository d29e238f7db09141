// tpusim bench search: what a search of the 4.9B LM on the 512-core pod costs. Each case runs in a child
// process of its own (a fresh simulator), with no collective times kept from earlier searches unless the
// case says so:
//   paper     the complete search of mesh shapes (1 or 2 axes) x the paper's layout dimensions x per-axis
//             algorithms default and auto (1022 candidates, exhaustive): wall time, candidates per second
//             (all, and those that fit, whose steps are simulated), distinct collectives, peak RSS
//             (the targets: 20 candidates per second, the whole space in under a minute)
//   warm      the same again, with the collective times the first search kept in a folder
//   cache     the default space (algorithms default, 263 candidates) with the cache and without it
//             (every collective of every candidate simulated again): what the cache saves
// Figures are printed, never judged.
#include <fmt/format.h>
#include <stdlib.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "topologies/support/child_process.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/report/report_context.hpp"
#include "workloads/search/search_run.hpp"

namespace tpusim::cli {
namespace {

namespace fs = std::filesystem;

struct Measured {
  workloads::SearchResult result;
  double wall_s = 0;
  double peak_rss_mib = 0;
};

workloads::SearchInput lm_s5(const std::string& search_section) {
  return workloads::load_search_input(workloads::preset_text("lm-s5") + search_section,
                                      workloads::preset_source("lm-s5"));
}

nlohmann::json figures(const workloads::SearchResult& r, double wall_s, double peak_rss_mib) {
  int fits = 0;
  double fits_wall_s = 0;
  for (const auto& o : r.outcomes) {
    if (o.status != workloads::CandidateOutcome::Status::fits) continue;
    ++fits;
    fits_wall_s += o.wall_s;
  }
  const double candidates = static_cast<double>(r.outcomes.size());
  return {{"candidates", r.outcomes.size()},
          {"space", r.space_size},
          {"fits", fits},
          {"wall_s", wall_s},
          {"search_s", r.wall_s},
          {"candidates_per_s", candidates / r.wall_s},
          {"fitting_per_s", fits_wall_s > 0 ? fits / fits_wall_s : 0},
          {"simulated_collectives", r.simulated_collectives},
          {"loaded_collective_times", r.loaded_collective_times},
          {"best_step_time_s", r.best ? r.outcomes[*r.best].step_time_s : 0},
          {"peak_rss_mib", peak_rss_mib}};
}

// One search in a child of its own; its figures.
nlohmann::json search_case(const workloads::SearchInput& input, const workloads::SearchOptions& options) {
  try {
    const ChildResult child =
        run_in_child([&] { return figures(workloads::run_search(input, options), 0, 0).dump(); });
    nlohmann::json result = nlohmann::json::parse(child.output);
    result["wall_s"] = child.wall_s;
    result["peak_rss_mib"] = child.peak_rss_mib;
    return result;
  } catch (const std::exception& error) {
    return {{"error", error.what()}};
  }
}

std::string line(const nlohmann::json& r) {
  if (r.contains("error")) return "failed: " + r["error"].get<std::string>();
  return fmt::format(
      "{} candidates in {:.2f} s (process {:.2f} s): {:.0f} per second, those that fit {:.1f} per second; {} "
      "collectives simulated, {} reused from a file; best {:.4g} ms; peak RSS {:.0f} MiB",
      r["candidates"].get<int>(), r["search_s"].get<double>(), r["wall_s"].get<double>(),
      r["candidates_per_s"].get<double>(), r["fitting_per_s"].get<double>(),
      r["simulated_collectives"].get<int>(), r["loaded_collective_times"].get<int>(),
      1e3 * r["best_step_time_s"].get<double>(), r["peak_rss_mib"].get<double>());
}

}  // namespace

void add_bench_search(CLI::App& bench) {
  static bool json = false;
  static std::string only;
  auto* command = bench.add_subcommand(
      "search",
      "What searching the 4.9B LM on the 512-core pod costs: the complete space of meshes x paper layouts x "
      "algorithms default and auto (targets: 20 candidates per second, under a minute), again with the "
      "collective times the first kept, and the default space with and without the collective cache. Each "
      "case runs in its own child process.");
  command->add_flag("--json", json, "Print one JSON object");
  command->add_option("--only", only, "Run one case: paper, warm or cache")
      ->check(CLI::IsMember({"paper", "warm", "cache"}));
  command->callback([] {
    std::string folder_pattern = (fs::temp_directory_path() / "tpusim-bench-search-XXXXXX").string();
    if (::mkdtemp(folder_pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    const std::string folder = folder_pattern;
    const workloads::SearchInput paper =
        lm_s5("search:\n  algorithms: [default, auto]\n  max_candidates: 2000\n");
    const workloads::SearchInput plain = lm_s5("");
    nlohmann::json runs = nlohmann::json::object();
    const auto report = [&](const std::string& name, const nlohmann::json& r) {
      runs[name] = r;
      if (!json) std::cout << fmt::format("{:<16} {}\n", name, line(r)) << std::flush;
    };
    workloads::SearchOptions kept;
    kept.collective_time_folder = folder;
    if (only.empty() || only == "paper" || only == "warm") {
      report("paper", search_case(paper, only == "warm" ? kept : workloads::SearchOptions{}));
      if (only.empty() || only == "warm") {
        if (only.empty()) search_case(paper, kept);  // fills the folder
        report("warm", search_case(paper, kept));
      }
    }
    if (only.empty() || only == "cache") {
      report("cache", search_case(plain, {}));
      workloads::SearchOptions uncached;
      uncached.share_collective_times = false;
      report("no cache", search_case(plain, uncached));
    }
    std::error_code ignored;
    fs::remove_all(folder, ignored);
    if (json) {
      std::cout << workloads::dump_report(workloads::with_report_context(
                       {{"cases", runs}}, workloads::format::kBenchSearch, "bench search",
                       {{"only", workloads::input_or_null(only)}}))
                << "\n";
    }
    for (const auto& [name, r] : runs.items()) {
      if (r.contains("error"))
        throw std::runtime_error("bench search: " + name + " failed: " + r["error"].get<std::string>());
    }
  });
}

}  // namespace tpusim::cli
