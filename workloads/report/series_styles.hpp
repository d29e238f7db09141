#pragma once
// How the series of a chart look: a table of twelve (colour, dash type, marker) triples, each pair of colour
// and dash type distinct, so that twelve series stay apart in colour, in print and for colour-blind
// readers. The colours are Okabe and Ito's (without their yellow, faint on white), then black and grey; the
// last four are the first four's colours dashed, with open markers. Beyond twelve the table repeats.
//
// A chart whose series are a grid of two things (the algorithm and the topology of a collective study)
// shows one by colour and marker and the other by dash type instead, from the same columns.
#include <cstddef>
#include <string>
#include <vector>

namespace tpusim::workloads {

struct SeriesStyle {
  const char* colour;  // '#rrggbb'
  int dash_type;       // gnuplot's dt: 1 solid, 2 dashed, 3 dotted, 4 dash-dot, 5 dash-dot-dot
  int point_type;      // gnuplot's pt: 5, 7, 9, 11, 13, 15 filled; 4, 6, 8, 10, 12, 14 open
};

const std::vector<SeriesStyle>& series_styles();

// The dash types a grid's second dimension cycles through, solid first.
const std::vector<int>& grid_dash_types();

// The `set linetype` commands giving linetypes 1 to 12 the table's looks (lines 2 wide), and
// `set linetype cycle 12`: a series drawn with `lt i+1` takes row i.
std::string series_linetypes();

}  // namespace tpusim::workloads
