// How much room a chart's text takes, and where the labels of points go: the estimates the scripts' choices
// rest on.
#include "workloads/report/chart_geometry.hpp"

#include <catch2/catch.hpp>

#include "workloads/report/label_placement.hpp"

using namespace tpusim::workloads;

TEST_CASE("chart geometry: text is as wide as its longest line's characters, × counting once") {
  CHECK(text_width_px("abc") == 3 * kCharWidthPx);
  CHECK(text_width_px("a × b") == 5 * kCharWidthPx);
  CHECK(text_width_px("abcd\nef") == 4 * kCharWidthPx);
}

TEST_CASE("chart geometry: tick labels fit side by side only with a character between neighbours") {
  const double axis = 100 * kCharWidthPx;
  // Centres 10 characters apart: labels of 8 leave 2, of 10 none.
  CHECK(tick_labels_fit({{0.1, "12345678"}, {0.2, "12345678"}}, axis));
  CHECK_FALSE(tick_labels_fit({{0.1, "1234567890"}, {0.2, "1234567890"}}, axis));
  // The order given does not matter.
  CHECK_FALSE(tick_labels_fit({{0.2, "1234567890"}, {0.9, "x"}, {0.1, "1234567890"}}, axis));
}

TEST_CASE("chart geometry: a label in two lines is split after a comma, else mid-way, never at a ×") {
  CHECK(in_two_lines("batch 16 × model 2, mapping rings") == "batch 16 × model 2,\nmapping rings");
  CHECK(in_two_lines("2 random links down (seed 7)") == "2 random links\ndown (seed 7)");
  CHECK(in_two_lines("batch 16 × model 2") == "batch 16 × model 2");
  CHECK(in_two_lines("word") == "word");
}

TEST_CASE("chart geometry: a legend below takes as many columns as fit, and rows for the rest") {
  const KeyRows two = key_rows_below({"rings", "linear"}, "");
  CHECK(two.columns == 2);
  CHECK(two.rows == 1);
  std::vector<std::string> long_entries(6, std::string(60, 'x'));
  const KeyRows six = key_rows_below(long_entries, "mesh, mapping");
  CHECK(six.columns == 1);
  CHECK(six.rows == 6 + 2);  // and the title after a blank line
  CHECK(key_rows_below({}, "title").rows == 0);
}

TEST_CASE("label placement: a label takes a free side of its point, clear of the frame and other labels") {
  // Near the right edge, a label cannot go right.
  const auto right_edge = place_labels({{{0.98, 0.5}, "batch 8 × model 64"}}, {{0.98, 0.5}});
  CHECK((right_edge[0] == LabelSide::upper_left || right_edge[0] == LabelSide::lower_left));
  // Two points one above the other: the second label keeps off the first.
  const auto stacked =
      place_labels({{{0.5, 0.5}, "first label"}, {{0.5, 0.53}, "second label"}}, {{0.5, 0.5}, {0.5, 0.53}});
  CHECK(stacked[0] == LabelSide::upper_right);
  CHECK(stacked[1] != LabelSide::lower_right);
  // A point where the first choice would cover another point's marker.
  const auto crowded = place_labels({{{0.5, 0.5}, "label"}}, {{0.5, 0.5}, {0.53, 0.52}});
  CHECK(crowded[0] != LabelSide::upper_right);
}

TEST_CASE("label placement: axes end where gnuplot's autoscaling ends them") {
  CHECK(autoscaled_range(1.4, 7.6, false) == std::make_pair(1.0, 8.0));
  CHECK(autoscaled_range(0, 1.35, false).second == Approx(1.4));
  CHECK(autoscaled_range(33, 430, true) == std::make_pair(10.0, 1000.0));
  CHECK(axis_fraction(100, 10, 1000, true) == Approx(0.5));
  CHECK(axis_fraction(3, 1, 5, false) == Approx(0.5));
}
