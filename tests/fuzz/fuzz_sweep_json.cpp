// Fuzz target: a sweep's sweep.json as `tpusim plot` reads it back (workloads/report/sweep_document.hpp), and
// everything drawn from it that needs neither gnuplot nor a disk: the charts, their scripts and data, and
// report.md. Whatever the bytes, the outcome is a document drawn or one InputError.
#include "fuzz_input.hpp"
#include "workloads/report/sweep_charts.hpp"
#include "workloads/report/sweep_document.hpp"
#include "workloads/report/sweep_report_md.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = tpusim::fuzz::text_of(data, size);
  tpusim::fuzz::expect_only_input_errors([&] {
    using namespace tpusim::workloads;
    const SweepDocument document = sweep_document_from_text(text, "fuzz");
    const SweepCharts charts = sweep_charts(document);
    for (const auto& chart : charts.charts) {
      chart_script(chart);
      chart_data(chart);
    }
    sweep_report_markdown(document, charts.charts, true, charts.notes);
  });
  return 0;
}
