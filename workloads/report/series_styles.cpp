#include "workloads/report/series_styles.hpp"

#include <fmt/format.h>

namespace tpusim::workloads {

const std::vector<SeriesStyle>& series_styles() {
  static const std::vector<SeriesStyle> styles = {
      {"#0072B2", 1, 7},  {"#D55E00", 1, 5},  {"#009E73", 1, 9},  {"#CC79A7", 1, 11},
      {"#56B4E9", 1, 13}, {"#E69F00", 1, 15}, {"#000000", 1, 6},  {"#999999", 1, 4},
      {"#0072B2", 2, 8},  {"#D55E00", 2, 10}, {"#009E73", 2, 12}, {"#CC79A7", 2, 14},
  };
  return styles;
}

const std::vector<int>& grid_dash_types() {
  static const std::vector<int> dashes = {1, 2, 3, 4, 5};
  return dashes;
}

std::string series_linetypes() {
  std::string text;
  const auto& styles = series_styles();
  for (std::size_t i = 0; i < styles.size(); ++i) {
    text += fmt::format("set linetype {} lc rgb '{}' dt {} pt {} lw 2\n", i + 1, styles[i].colour,
                        styles[i].dash_type, styles[i].point_type);
  }
  return text + fmt::format("set linetype cycle {}\n", styles.size());
}

}  // namespace tpusim::workloads
