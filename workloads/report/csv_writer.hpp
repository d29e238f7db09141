#pragma once
// The one CSV writer of every table tpusim writes (collectives.csv, sweep.csv, validate.csv): a header row,
// then rows of typed cells, each row as wide as the header.
//   text     RFC 4180: a field holding a comma, a double quote, CR or LF is quoted, its quotes doubled;
//            any other field is written as it is
//   numbers  integers in full; doubles in the shortest form that reads back as the same double
//            (fmt's "{}": 0.25, 1e-06, 62000000000), so a CSV holds every bit of the JSON's figures
//   bools    true / false
//   empty    nothing between the commas (a figure that does not exist, e.g. for a point that failed)
// Rows end in "\n" (not RFC 4180's CRLF): the files are read by scripts and spreadsheets on any system,
// and both accept it.
#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

namespace tpusim::workloads {

class CsvWriter {
 public:
  // Writes the header row at once.
  CsvWriter(std::ostream& out, const std::vector<std::string>& header);
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  CsvWriter& text(const std::string& value);
  CsvWriter& number(double value);
  template <typename Integer,
            std::enable_if_t<std::is_integral_v<Integer> && !std::is_same_v<Integer, bool>, int> = 0>
  CsvWriter& number(Integer value) {
    return raw(std::to_string(value));
  }
  CsvWriter& boolean(bool value);
  CsvWriter& empty();
  // Ends the row: it must hold as many cells as the header (TPUSIM_CHECK).
  void end_row();

  std::size_t columns() const { return columns_; }
  std::size_t cells_left() const { return columns_ - cells_in_row_; }  // in the row being written

 private:
  CsvWriter& raw(const std::string& cell);

  std::ostream& out_;
  std::size_t columns_;
  std::size_t cells_in_row_ = 0;
};

// One text field as RFC 4180 writes it.
std::string csv_field(const std::string& text);
// A double as CsvWriter::number writes it.
std::string csv_number(double value);

}  // namespace tpusim::workloads
