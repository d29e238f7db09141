#include "workloads/report/sweep_report_md.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <tuple>

#include "topologies/support/units.hpp"

namespace tpusim::workloads {
namespace {

// Table cells and inline text: mesh shapes hold '*' and keys '_', which Markdown would read as emphasis, and
// a '|' would end the cell.
std::string md(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (std::string("\\`*_|<>[]").find(c) != std::string::npos) out += '\\';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out;
}

struct Column {
  std::string header;
  std::function<std::string(const SweepRow&)> cell;  // "" for a row without it
  bool numeric = true;                               // right-aligned
};

std::string table(const std::vector<Column>& columns, const std::vector<const SweepRow*>& rows) {
  std::string text = "|";
  for (const auto& column : columns) text += " " + md(column.header) + " |";
  text += "\n|";
  for (const auto& column : columns) text += column.numeric ? "---:|" : ":---|";
  text += "\n";
  for (const SweepRow* row : rows) {
    text += "|";
    for (const auto& column : columns) text += " " + md(column.cell(*row)) + " |";
    text += "\n";
  }
  return text;
}

std::string percent(double fraction) {
  return std::isfinite(fraction) ? fmt::format("{:.1f}%", 100 * fraction) : "";
}
std::string duration(double seconds) { return std::isfinite(seconds) ? format_duration(seconds) : ""; }
std::string bandwidth(double Bps) { return std::isfinite(Bps) ? format_bandwidth(Bps) : ""; }

bool any_has(const SweepDocument& document, const std::string& field) {
  return std::any_of(document.rows.begin(), document.rows.end(),
                     [&](const SweepRow& r) { return r.has(field); });
}

std::vector<const SweepRow*> all_rows(const SweepDocument& document) {
  std::vector<const SweepRow*> rows;
  for (const auto& row : document.rows) rows.push_back(&row);
  return rows;
}

std::string point_number(const SweepRow& row) { return row.label.substr(0, row.label.find(' ')); }

std::vector<Column> varied_columns(const SweepDocument& document) {
  std::vector<Column> columns = {{"#", [](const SweepRow& row) { return point_number(row); }, false}};
  for (const auto& key : document.varied_keys())
    columns.push_back({key, [key](const SweepRow& row) { return row.value_of(key); }, false});
  return columns;
}

std::string training_table(const SweepDocument& document) {
  auto columns = varied_columns(document);
  auto failed = [](const SweepRow& row) { return !row.error.empty(); };
  columns.push_back({"cores", [](const SweepRow& row) { return row.text("cores"); }});
  // The mesh as resolved, unless the varied mesh.shape already says it (it may be batch:* or from_mapping).
  const bool mesh_shown = std::all_of(document.rows.begin(), document.rows.end(), [](const SweepRow& row) {
    return row.value_of("mesh.shape") == row.text("mesh_shape");
  });
  if (!mesh_shown)
    columns.push_back({"mesh", [](const SweepRow& row) { return row.text("mesh_shape"); }, false});
  if (any_has(document, "global_batch"))
    columns.push_back({"global batch", [](const SweepRow& row) { return row.text("global_batch"); }});
  columns.push_back({"step time", [&](const SweepRow& row) {
                       return failed(row) ? "error: " + row.error : duration(row.number({"step_time_s"}));
                     }});
  columns.push_back({"MFU", [](const SweepRow& row) { return percent(row.number({"mfu"})); }});
  columns.push_back({"exposed comm.", [](const SweepRow& row) {
                       return percent(row.number({"exposed_communication_s"}) / row.number({"step_time_s"}));
                     }});
  if (any_has(document, "tokens_per_s"))
    columns.push_back({"tokens/s", [](const SweepRow& row) {
                         const double tokens = row.number({"tokens_per_s"});
                         return std::isfinite(tokens) ? fmt::format("{:.0f}", tokens) : "";
                       }});
  if (any_has(document, "flops_per_s_per_core"))
    columns.push_back({"TFLOP/s per core", [](const SweepRow& row) {
                         const double flops = row.number({"flops_per_s_per_core"});
                         return std::isfinite(flops) ? fmt::format("{:.2f}", flops / 1e12) : "";
                       }});
  if (any_has(document, "speedup")) {
    columns.push_back({"scaling", [](const SweepRow& row) { return row.text("scaling"); }, false});
    columns.push_back({"speedup", [](const SweepRow& row) {
                         const double speedup = row.number({"speedup"});
                         return std::isfinite(speedup) ? fmt::format("{:.2f}x", speedup) : "";
                       }});
    columns.push_back(
        {"efficiency", [](const SweepRow& row) { return percent(row.number({"efficiency"})); }});
  }
  columns.push_back({"memory/core / HBM", [&](const SweepRow& row) -> std::string {
                       const double used = row.number({"memory_per_core_bytes", "total_bytes"});
                       const double hbm = row.number({"hbm_per_core_bytes", "hbm_bytes"});
                       if (!std::isfinite(used) || !std::isfinite(hbm)) return "";
                       return format_bytes(used) + " / " + format_bytes(hbm);
                     }});
  columns.push_back({"fits",
                     [&](const SweepRow& row) -> std::string {
                       return failed(row) ? "" : row.fits() ? "yes" : "NO";
                     },
                     false});
  return table(columns, all_rows(document));
}

const std::vector<std::string> kCollectiveTextColumns = {"op", "algorithm", "algorithms", "topology",
                                                         "group_axes"};

// A varied key the row's own columns show resolved (collective.bytes as the size, collective.group_axes as
// the axes the group ran on) is not repeated.
bool shown_by_columns(const std::string& key) {
  const std::string last = key.substr(key.rfind('.') + 1);
  return last == "bytes" || std::find(kCollectiveTextColumns.begin(), kCollectiveTextColumns.end(), last) !=
                                kCollectiveTextColumns.end();
}

std::string collective_table(const SweepDocument& document) {
  std::vector<Column> columns = {{"#", [](const SweepRow& row) { return point_number(row); }, false}};
  for (const auto& key : document.varied_keys()) {
    if (!shown_by_columns(key))
      columns.push_back({key, [key](const SweepRow& row) { return row.value_of(key); }, false});
  }
  for (const auto& field : kCollectiveTextColumns) {
    if (any_has(document, field))
      columns.push_back({field, [field](const SweepRow& row) { return row.text(field); }, false});
  }
  columns.push_back({"size", [](const SweepRow& row) {
                       const double bytes = row.number({"bytes", "bytes_per_member", "message_bytes"});
                       return std::isfinite(bytes) ? format_bytes(bytes) : "";
                     }});
  columns.push_back(
      {"time", [](const SweepRow& row) {
         return row.error.empty() ? duration(row.number({"time_s", "simulated_s"})) : "error: " + row.error;
       }});
  if (any_has(document, "algbw_Bps"))
    columns.push_back({"algbw", [](const SweepRow& row) { return bandwidth(row.number({"algbw_Bps"})); }});
  columns.push_back({"busbw", [](const SweepRow& row) { return bandwidth(row.number({"busbw_Bps"})); }});
  if (any_has(document, "prediction_s"))
    columns.push_back(
        {"prediction", [](const SweepRow& row) { return duration(row.number({"prediction_s"})); }});
  if (any_has(document, "ratio_to_lower_bound"))
    columns.push_back({"time / lower bound", [](const SweepRow& row) {
                         const double ratio = row.number({"ratio_to_lower_bound"});
                         return std::isfinite(ratio) ? fmt::format("{:.3f}", ratio) : "";
                       }});
  return table(columns, all_rows(document));
}

std::string describe_point(const SweepRow& row) {
  std::vector<std::string> values;
  for (const auto& [key, value] : row.values) values.push_back(md(key) + " `" + value + "`");
  return "**point " + point_number(row) + "**" +
         (values.empty() ? "" : " (" + fmt::format("{}", fmt::join(values, ", ")) + ")");
}

std::string best_training_point(const SweepDocument& document) {
  const SweepRow *best_mfu = nullptr, *fastest = nullptr;
  for (const auto& row : document.rows) {
    if (!row.error.empty() || !row.fits() || !std::isfinite(row.number({"step_time_s"}))) continue;
    if (std::isfinite(row.number({"mfu"})) &&
        (best_mfu == nullptr || row.number({"mfu"}) > best_mfu->number({"mfu"})))
      best_mfu = &row;
    if (fastest == nullptr || row.number({"step_time_s"}) < fastest->number({"step_time_s"})) fastest = &row;
  }
  if (fastest == nullptr) return "No point ran and fit its HBM.\n";
  auto line = [](const char* what, const SweepRow& row) {
    return fmt::format("- {}: {}: {} per step, {} MFU, on {} cores\n", what, describe_point(row),
                       duration(row.number({"step_time_s"})), percent(row.number({"mfu"})),
                       row.text("cores"));
  };
  std::string text = "Among the points that fit their HBM:\n\n";
  if (best_mfu == fastest) return text + line("highest MFU and lowest step time", *fastest);
  if (best_mfu != nullptr) text += line("highest MFU", *best_mfu);
  return text + line("lowest step time", *fastest);
}

// The fastest algorithm for each op, topology, network and size, and by how much it beats the next fastest.
// Rows are grouped by what the operation is, never by the algorithm or how its group axes are spelled:
// algorithms run on the axes they default to (bucket2d on "x,y", a ring on the snake order), and grouping by
// the axes would make every algorithm the best of a group of its own.
std::string best_algorithms(const SweepDocument& document) {
  using Key = std::tuple<std::string, std::string, std::string, double>;  // op, topology, network, bytes
  std::map<Key, std::vector<const SweepRow*>> groups;
  std::vector<Key> order;
  for (const auto& row : document.rows) {
    const double bytes = row.number({"bytes", "bytes_per_member", "message_bytes"});
    const double time_s = row.number({"time_s", "simulated_s"});
    if (!row.error.empty() || !std::isfinite(bytes) || !std::isfinite(time_s)) continue;
    const Key key{row.text("op"), row.text("topology"), row.text("network"), bytes};
    auto [it, inserted] = groups.try_emplace(key);
    if (inserted) order.push_back(key);
    it->second.push_back(&row);
  }
  if (groups.empty()) return "No row reports a message size and a simulated time.\n";
  // Each op and topology together, sizes growing; ops and topologies in the order they first ran.
  std::map<std::string, std::size_t> op_rank, topology_rank;
  for (const auto& key : order) {
    op_rank.emplace(std::get<0>(key), op_rank.size());
    topology_rank.emplace(std::get<1>(key), topology_rank.size());
  }
  auto rank = [&](const Key& key) {
    return std::make_tuple(op_rank.at(std::get<0>(key)), topology_rank.at(std::get<1>(key)), std::get<2>(key),
                           std::get<3>(key));
  };
  std::stable_sort(order.begin(), order.end(), [&](const Key& a, const Key& b) { return rank(a) < rank(b); });
  const bool networks = std::any_of(
      order.begin(), order.end(), [&](const Key& key) { return std::get<2>(key) != std::get<2>(order[0]); });
  auto time_of = [](const SweepRow* row) { return row->number({"time_s", "simulated_s"}); };
  auto algorithm_of = [](const SweepRow* row) {
    return row->has("algorithm") ? row->text("algorithm") : row->text("algorithms");
  };
  std::string text = fmt::format(
      "The fastest algorithm for each op, topology{} and size (whatever group axes each ran on), and its "
      "margin over the second fastest: how much longer the second takes, in percent and as a ratio of "
      "times.\n\n| op | topology |{} size | fastest | time | busbw | second | its time | margin |\n"
      "|:---|:---|{}---:|:---|---:|---:|:---|---:|---:|\n",
      networks ? ", network" : "", networks ? " network |" : "", networks ? ":---|" : "");
  for (const auto& key : order) {
    auto rows = groups.at(key);
    std::stable_sort(rows.begin(), rows.end(),
                     [&](const SweepRow* a, const SweepRow* b) { return time_of(a) < time_of(b); });
    const SweepRow* fastest = rows[0];
    std::string second = "none", second_time, margin = "only one ran";
    if (rows.size() > 1) {
      second = md(algorithm_of(rows[1]));
      second_time = duration(time_of(rows[1]));
      const double ratio = time_of(rows[1]) / time_of(fastest);
      margin = fmt::format("{:.1f}% ({:.3f}x)", 100 * (ratio - 1), ratio);
    }
    text += fmt::format("| {} | {} |{} {} | {} | {} | {} | {} | {} | {} |\n", md(std::get<0>(key)),
                        md(std::get<1>(key)), networks ? " " + md(std::get<2>(key)) + " |" : "",
                        format_bytes(std::get<3>(key)), md(algorithm_of(fastest)), duration(time_of(fastest)),
                        bandwidth(fastest->number({"busbw_Bps"})), second, second_time, margin);
  }
  return text;
}

std::string what_ran(const SweepDocument& document) {
  std::size_t ran = 0, fit = 0;
  for (const auto& row : document.rows) {
    if (!row.error.empty()) continue;
    ++ran;
    fit += row.fits() ? 1 : 0;
  }
  std::vector<std::string> varied;
  for (const auto& [key, values] : document.vary) {
    std::vector<std::string> quoted;
    for (const auto& value : values) quoted.push_back("`" + value + "`");
    varied.push_back(md(key) + ": " + fmt::format("{}", fmt::join(quoted, ", ")));
  }
  std::string text = "| | |\n|:---|:---|\n";
  text += fmt::format("| kind | {} |\n", document.collectives() ? "collective study" : "training");
  if (!document.base.empty()) text += fmt::format("| base | {} |\n", md(document.base));
  text += fmt::format("| varied | {} |\n",
                      varied.empty() ? "nothing" : fmt::format("{}", fmt::join(varied, "<br>")));
  text += fmt::format("| points | {}, {} ran", document.rows.size(), ran);
  if (!document.collectives()) text += fmt::format(", {} fit their HBM", fit);
  text += " |\n";
  text += fmt::format("| tpusim | {} |\n",
                      document.tpusim_version.empty() ? "unknown" : md(document.tpusim_version));
  text += fmt::format("| written | {} |\n", document.written.empty() ? "unknown" : document.written);
  return text;
}

}  // namespace

std::string sweep_report_markdown(const SweepDocument& document, const std::vector<Chart>& charts,
                                  bool images, const std::vector<std::string>& notes) {
  std::string text = "# Sweep " + md(document.name) + "\n\n";
  if (!document.description.empty()) text += md(document.description) + "\n\n";
  text += what_ran(document) + "\n";
  text += "Every figure below is in `sweep.csv` and `sweep.json` beside this file.\n\n";
  text += document.collectives() ? "## Best algorithms\n\n" + best_algorithms(document)
                                 : "## Best point\n\n" + best_training_point(document);
  text += "\n## Points\n\n";
  text += document.collectives() ? collective_table(document) : training_table(document);
  if (!document.collectives() && any_has(document, "speedup"))
    text +=
        "\nSpeedup and efficiency are against the smallest point (fewest cores) of each series, the points "
        "that differ only in the keys that set the core count. Speedup is the model FLOP/s over the smallest "
        "point's (for strong scaling, the same work, its step time over this point's); efficiency is the "
        "speedup over the ratio of cores (for weak scaling, the throughput per core over the smallest "
        "point's). A series is weak scaling when its work per step grows with the cores, strong when it "
        "stays the same.\n";
  if (!charts.empty()) {
    text += "\n## Plots\n\n";
    for (const auto& chart : charts) {
      text += images ? fmt::format("![{}](plots/{}.png)\n\n", md(chart.title), chart.name)
                     : fmt::format("- {} (`plots/{}.gp`)\n", md(chart.title), chart.name);
    }
    if (!images) text += "\n";
    text +=
        "Each plot is drawn by gnuplot from `plots/<name>.gp` and `plots/<name>.dat`, as PNG and SVG; edit "
        "the "
        "script and run `gnuplot <name>.gp` in `plots/` to redraw it, or `tpusim plot` on this folder to "
        "draw "
        "everything anew.\n";
  }
  if (!notes.empty()) {
    text += "\n## Notes\n\n";
    for (const auto& note : notes) text += "- " + md(note) + "\n";
  }
  return text;
}

}  // namespace tpusim::workloads
