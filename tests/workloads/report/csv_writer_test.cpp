// The CSV writer: hostile text survives a round trip through a plain RFC 4180 reader, and every double reads
// back as the same double.
#include "workloads/report/csv_writer.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using tpusim::workloads::csv_field;
using tpusim::workloads::csv_number;
using tpusim::workloads::CsvWriter;

namespace {

using Records = std::vector<std::vector<std::string>>;

// RFC 4180 as written, independent of the writer: fields separated by commas, records by CRLF or LF; a
// field that starts with a quote runs to the next lone quote, "" inside it standing for one quote, and may
// hold commas, CR and LF. Anything else (a quote inside an unquoted field, text after a closing quote) is
// malformed.
Records read_rfc4180(const std::string& text) {
  Records records;
  std::vector<std::string> record;
  std::string field;
  std::size_t i = 0;
  auto end_field = [&] {
    record.push_back(field);
    field.clear();
  };
  auto end_record = [&] {
    end_field();
    records.push_back(record);
    record.clear();
  };
  while (i < text.size()) {
    if (text[i] == '"' && field.empty()) {
      for (++i;; ++i) {
        if (i >= text.size()) throw std::runtime_error("unterminated quoted field");
        if (text[i] != '"') {
          field += text[i];
        } else if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          ++i;
          break;
        }
      }
      if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
        throw std::runtime_error("text after a closing quote");
      continue;
    }
    const char c = text[i];
    if (c == ',') {
      end_field();
      ++i;
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      end_record();
      i += 2;
    } else if (c == '\n') {
      end_record();
      ++i;
    } else if (c == '"' || c == '\r') {
      throw std::runtime_error("a quote or CR inside an unquoted field");
    } else {
      field += c;
      ++i;
    }
  }
  if (!field.empty() || !record.empty()) throw std::runtime_error("the last record has no line end");
  return records;
}

const std::vector<std::string> kHostile = {
    "plain",
    "",
    "a,b",
    "say \"hi\"",
    "\"",
    "\"\"",
    "\"quoted\"",
    "line\nbreak",
    "cr\rreturn",
    "crlf\r\nend",
    "trailing,",
    ",leading",
    " spaced ",
    "all: ,\"\r\n\"\"",
    "\n",
    "tab\there",
    "unicode: \xc3\xa9\xe2\x82\xac",
    "embedding_lookup(x, \"w\"), then\nreduce",
};

}  // namespace

TEST_CASE("csv writer: hostile text comes back unchanged through a plain RFC 4180 reader") {
  std::ostringstream out;
  {
    CsvWriter csv(out, {"index", "name, with comma", "say \"what\"", "multi\nline"});
    for (std::size_t i = 0; i < kHostile.size(); ++i) {
      csv.number(i)
          .text(kHostile[i])
          .text(kHostile[(i + 1) % kHostile.size()])
          .text(kHostile[i] + kHostile[i]);
      csv.end_row();
    }
  }
  const Records records = read_rfc4180(out.str());
  REQUIRE(records.size() == kHostile.size() + 1);
  CHECK(records[0] == std::vector<std::string>{"index", "name, with comma", "say \"what\"", "multi\nline"});
  for (std::size_t i = 0; i < kHostile.size(); ++i) {
    INFO("row " << i << ": " << kHostile[i]);
    const auto& record = records[i + 1];
    REQUIRE(record.size() == 4);
    CHECK(record[0] == std::to_string(i));
    CHECK(record[1] == kHostile[i]);
    CHECK(record[2] == kHostile[(i + 1) % kHostile.size()]);
    CHECK(record[3] == kHostile[i] + kHostile[i]);
  }
}

TEST_CASE("csv writer: a field is quoted only when it holds a comma, a quote, CR or LF") {
  CHECK(csv_field("batch:16;model:32") == "batch:16;model:32");
  CHECK(csv_field("layer_0/self_attention") == "layer_0/self_attention");
  CHECK(csv_field(" spaced ") == " spaced ");
  CHECK(csv_field("") == "");
  CHECK(csv_field("ring,bidir_ring") == "\"ring,bidir_ring\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("a\nb") == "\"a\nb\"");
  CHECK(csv_field("a\rb") == "\"a\rb\"");
}

TEST_CASE("csv writer: doubles are written in the shortest form that reads back as the same double") {
  const std::vector<double> values = {0.0,
                                      1.0,
                                      -2.5,
                                      0.1,
                                      1.0 / 3.0,
                                      0.0003241439999999999,
                                      6.2e10,
                                      1e-300,
                                      5e-324,
                                      std::numeric_limits<double>::max(),
                                      std::nextafter(1.0, 2.0),
                                      123456789.123456789};
  std::ostringstream out;
  {
    CsvWriter csv(out, {"value"});
    for (const double value : values) csv.number(value).end_row();
  }
  const Records records = read_rfc4180(out.str());
  REQUIRE(records.size() == values.size() + 1);
  for (std::size_t i = 0; i < values.size(); ++i) {
    INFO(records[i + 1][0]);
    CHECK(std::strtod(records[i + 1][0].c_str(), nullptr) == values[i]);
  }
  // The text of today's sweep.csv: integers stay integers, short decimals stay short.
  CHECK(csv_number(1.0) == "1");
  CHECK(csv_number(0.25) == "0.25");
  CHECK(csv_number(62e9) == "62000000000");
  CHECK(csv_number(1e-06) == "1e-06");
}

TEST_CASE("csv writer: typed cells: integers in full, booleans as words, empty cells as nothing") {
  std::ostringstream out;
  {
    CsvWriter csv(out, {"int", "big", "negative", "yes", "no", "none", "last"});
    CHECK(csv.columns() == 7);
    csv.number(42)
        .number(std::uint64_t{18446744073709551615u})
        .number(std::int64_t{-9007199254740993})
        .boolean(true)
        .boolean(false)
        .empty();
    CHECK(csv.cells_left() == 1);
    csv.text("end").end_row();
  }
  CHECK(out.str() ==
        "int,big,negative,yes,no,none,last\n"
        "42,18446744073709551615,-9007199254740993,true,false,,end\n");
}
