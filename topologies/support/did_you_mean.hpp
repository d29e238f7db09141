#pragma once
// "did you mean" suggestions for unknown names (keys, presets, algorithms), by edit distance.
#include <string>
#include <vector>

#include "topologies/support/text.hpp"  // join, for the "valid names are ..." lists

namespace tpusim {

std::size_t edit_distance(const std::string& a, const std::string& b);

// " (did you mean 'ring'?)" when one candidate is close to `name`, else "".
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace tpusim
