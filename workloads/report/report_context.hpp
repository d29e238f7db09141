#pragma once
// The `context` block of every JSON document tpusim prints (`--json`) or writes (summary.json, sweep.json,
// validate.json), one shape for all, in the spirit of google/benchmark's JSON reporter:
//   "context": {
//     "tpusim_version":  "0.1.0",
//     "simgrid_version": "3.32.0",
//     "format":          "tpusim.collective.v2"   (one of kFormats: what the rest of the document holds)
//     "command":         "collective"             (the subcommand that made it: "run", "bench step", ...)
//     "inputs":          {...}                    (what the command was given that determines the result,
//                                                  as given: a preset or file path, options; {} for none)
//   }
// Everything else a command reports, derived or measured, sits beside "context", never inside it.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tpusim::workloads {

// Every document format, one name each; a format's fields change only with its version.
namespace format {
inline constexpr const char* kRunSummary = "tpusim.run_summary.v1";      // tpusim run, summary.json
inline constexpr const char* kSweep = "tpusim.sweep.v1";                 // tpusim sweep, sweep.json
inline constexpr const char* kCollectiveSweep = "tpusim.collective_sweep.v1";  // a collective study's sweep.json
inline constexpr const char* kConfigSchema = "tpusim.config_schema.v1";  // tpusim run --schema
inline constexpr const char* kSearchSchema = "tpusim.search_schema.v1";  // tpusim search --schema
inline constexpr const char* kSweepSchema = "tpusim.sweep_schema.v1";    // tpusim sweep --schema
inline constexpr const char* kTopology = "tpusim.topology.v1";           // tpusim topo describe
inline constexpr const char* kTopologyList = "tpusim.topology_list.v1";  // tpusim topo list
inline constexpr const char* kCollective = "tpusim.collective.v2";       // tpusim collective
inline constexpr const char* kAlgorithms = "tpusim.algorithms.v1";       // collective --list-algorithms
inline constexpr const char* kValidate = "tpusim.validate.v1";           // tpusim validate, validate.json
inline constexpr const char* kBenchCollectives = "tpusim.bench_collectives.v1";  // tpusim bench collectives
inline constexpr const char* kBenchStep = "tpusim.bench_step.v1";                // tpusim bench step
inline constexpr const char* kBenchEngine = "tpusim.bench_engine.v1";            // tpusim bench engine
inline constexpr const char* kBenchConv = "tpusim.bench_conv.v1";                // tpusim bench conv
inline constexpr const char* kBenchSweep = "tpusim.bench_sweep.v1";              // tpusim bench sweep
inline constexpr const char* kBenchSearch = "tpusim.bench_search.v1";            // tpusim bench search
inline constexpr const char* kSearch = "tpusim.search.v1";                       // tpusim search, search.json
inline constexpr const char* kFidelity = "tpusim.fidelity.v1";  // tpusim fidelity: its sweep.json and --json
inline constexpr const char* kCalibration = "tpusim.calibration.v1";  // tpusim calibrate --json
}  // namespace format

// The names of the context block's fields, in the order above.
extern const std::vector<std::string> kReportContextFields;

// The block itself. `inputs` is a JSON object (anything else is a bug in the caller: TPUSIM_CHECK).
nlohmann::json report_context(const std::string& format, const std::string& command,
                              nlohmann::json inputs = nlohmann::json::object());

// A document: `body`'s fields plus "context" (body must be an object without a "context" of its own).
nlohmann::json with_report_context(nlohmann::json body, const std::string& format, const std::string& command,
                                   nlohmann::json inputs = nlohmann::json::object());

// The document as text, indented by two: "context" first, its fields in the order above, then the other
// fields in nlohmann::json's (alphabetical) order. Reading it back gives `document` again.
std::string dump_report(const nlohmann::json& document);

// An input that was not given is null, so that every document of a format has the same input keys.
nlohmann::json input_or_null(const std::string& text);

}  // namespace tpusim::workloads
