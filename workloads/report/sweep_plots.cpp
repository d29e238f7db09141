#include "workloads/report/sweep_plots.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "topologies/support/atomic_file.hpp"
#include "topologies/support/atomic_folder.hpp"
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

void require_drawn(const std::string& folder, const std::string& name) {
  std::error_code error;
  const auto size = fs::file_size(fs::path(folder) / name, error);
  if (error || size == 0) throw std::runtime_error(fmt::format("gnuplot drew no {} in {}", name, folder));
}

}  // namespace

SweepOutputs draw_sweep_outputs(const std::string& folder, std::ostream& warnings) {
  const SweepDocument document = read_sweep_document(folder);
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
      write_file_atomically(staged.staged_path(chart.name + ".gp"), chart_script(chart));
      write_file_atomically(staged.staged_path(chart.name + ".dat"), chart_data(chart));
      if (!gnuplot) continue;
      run_gnuplot(staging, chart.name + ".gp");
      for (const char* image : {".png", ".svg"}) require_drawn(staging, chart.name + image);
      outputs.drawn.push_back(chart.name);
    }
    staged.commit();
  }
  outputs.report = (fs::path(folder) / "report.md").string();
  write_file_atomically(outputs.report,
                        sweep_report_markdown(document, charts.charts, gnuplot, charts.notes));
  return outputs;
}

}  // namespace tpusim::workloads
