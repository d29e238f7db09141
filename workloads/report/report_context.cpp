#include "workloads/report/report_context.hpp"

#include "sim/simulator.hpp"
#include "topologies/support/check.hpp"

namespace tpusim::workloads {

const std::vector<std::string> kReportContextFields = {"tpusim_version", "simgrid_version", "format",
                                                       "command", "inputs"};

nlohmann::json report_context(const std::string& format, const std::string& command, nlohmann::json inputs) {
  TPUSIM_CHECK(inputs.is_object());
  return {{"tpusim_version", TPUSIM_VERSION},
          {"simgrid_version", sim::simgrid_version()},
          {"format", format},
          {"command", command},
          {"inputs", std::move(inputs)}};
}

nlohmann::json with_report_context(nlohmann::json body, const std::string& format, const std::string& command,
                                   nlohmann::json inputs) {
  TPUSIM_CHECK(body.is_object() && !body.contains("context"));
  body["context"] = report_context(format, command, std::move(inputs));
  return body;
}

std::string dump_report(const nlohmann::json& document) {
  // nlohmann::json keeps object keys sorted; ordered_json keeps them in insertion order, and prints numbers
  // the same way, so only the order of the fields changes.
  nlohmann::ordered_json ordered = nlohmann::ordered_json::object();
  if (document.contains("context")) {
    const auto& context = document.at("context");
    nlohmann::ordered_json block = nlohmann::ordered_json::object();
    for (const auto& field : kReportContextFields) {
      if (context.contains(field)) block[field] = context.at(field);
    }
    for (const auto& [key, value] : context.items()) block[key] = value;  // none, if made by report_context
    ordered["context"] = std::move(block);
  }
  for (const auto& [key, value] : document.items()) {
    if (key != "context") ordered[key] = value;
  }
  return ordered.dump(2);
}

nlohmann::json input_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

}  // namespace tpusim::workloads
