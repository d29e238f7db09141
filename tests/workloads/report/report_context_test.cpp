// The context block: one shape for every document, printed first, and the document reads back unchanged.
#include "workloads/report/report_context.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace tpusim::workloads;

TEST_CASE("report context: the five fields, versions filled in, inputs as given") {
  const auto context = report_context(format::kCollective, "collective", {{"topology", "ring-8"}});
  std::vector<std::string> keys;
  for (const auto& [key, value] : context.items()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  auto expected = kReportContextFields;
  std::sort(expected.begin(), expected.end());
  CHECK(keys == expected);
  CHECK(context["tpusim_version"] == TPUSIM_VERSION);
  CHECK(context["simgrid_version"].get<std::string>().rfind("3.", 0) == 0);
  CHECK(context["format"] == "tpusim.collective.v2");
  CHECK(context["command"] == "collective");
  CHECK(context["inputs"] == nlohmann::json{{"topology", "ring-8"}});
  CHECK(report_context(format::kValidate, "validate")["inputs"] == nlohmann::json::object());
}

TEST_CASE("report context: the document prints context first and reads back as the same JSON") {
  const nlohmann::json body = {
      {"alpha", 1}, {"busbw_Bps", 3.0000000000000004}, {"zeta", {{"b", 1}, {"a", 2}}}};
  const auto document = with_report_context(body, format::kBenchStep, "bench step", {{"only", nullptr}});
  const std::string text = dump_report(document);
  CHECK(text.rfind("{\n  \"context\": {\n    \"tpusim_version\": ", 0) == 0);
  CHECK(text.find("\"simgrid_version\"") < text.find("\"format\""));
  CHECK(text.find("\"format\"") < text.find("\"command\""));
  CHECK(text.find("\"command\"") < text.find("\"inputs\""));
  CHECK(text.find("\"inputs\"") < text.find("\"alpha\""));
  CHECK(nlohmann::json::parse(text) == document);
  // Every figure keeps its digits: the same text as nlohmann::json's own dump.
  CHECK(text.find("3.0000000000000004") != std::string::npos);
}

TEST_CASE("report context: an input not given is null") {
  CHECK(input_or_null("").is_null());
  CHECK(input_or_null("lm-s5") == "lm-s5");
}
