#include "workloads/report/sweep_plots.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "topologies/support/atomic_file.hpp"
#include "topologies/support/atomic_folder.hpp"
#include "topologies/support/environment_error.hpp"
#include "workloads/report/gnuplot.hpp"
#include "workloads/report/sweep_charts.hpp"
#include "workloads/report/sweep_document.hpp"
#include "workloads/report/sweep_report_md.hpp"

namespace tpusim::workloads {
namespace fs = std::filesystem;

const std::vector<std::string> kSweepPlotOutputs = {"report.md", "plots"};

namespace {

constexpr const char* kChartFiles[] = {".gp", ".dat", ".png", ".svg"};

// The names plots/ may hold to be replaced: this drawing's files and an earlier drawing's (whose charts may
// differ: another op, a plot that had no data). Anything else there, such as a user's notes, stops the
// drawing rather than being deleted with the folder.
std::vector<std::string> plot_file_names(const std::string& plots, const std::vector<Chart>& charts) {
  std::vector<std::string> names;
  for (const auto& chart : charts) {
    for (const char* extension : kChartFiles) names.push_back(chart.name + extension);
  }
  std::error_code error;
  for (fs::directory_iterator it(plots, error), end; !error && it != end; it.increment(error)) {
    const std::string extension = it->path().extension().string();
    for (const char* ours : kChartFiles) {
      if (extension == ours && it->is_regular_file()) names.push_back(it->path().filename().string());
    }
  }
  return names;
}

// A staged file that cannot be written is blamed on the folder the user knows rather than on the staging
// folder, which is gone by the time they look.
void write_staged(const StagedFolder& staged, const std::string& name, const std::string& text) {
  try {
    write_file_atomically(staged.staged_path(name), text);
  } catch (const EnvironmentError& error) {
    const std::string message = error.what();
    const auto reason = message.rfind("': ");
    throw EnvironmentError(fmt::format("cannot write the plots in '{}': {}", staged.folder(),
                                       reason == std::string::npos ? message : message.substr(reason + 3)));
  }
}

}  // namespace

SweepOutputs draw_sweep_outputs(const std::string& folder, std::ostream& warnings,
                                const SweepPlotOptions& options) {
  return draw_sweep_outputs(read_sweep_document(folder), warnings, options);
}

SweepOutputs draw_sweep_outputs(const SweepDocument& document, std::ostream& warnings,
                                const SweepPlotOptions& options) {
  const std::string& folder = document.folder;
  SweepCharts charts = sweep_charts(document);
  const bool gnuplot = gnuplot_available();
  if (!gnuplot) {
    warnings << "tpusim: warning: " << kGnuplotMissing << "\n";
    charts.notes.push_back(kGnuplotMissing);
  }
  SweepOutputs outputs;
  const std::string plots = (fs::path(folder) / "plots").string();
  outputs.plots = plots;
  std::error_code error;
  // An earlier drawing is replaced even when there is nothing to draw now, so no stale image stays.
  if (!charts.charts.empty() || fs::exists(plots, error)) {
    StagedFolder staged(plots, plot_file_names(plots, charts.charts));
    // gnuplot runs in the staging folder, where the script finds its data by the names it would by hand.
    const std::string staging = fs::path(staged.staged_path("x")).parent_path().string();
    for (const auto& chart : charts.charts) {
      write_staged(staged, chart.name + ".gp", chart_script(chart));
      write_staged(staged, chart.name + ".dat", chart_data(chart));
      if (!gnuplot || !outputs.gnuplot_failure.empty()) continue;
      const std::vector<std::string> images = {chart.name + ".png", chart.name + ".svg"};
      try {
        run_gnuplot({staging, chart.name + ".gp", images, plots, options.gnuplot_time_limit_s,
                     options.how_to_raise});
        outputs.drawn.push_back(chart.name);
      } catch (const GnuplotFailure& failure) {
        if (!options.scripts_when_gnuplot_fails) throw;
        // No half-drawn image stays, and no other chart waits on a gnuplot that just failed.
        for (const auto& image : images) fs::remove(fs::path(staging) / image, error);
        outputs.gnuplot_failure = failure.what();
        charts.notes.push_back("No images: " + outputs.gnuplot_failure + ".");
      }
    }
    staged.commit();
  }
  outputs.report = (fs::path(folder) / "report.md").string();
  write_file_atomically(outputs.report,
                        sweep_report_markdown(document, charts.charts,
                                              gnuplot && outputs.gnuplot_failure.empty(), charts.notes));
  return outputs;
}

}  // namespace tpusim::workloads
