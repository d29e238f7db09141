#include "workloads/report/csv_writer.hpp"

#include <fmt/format.h>

#include "topologies/support/check.hpp"

namespace tpusim::workloads {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string csv_number(double value) { return fmt::format("{}", value); }

CsvWriter::CsvWriter(std::ostream& out, const std::vector<std::string>& header)
    : out_(out), columns_(header.size()) {
  TPUSIM_CHECK(!header.empty());
  for (const auto& name : header) text(name);
  end_row();
}

CsvWriter& CsvWriter::raw(const std::string& cell) {
  TPUSIM_CHECK(cells_in_row_ < columns_);
  if (cells_in_row_++ > 0) out_ << ',';
  out_ << cell;
  return *this;
}

CsvWriter& CsvWriter::text(const std::string& value) { return raw(csv_field(value)); }

CsvWriter& CsvWriter::number(double value) { return raw(csv_number(value)); }

CsvWriter& CsvWriter::boolean(bool value) { return raw(value ? "true" : "false"); }

CsvWriter& CsvWriter::empty() { return raw(""); }

void CsvWriter::end_row() {
  TPUSIM_CHECK(cells_in_row_ == columns_);
  out_ << '\n';
  cells_in_row_ = 0;
}

}  // namespace tpusim::workloads
