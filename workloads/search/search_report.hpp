#pragma once
// What a search reports: the text summary (the best found next to the config's own layout, the Pareto front
// of step time against memory per core, the fastest candidates), search.json, and the folder written as one
// unit:
//   candidates.csv  every candidate evaluated, in evaluation order (kCandidatesCsvColumns)
//   pareto.csv      the Pareto front, by memory per core (same columns)
//   best.yaml       the fastest candidate that fits, as a config `tpusim run` runs as is: named <base>-best,
//                   described by the mesh, mapping and layout found, writing to <base's output>-best
//   search.json     the context block, the space, the counts, every candidate
//   pareto.gp, pareto.dat, pareto.png, pareto.svg  step time against memory per core (gnuplot)
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "workloads/search/search_run.hpp"

namespace tpusim::workloads {

extern const std::vector<std::string> kCandidatesCsvColumns;
extern const std::vector<std::string> kSearchResultFiles;

void write_candidates_csv(std::ostream& out, const std::vector<CandidateOutcome>& outcomes,
                          const std::vector<std::size_t>& rows, const std::vector<std::size_t>& pareto,
                          const RunConfig& base);  // the training choices the candidates keep
nlohmann::json search_json(const SearchInput& input, const SearchResult& result,
                           const nlohmann::json& inputs);
// best.yaml's text: the base config with the candidate's mesh and collectives, a name, description and
// results folder of its own (the base's name and output with "-best").
std::string best_config_yaml(const SearchInput& input, const CandidateOutcome& best);
void print_search_report(std::ostream& out, const SearchInput& input, const SearchResult& result);

struct SearchFiles {
  std::string folder;
  bool drawn = false;  // pareto.png and .svg (gnuplot was found, and drew them)
};
// Writes the folder (staged beside it, then renamed into place); `warnings` gets one line when gnuplot is
// missing, fails or passes its time limit (gnuplot.hpp; the script, data and results are still written).
SearchFiles write_search_files(const std::string& folder, const SearchInput& input,
                               const SearchResult& result, const nlohmann::json& inputs,
                               std::ostream& warnings);

}  // namespace tpusim::workloads
