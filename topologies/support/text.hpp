#pragma once
// The small text helpers every parser of specs ("core+x,y", "torus:4x4,bw=1e9", "batch:rows;hidden:cols")
// needs.
#include <string>
#include <vector>

namespace tpusim {

// Every part, empty ones included: split("a,,b", ',') is {"a", "", "b"}; split("", ',') is {""}.
std::vector<std::string> split(const std::string& text, char separator);

// join({"a", "b", "c"}) is "a, b, c".
std::string join(const std::vector<std::string>& items, const std::string& separator = ", ");

}  // namespace tpusim
