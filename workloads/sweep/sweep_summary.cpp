#include "workloads/sweep/sweep_summary.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "topologies/support/atomic_file.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/environment_error.hpp"
#include "topologies/support/leftovers.hpp"
#include "workloads/report/report_context.hpp"

namespace tpusim::workloads {
namespace {

// Stands for the runs in the document text until they are written; no run or sweep holds it.
constexpr const char* kRunsPlaceholder = "\"@@tpusim: the runs go here@@\"";

// `text` with every line after the first indented by `indent` more.
std::string indented(const std::string& text, const std::string& indent) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    out += c;
    if (c == '\n') out += indent;
  }
  return out;
}

}  // namespace

const std::vector<std::string> kSweepSummaryFiles = {"sweep.csv", "sweep.json"};

void write_csv_cells(CsvWriter& csv, const nlohmann::json& cells) {
  for (const auto& cell : cells) {
    if (cell.is_string()) {
      csv.text(cell.get<std::string>());
    } else if (cell.is_boolean()) {
      csv.boolean(cell.get<bool>());
    } else if (cell.is_number_unsigned()) {
      csv.number(cell.get<std::uint64_t>());
    } else if (cell.is_number_integer()) {
      csv.number(cell.get<std::int64_t>());
    } else if (cell.is_number_float()) {
      csv.number(cell.get<double>());
    } else {
      csv.empty();
    }
  }
  csv.end_row();
}

SweepJsonWriter::SweepJsonWriter(std::ostream& out, nlohmann::json body, std::string format,
                                 nlohmann::json inputs)
    : out_(out), body_(std::move(body)), format_(std::move(format)), inputs_(std::move(inputs)) {
  TPUSIM_CHECK(body_.is_object() && !body_.contains("runs"));
  const std::string text = document_text(0);
  out_ << text.substr(0, text.find(kRunsPlaceholder));
}

std::string SweepJsonWriter::document_text(double wall_s) const {
  nlohmann::json document = body_;
  document["runs"] = nlohmann::json::parse(kRunsPlaceholder);
  document["wall_s"] = wall_s;
  return dump_report(with_report_context(std::move(document), format_, "sweep", inputs_));
}

void SweepJsonWriter::add(const nlohmann::json& run) {
  // As nlohmann::json::dump(2) writes an element of an array that is a field of the top-level object.
  out_ << (runs_ == 0 ? "[\n    " : ",\n    ") << indented(run.dump(2), "    ");
  ++runs_;
}

void SweepJsonWriter::finish(double wall_s) {
  out_ << (runs_ == 0 ? "[]" : "\n  ]");
  const std::string text = document_text(wall_s);
  out_ << text.substr(text.find(kRunsPlaceholder) + std::strlen(kRunsPlaceholder)) << "\n";
}

SummaryFiles::SummaryFiles(const std::string& folder, const SummaryHeader& header) : folder_(folder) {
  for (const auto& name : kSweepSummaryFiles) clean_leftovers(folder_, name);
  csv_temporary_ = temporary_path(csv_path());
  json_temporary_ = temporary_path(json_path());
  csv_file_.open(csv_temporary_, std::ios::binary | std::ios::trunc);
  json_file_.open(json_temporary_, std::ios::binary | std::ios::trunc);
  if (!csv_file_ || !json_file_) {
    const int error = errno;
    std::remove(csv_temporary_.c_str());
    std::remove(json_temporary_.c_str());
    throw EnvironmentError(
        fmt::format("cannot write results folder '{}': {}", folder_, std::strerror(error)));
  }
  csv_ = std::make_unique<CsvWriter>(csv_file_, header.csv_header);
  json_ = std::make_unique<SweepJsonWriter>(
      json_file_,
      header.description.is_null() ? nlohmann::json::object() : nlohmann::json{{"sweep", header.description}},
      header.format, header.inputs);
}

SummaryFiles::~SummaryFiles() {
  if (committed_) return;
  csv_file_.close();
  json_file_.close();
  std::remove(csv_temporary_.c_str());
  std::remove(json_temporary_.c_str());
}

void SummaryFiles::add(const nlohmann::json& cells, const nlohmann::json& run) {
  write_csv_cells(*csv_, cells);
  json_->add(run);
}

void SummaryFiles::commit(double wall_s) {
  json_->finish(wall_s);
  csv_file_.close();
  json_file_.close();
  if (!csv_file_ || !json_file_) {
    throw EnvironmentError(
        fmt::format("cannot write results folder '{}': {}", folder_, std::strerror(errno)));
  }
  for (const auto& [temporary, target] :
       {std::pair{json_temporary_, json_path()}, std::pair{csv_temporary_, csv_path()}}) {
    if (std::rename(temporary.c_str(), target.c_str()) != 0) {
      throw EnvironmentError(fmt::format("cannot write '{}': {}", target, std::strerror(errno)));
    }
  }
  committed_ = true;
}

}  // namespace tpusim::workloads
